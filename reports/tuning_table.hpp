// The tuning table: per GPU model, dtype, epilogue and shape the best checked config, as
// `coalesce-report export` writes it (TSV) and the runtime and the PyTorch ops read it, with the
// one rule that picks an entry for a shape that was not tuned (docs/pytorch.md, "The tuning
// table"). Standard C++ only, so the runtime and the Python extension compile it as it is.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <vector>

namespace coalesce::tuning {

/// The format's version, written in the first line; a reader refuses a table of a newer one.
inline constexpr int kFormatVersion = 1;

/// One row: the best checked config of a GPU model for one problem.
struct Entry {
  std::string gpu_model;  ///< the device name as CUDA reports it: "NVIDIA H200"
  std::string arch;       ///< "sm_90"
  int sm_count = 0;          ///< 0: any (a table without the column)
  int max_sm_clock_mhz = 0;  ///< 0 where NVML gave none
  std::string dtype, epilogue;
  std::int64_t m = 0, n = 0, k = 0;
  std::string config_name;
  std::string family;
  double median_us = 0;
  std::string protocol;   ///< the timing protocol of median_us
  std::int64_t run = 0;   ///< the run of the database that measured it
};

/// A table that cannot be read: `what()` is one sentence naming the file and line.
class FormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The table as text: a `# coalesce tuning table <version>` line, `# <provenance>` lines, the
/// header line of column names, then one tab-separated line per entry in the order given. The
/// first eight columns are docs/compiler.md's (what the runtime's reader needs), the rest ours.
std::string write_table(const std::vector<Entry>& entries, const std::vector<std::string>& provenance);

/// Parses a table; columns are found by their header names (unknown ones are ignored, so later
/// versions may add some; sm_count and the version line may be absent, as docs/compiler.md's
/// minimal table has them). `source` names the input in error messages. Throws FormatError.
std::vector<Entry> read_table(std::istream& in, const std::string& source);
/// Reads the file at `path`; a missing or unreadable file is a FormatError too.
std::vector<Entry> read_table_file(const std::string& path);

/// How an entry was found for a problem.
enum class Match {
  exact,          ///< this M, N and K were tuned
  nearest_m,      ///< the same N and K (the same weight), the tuned M nearest in log scale
  nearest_shape,  ///< another shape: the smallest sum of |log2| ratios over M, N and K
  none,           ///< nothing of this GPU model, dtype and epilogue: the runtime's built-in default
};
const char* to_string(Match match);

struct Choice {
  const Entry* entry = nullptr;  ///< null exactly when match is none
  Match match = Match::none;
};

/// The device a problem runs on, as the table names GPU models.
struct Device {
  std::string name;  ///< cudaDeviceProp::name
  int sm_count = 0;  ///< cudaDeviceProp::multiProcessorCount
};

/// The nearest-shape rule (docs/pytorch.md): among the entries of `device` (same name, and SM
/// count where the entry gives one), `dtype` and `epilogue`, the exact shape, else the nearest M of the same N and K, else the
/// nearest shape; ties go to the smaller M (then the smaller N, K), then to the smaller median.
/// The chosen config may still be illegal for this shape (a vector width that does not divide
/// N): the caller then runs the built-in default, as for Match::none.
Choice choose(const std::vector<Entry>& entries, const Device& device, const std::string& dtype,
              const std::string& epilogue, std::int64_t m, std::int64_t n, std::int64_t k);

}  // namespace coalesce::tuning
