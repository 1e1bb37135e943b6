// Parsing and looking up the tuning table (see tuning_table.hpp).
#include "compiler/runtime/tuning_table.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "kernels/core/family.hpp"

namespace coalesce::runtime {

namespace {

// The columns a table must have, in the order a row's fields are read into a TuningRow.
constexpr std::array<std::string_view, 8> kColumns = {"gpu_model", "dtype", "epilogue", "m",
                                                      "n",         "k",     "config_name", "median_us"};

std::vector<std::string_view> split_tabs(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t tab = line.find('\t', start);
    fields.push_back(line.substr(start, tab == std::string_view::npos ? std::string_view::npos : tab - start));
    if (tab == std::string_view::npos) return fields;
    start = tab + 1;
  }
}

std::optional<int> parse_extent(std::string_view s) {
  int v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < 1 || v > kMaxExtent) return std::nullopt;
  return v;
}

std::optional<double> parse_median(std::string_view s) {
  // std::from_chars for double is not in every libstdc++ this builds with; strtod on a copy.
  const std::string text(s);
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(v) || v < 0) return std::nullopt;
  return v;
}

}  // namespace

std::vector<const TuningRow*> TuningTable::candidates(std::string_view gpu_model, const Problem& problem) const {
  std::vector<const TuningRow*> out;
  for (const TuningRow& row : rows)
    if (row.gpu_model == gpu_model && row.problem == problem) out.push_back(&row);
  std::stable_sort(out.begin(), out.end(),
                   [](const TuningRow* x, const TuningRow* y) { return x->median_us < y->median_us; });
  return out;
}

TuningTable parse_tuning_table(std::string_view text, const std::string& source) {
  TuningTable table;
  std::array<std::size_t, kColumns.size()> column_of{};
  std::size_t header_fields = 0;
  bool have_header = false;
  int line_number = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    const std::string at = source + ":" + std::to_string(line_number) + ": ";
    const std::vector<std::string_view> fields = split_tabs(line);
    if (!have_header) {
      for (std::size_t c = 0; c < kColumns.size(); ++c) {
        const auto it = std::find(fields.begin(), fields.end(), kColumns[c]);
        if (it == fields.end())
          throw std::invalid_argument(at + "the header has no column '" + std::string(kColumns[c]) +
                                      "' (a tuning table's header names gpu_model, dtype, epilogue, m, n, k, "
                                      "config_name and median_us, tab-separated)");
        column_of[c] = static_cast<std::size_t>(it - fields.begin());
      }
      header_fields = fields.size();
      have_header = true;
      continue;
    }
    if (fields.size() < header_fields)
      throw std::invalid_argument(at + "the row has " + std::to_string(fields.size()) + " fields, the header " +
                                  std::to_string(header_fields));
    auto field = [&](std::size_t c) { return fields[column_of[c]]; };
    TuningRow row;
    row.gpu_model = std::string(field(0));
    if (row.gpu_model.empty()) throw std::invalid_argument(at + "gpu_model is empty");
    const auto dtype = parse_dtype(field(1));
    if (!dtype) throw std::invalid_argument(at + "dtype '" + std::string(field(1)) + "' is not f32, tf32, bf16 or f16");
    const auto epilogue = parse_epilogue(field(2));
    if (!epilogue) throw std::invalid_argument(at + "epilogue '" + std::string(field(2)) + "' is not known");
    row.problem.dtype = *dtype;
    row.problem.epilogue = *epilogue;
    int* extents[] = {&row.problem.m, &row.problem.n, &row.problem.k};
    for (std::size_t i = 0; i < 3; ++i) {
      const auto v = parse_extent(field(3 + i));
      if (!v)
        throw std::invalid_argument(at + std::string(kColumns[3 + i]) + " '" + std::string(field(3 + i)) +
                                    "' is not an integer from 1 to " + std::to_string(kMaxExtent));
      *extents[i] = *v;
    }
    row.config_name = std::string(field(6));
    const auto named = parse_config_name(row.config_name);
    if (!named) throw std::invalid_argument(at + "config_name '" + row.config_name + "' is not a config name");
    if (named->dtype != *dtype || named->epilogue != *epilogue)
      throw std::invalid_argument(at + "config_name '" + row.config_name + "' is not for the row's dtype " +
                                  std::string(field(1)) + " and epilogue " + std::string(field(2)));
    const auto median = parse_median(field(7));
    if (!median)
      throw std::invalid_argument(at + "median_us '" + std::string(field(7)) + "' is not a non-negative number");
    row.median_us = *median;
    table.rows.push_back(std::move(row));
  }
  if (!have_header) throw std::invalid_argument(source + ": the tuning table has no header line");
  return table;
}

}  // namespace coalesce::runtime
