// The strategy registry (strategy.hpp), in the manner of the family registry (kernels/core/family.cpp).
#include "strategy.hpp"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace coalesce::tuner {

std::vector<const StrategyInfo*>& builtin_strategy_list();  // strategies.cpp

namespace {

std::vector<const StrategyInfo*>& registry() {
  static std::vector<const StrategyInfo*> list = builtin_strategy_list();
  return list;
}

}  // namespace

const std::vector<const StrategyInfo*>& strategies() { return registry(); }

const StrategyInfo* find_strategy(std::string_view name) {
  for (const StrategyInfo* s : registry())
    if (s->name == name) return s;
  return nullptr;
}

void register_strategy(const StrategyInfo& strategy) {
  if (find_strategy(strategy.name))
    throw std::invalid_argument("a strategy named '" + std::string(strategy.name) + "' is already registered");
  registry().push_back(&strategy);
}

std::string strategy_names() {
  std::string names;
  for (const StrategyInfo* s : registry()) names += (names.empty() ? "" : ", ") + std::string(s->name);
  return names;
}

std::optional<double> parse_time_budget(std::string_view text) {
  std::size_t digits = 0;
  bool point = false;
  while (digits < text.size() && (std::isdigit(static_cast<unsigned char>(text[digits])) || (text[digits] == '.' && !point))) {
    point = point || text[digits] == '.';
    ++digits;
  }
  const std::string number(text.substr(0, digits));
  if (number.empty() || number == ".") return std::nullopt;
  const std::string_view unit = text.substr(digits);
  double scale = 0;
  if (unit.empty() || unit == "s") scale = 1;
  else if (unit == "m") scale = 60;
  else if (unit == "h") scale = 3600;
  else return std::nullopt;
  const double seconds = std::strtod(number.c_str(), nullptr) * scale;
  if (!(seconds > 0 && seconds <= kMaxTimeBudgetSeconds)) return std::nullopt;
  return seconds;
}

std::string measured_fraction(std::size_t proposed, std::size_t total) {
  const double pct = total ? 100.0 * static_cast<double>(proposed) / static_cast<double>(total) : 100.0;
  char buf[160];
  std::snprintf(buf, sizeof buf,
                "%zu of %zu legal configs measured (%.0f%%): a uniform draw of that share holds the space's best "
                "with probability %.2f",
                proposed, total, pct, pct / 100.0);
  return buf;
}

}  // namespace coalesce::tuner
