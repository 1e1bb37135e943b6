// The tuning table's TSV and the nearest-shape rule (tuning_table.hpp).
#include "tuning_table.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

namespace coalesce::tuning {
namespace {

constexpr const char* kMagic = "# coalesce tuning table ";

/// The columns in the order written; a reader needs the first eight (docs/compiler.md's).
const std::vector<std::string>& column_names() {
  static const std::vector<std::string> names = {"gpu_model", "dtype", "epilogue", "m", "n", "k", "config_name",
                                                 "median_us", "sm_count", "arch", "max_sm_clock_mhz",
                                                 "family", "protocol", "run"};
  return names;
}
constexpr std::size_t kRequiredColumns = 8;

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t tab = line.find('\t', start);
    out.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos) return out;
    start = tab + 1;
  }
}

/// A field may hold anything but the separators (a device name with a tab would shift columns).
std::string checked_field(const std::string& value, const char* column) {
  if (value.find_first_of("\t\r\n") != std::string::npos)
    throw std::invalid_argument(std::string("tuning table: the ") + column + " '" + value +
                                "' holds a tab or line break");
  return value;
}

std::string format_us(double us) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", us);
  return buf;
}

}  // namespace

const char* to_string(Match match) {
  switch (match) {
    case Match::exact: return "exact";
    case Match::nearest_m: return "nearest_m";
    case Match::nearest_shape: return "nearest_shape";
    case Match::none: return "none";
  }
  return "none";
}

std::string write_table(const std::vector<Entry>& entries, const std::vector<std::string>& provenance) {
  std::ostringstream out;
  out << kMagic << kFormatVersion << '\n';
  for (const std::string& line : provenance) out << "# " << checked_field(line, "provenance line") << '\n';
  const auto& names = column_names();
  for (std::size_t i = 0; i < names.size(); ++i) out << (i ? "\t" : "") << names[i];
  out << '\n';
  for (const Entry& e : entries) {
    out << checked_field(e.gpu_model, "GPU model") << '\t' << checked_field(e.dtype, "dtype") << '\t'
        << checked_field(e.epilogue, "epilogue") << '\t' << e.m << '\t' << e.n << '\t' << e.k << '\t'
        << checked_field(e.config_name, "config name") << '\t' << format_us(e.median_us) << '\t' << e.sm_count
        << '\t' << checked_field(e.arch, "arch") << '\t' << e.max_sm_clock_mhz << '\t' << checked_field(e.family, "family")
        << '\t' << checked_field(e.protocol, "protocol") << '\t' << e.run << '\n';
  }
  return out.str();
}

