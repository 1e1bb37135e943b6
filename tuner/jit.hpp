// NVRTC compilation of emitted kernels for the device's architecture, ptxas' resource report,
// and the content-addressed on-disk cache of the resulting cubins.
#pragma once

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace coalesce::tuner {

/// A kernel header embedded in the binary at build time (tuner/embed_headers.cmake), handed to
/// NVRTC under the name an emitted translation unit includes it by ("kernels/simt_gemm.cuh").
struct KernelHeader {
  const char* name;
  const char* text;
};
/// Every embedded kernel header.
std::span<const KernelHeader> kernel_headers();

/// What ptxas -v reports for one entry function.
struct PtxasReport {
  int registers = 0;
  int spill_store_bytes = 0;
  int spill_load_bytes = 0;
  int stack_bytes = 0;  ///< stack frame
  int smem_bytes = 0;   ///< static shared memory (the simt kernel's is dynamic, so usually 0)
  bool spills() const { return spill_store_bytes > 0 || spill_load_bytes > 0; }
};

/// Reads ptxas' report for `entry` out of an NVRTC log ("Function properties for <entry>",
/// then "... bytes stack frame, N bytes spill stores, N bytes spill loads" and "Used N
/// registers, ..."); nullopt when the log has no complete report for that entry.
std::optional<PtxasReport> parse_ptxas_report(std::string_view log, std::string_view entry);

/// NVRTC's version, e.g. "13.0".
std::string nvrtc_version();

/// The NVRTC options for `arch` (e.g. "sm_90"): C++17, device code by default, ptxas' verbose
/// report, and no fast math (the epilogue's GELU is the exact erf form).
std::vector<std::string> nvrtc_options(const std::string& arch);

/// The outcome of compiling one translation unit, fresh or from the cache.
struct CompileResult {
  bool ok = false;
  std::string key;           ///< content address in the cache (hex SHA-256)
  std::string source_hash;   ///< SHA-256 of the source and every embedded header it may include
  std::filesystem::path cubin_path;  ///< the cached cubin, when ok
  std::optional<PtxasReport> ptxas;  ///< ptxas' figures for the entry, when ok
  std::string log;           ///< NVRTC's log (the errors when !ok)
  double compile_seconds = 0;  ///< time NVRTC took when the entry was first compiled
  bool cache_hit = false;
};

/// Default cache directory: $XDG_CACHE_HOME/coalesce/kernels, else ~/.cache/coalesce/kernels;
/// nullopt when neither variable is set.
std::optional<std::filesystem::path> default_cache_dir();

/// Compiles emitted kernels with NVRTC for one architecture through a content-addressed cache
/// at `cache_dir`. The key covers the source, the embedded headers, the options, the
/// architecture and NVRTC's version, so any change to what would be compiled misses. Entries
/// are written to a temporary file and renamed into place, so concurrent compiles (threads or
/// processes) never see half an entry. compile() is safe to call from many threads.
class Jit {
 public:
  Jit(std::filesystem::path cache_dir, std::string arch);

  /// Compiles `source` (a translation unit defining the extern "C" kernel `symbol`), or
  /// returns the cached result of the same compile. Throws only when the cache cannot be
  /// written; a compile error is a result with ok == false and the log.
  CompileResult compile(const std::string& symbol, const std::string& source) const;

  /// The hash identifying what a source compiles to (source plus embedded headers).
  static std::string source_hash(const std::string& source);
  /// The cache key of `source` under this Jit's architecture, options and NVRTC.
  std::string cache_key(const std::string& source) const;

  const std::string& arch() const { return arch_; }
  const std::filesystem::path& cache_dir() const { return dir_; }

 private:
  std::filesystem::path entry_path(const std::string& key, const char* ext) const;
  std::filesystem::path dir_;
  std::string arch_;
  std::vector<std::string> options_;
};

}  // namespace coalesce::tuner
