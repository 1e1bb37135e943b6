// The rows of a benchmark run and their printers: an aligned table, CSV with a fixed header
// (kBenchCsvHeader), and JSON carrying every sample. One row per (problem, method, config).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "kernels/core/problem.hpp"
#include "method.hpp"

namespace coalesce {

/// The CSV header, exactly; reports and tests read columns by these names.
inline constexpr const char* kBenchCsvHeader =
    "m,n,k,dtype,epilogue,method,family,config,median_ms,min_ms,max_ms,tflops,rel_err,status";

/// One measured (or skipped) method on one problem.
struct BenchRow {
  Problem problem;
  std::string method, family, config;
  MethodResult result;

  /// 2·M·N·K over the median, in TFLOP/s; 0 without a timing.
  double tflops() const;
};

/// A row with no measurement: `status` (skipped or error) and why.
BenchRow unmeasured_row(const Problem& p, const std::string& method, const std::string& family,
                        const std::string& config, Status status, const std::string& why);

/// One CSV line (no newline) under kBenchCsvHeader; numbers left empty where there are none.
std::string csv_line(const BenchRow& row);

/// The aligned table of `rows`, grouped by problem in the order given, with each row's
/// throughput as a percentage of the same problem's cublas_gemm row when there is one, and
/// per problem a line comparing the best `coalesce` simt row with every baseline.
std::string format_table(const std::vector<BenchRow>& rows);

void to_json(nlohmann::json& j, const BenchRow& row);

/// Parses a comma-separated shape list, each item as parse_extents() reads a --shape ("4096" is
/// 4096³, "MxNxK" or "M×N×K", each side 1..kMaxExtent). Returns the problems (f32, `epilogue`),
/// or nullopt with a sentence in `error`.
std::optional<std::vector<Problem>> parse_shapes(const std::string& list, Epilogue epilogue,
                                                 std::string* error);

}  // namespace coalesce
