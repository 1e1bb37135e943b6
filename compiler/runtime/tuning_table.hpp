// The tuning table the runtime consults for "the best known config" (docs/compiler.md, "The
// tuning table"): the TSV `coalesce-report export` writes, parsed and looked up. No GPU.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kernels/core/problem.hpp"

namespace coalesce::runtime {

/// One row: a config measured for a problem on a GPU model.
struct TuningRow {
  std::string gpu_model;  ///< the device's name as CUDA reports it ("NVIDIA H200")
  Problem problem;        ///< extents, dtype and epilogue
  std::string config_name;
  double median_us = 0;
};

/// A loaded table: its rows in the file's order.
struct TuningTable {
  std::vector<TuningRow> rows;
  /// The rows for `gpu_model` and `problem` (exact extents, dtype and epilogue), fastest first.
  std::vector<const TuningRow*> candidates(std::string_view gpu_model, const Problem& problem) const;
};

/// Parses the text of a tuning table (version 1). Throws std::invalid_argument with
/// "<source>:<line>: <why>" for anything the format does not allow (docs/compiler.md).
TuningTable parse_tuning_table(std::string_view text, const std::string& source);

}  // namespace coalesce::runtime