std::vector<Entry> read_table(std::istream& in, const std::string& source) {
  std::string line;
  int line_no = 0;
  auto fail = [&](const std::string& what) -> FormatError {
    return FormatError(source + ":" + std::to_string(line_no) + ": " + what);
  };
  auto next_line = [&]() -> bool {
    if (!std::getline(in, line)) return false;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return true;
  };

  // The version line is optional (docs/compiler.md's reader needs none); where given, it must be
  // a version this build reads.
  bool pending = false;  // `line` holds the first line, not a version line, still to be read
  if (next_line()) {
    if (line.rfind(kMagic, 0) == 0) {
      int version = 0;
      const std::string version_text = line.substr(std::string(kMagic).size());
      const auto [vend, verr] =
          std::from_chars(version_text.data(), version_text.data() + version_text.size(), version);
      if (verr != std::errc() || vend != version_text.data() + version_text.size() || version < 1)
        throw fail("bad format version '" + version_text + "'");
      if (version > kFormatVersion)
        throw fail("format version " + std::to_string(version) + " is newer than this build reads (" +
                   std::to_string(kFormatVersion) + ")");
    } else {
      pending = true;
    }
  }

  std::map<std::string, std::size_t> column;
  std::size_t width = 0;
  while (pending || next_line()) {
    pending = false;
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> names = split_tabs(line);
    width = names.size();
    for (std::size_t i = 0; i < names.size(); ++i)
      if (!column.emplace(names[i], i).second) throw fail("column '" + names[i] + "' appears twice");
    break;
  }
  if (width == 0) throw fail("no header line (the column names)");
  for (std::size_t i = 0; i < kRequiredColumns; ++i)
    if (!column.count(column_names()[i])) throw fail("no column '" + column_names()[i] + "' in the header");

  std::vector<Entry> out;
  while (next_line()) {
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> fields = split_tabs(line);
    if (fields.size() != width)
      throw fail(std::to_string(fields.size()) + " fields, the header has " + std::to_string(width));
    auto field = [&](const std::string& name) -> const std::string* {
      auto it = column.find(name);
      return it == column.end() ? nullptr : &fields[it->second];
    };
    auto integer = [&](const std::string& name, std::int64_t min) -> std::int64_t {
      const std::string* text = field(name);
      if (!text) return 0;
      std::int64_t value = 0;
      const auto [end, err] = std::from_chars(text->data(), text->data() + text->size(), value);
      if (err != std::errc() || end != text->data() + text->size() || value < min)
        throw fail(name + " '" + *text + "' is not an integer of at least " + std::to_string(min));
      return value;
    };
    auto word = [&](const std::string& name, bool required) -> std::string {
      const std::string* text = field(name);
      if (required && (!text || text->empty())) throw fail(name + " is empty");
      return text ? *text : std::string();
    };
    Entry e;
    e.gpu_model = word("gpu_model", true);
    e.sm_count = static_cast<int>(integer("sm_count", 0));
    e.dtype = word("dtype", true);
    e.epilogue = word("epilogue", true);
    e.m = integer("m", 1);
    e.n = integer("n", 1);
    e.k = integer("k", 1);
    e.config_name = word("config_name", true);
    const std::string& us = *field("median_us");
    char* end = nullptr;
    e.median_us = std::strtod(us.c_str(), &end);
    if (us.empty() || end != us.c_str() + us.size() || !(e.median_us >= 0) || !std::isfinite(e.median_us))
      throw fail("median_us '" + us + "' is not a number of at least 0");
    e.arch = word("arch", false);
    e.max_sm_clock_mhz = static_cast<int>(integer("max_sm_clock_mhz", 0));
    e.family = word("family", false);
    e.protocol = word("protocol", false);
    e.run = integer("run", 0);
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<Entry> read_table_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FormatError(path + ": cannot be opened");
  return read_table(in, path);
}

Choice choose(const std::vector<Entry>& entries, const Device& device, const std::string& dtype,
              const std::string& epilogue, std::int64_t m, std::int64_t n, std::int64_t k) {
  auto distance = [](std::int64_t tuned, std::int64_t wanted) {
    return std::abs(std::log2(static_cast<double>(tuned) / static_cast<double>(wanted)));
  };
  // Lexicographic: the rule's step, its distance, then the tie-breaks (smaller M, N, K, median).
  using Rank = std::tuple<int, double, std::int64_t, std::int64_t, std::int64_t, double>;
  Choice best;
  Rank best_rank{};
  for (const Entry& e : entries) {
    if (e.gpu_model != device.name || (e.sm_count != 0 && e.sm_count != device.sm_count) || e.dtype != dtype ||
        e.epilogue != epilogue)
      continue;
    Match match;
    double d;
    if (e.m == m && e.n == n && e.k == k) {
      match = Match::exact;
      d = 0;
    } else if (e.n == n && e.k == k) {
      match = Match::nearest_m;
      d = distance(e.m, m);
    } else {
      match = Match::nearest_shape;
      d = distance(e.m, m) + distance(e.n, n) + distance(e.k, k);
    }
    const Rank rank{static_cast<int>(match), d, e.m, e.n, e.k, e.median_us};
    if (!best.entry || rank < best_rank) {
      best = {&e, match};
      best_rank = rank;
    }
  }
  return best;
}

}  // namespace coalesce::tuning
