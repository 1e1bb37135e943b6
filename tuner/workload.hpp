// A workload file: the GEMM problems of a model's linear layers, one CSV line each
// (`m,n,k,dtype,epilogue[,name][,count]`), read by `coalesce-tune sweep|space --shapes-file` and
// `coalesce-report --workload` (docs/scale.md, "Workloads"). No CUDA, no database: any tool links it.
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/core/problem.hpp"

namespace coalesce {

/// A workload file that cannot be read or has a bad line: one sentence, "FILE:LINE: what is
/// wrong" (or "FILE: ..." for the file as a whole). The tools treat it as bad usage (status 2).
class WorkloadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One line of a workload file. An empty dtype or epilogue field is left unset: the tool's
/// --dtype / --epilogue fills it, so one file serves every dtype.
struct WorkloadLine {
  int line = 0;  ///< 1-based line number in the file
  int m = 0, n = 0, k = 0;
  std::optional<Dtype> dtype;
  std::optional<Epilogue> epilogue;
  std::string name;        ///< free text, may be empty
  std::int64_t count = 1;  ///< how many times the workload runs this problem (layers × multiplicity)

  /// The problem of this line, its empty fields filled with the defaults.
  Problem problem(Dtype default_dtype, Epilogue default_epilogue) const;
};

/// The largest count a line may carry.
inline constexpr std::int64_t kMaxWorkloadCount = 2147483647;

/// The fields of the optional header line, in order.
inline constexpr const char* kWorkloadHeader = "m,n,k,dtype,epilogue,name,count";

struct Workload {
  std::string path;  ///< the file as the user named it (what error messages and reports print)
  std::vector<WorkloadLine> lines;

  /// Every line's problem with the defaults filled in, each problem once (a problem on several
  /// lines is swept once), in the order of its first line.
  std::vector<Problem> problems(Dtype default_dtype, Epilogue default_epilogue) const;
};

/// Parses `in` as the workload file `path`: '#' starts a comment (a whole line or the rest of
/// one), blank lines are skipped, the first line may be the header `m,n,k,dtype,epilogue,name,count`
/// (or its first five or six fields), every other line is `m,n,k,dtype,epilogue[,name][,count]`
/// with m, n and k as a --shape's sides (1 to kMaxExtent), dtype and epilogue empty or a name
/// the tools know, count a whole number from 1 to kMaxWorkloadCount (1 when absent or empty).
/// Fields are trimmed of blanks; CRLF line ends are accepted. Throws WorkloadError naming
/// `path:LINE` and what is wrong on the first bad line, or `path` when it holds no problem.
Workload parse_workload(std::istream& in, const std::string& path);

/// Reads and parses the file at `path`; WorkloadError when it cannot be read.
Workload read_workload(const std::string& path);

/// Appends `p` to `problems` unless an equal problem (M, N, K, dtype, epilogue) is there.
void add_unique(std::vector<Problem>& problems, const Problem& p);

}  // namespace coalesce
