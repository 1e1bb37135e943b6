// NVRTC compilation of emitted kernels for the device's architecture, with each kernel's
// resource figures read from its cubin, a serialized retry of failed compiles, and the
// content-addressed on-disk cache of the results (kernel_cache.hpp).
#pragma once

#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cubin_resources.hpp"
#include "kernel_cache.hpp"

namespace coalesce::tuner {

/// A kernel header embedded in the binary at build time (tuner/embed_headers.cmake), handed to
/// NVRTC under the name an emitted translation unit includes it by ("kernels/simt_gemm.cuh").
struct KernelHeader {
  const char* name;
  const char* text;
};
/// Every embedded kernel header.
std::span<const KernelHeader> kernel_headers();

/// What ptxas -v reports for one entry function in NVRTC's log. The cubin carries all of it but
/// the spill figures; the log is read for those alone, when it came back.
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
  std::filesystem::path cubin_path;          ///< the cached cubin, when ok
  std::optional<KernelResources> resources;  ///< the kernel's figures from its cubin, when ok
  std::optional<PtxasReport> ptxas;          ///< ptxas' report in the log, when the log has one
  std::string log;           ///< NVRTC's log (the errors when !ok)
  double compile_seconds = 0;  ///< NVRTC time over every attempt when the entry was compiled
  int attempts = 1;          ///< 2 when the first compile failed and was retried alone
  bool cache_hit = false;

  /// Bytes of spill stores and loads: ptxas' own figures where the log has them; 0 where the
  /// cubin shows no local memory (a spill needs some); unknown (nullopt) otherwise.
  std::optional<int> spill_store_bytes() const;
  std::optional<int> spill_load_bytes() const;
};

/// Default cache directory: $XDG_CACHE_HOME/coalesce/kernels, else ~/.cache/coalesce/kernels;
/// nullopt when neither variable is set.
std::optional<std::filesystem::path> default_cache_dir();

/// Faults a test injects into NVRTC's output to show that compiles survive them (sweep.cpp
/// reads them from COALESCE_TEST_NVRTC_FAULT).
struct JitFaults {
  bool empty_log = false;            ///< every program log comes back empty, as on the H200 under 16 parallel compiles
  bool first_attempt_fails = false;  ///< the first attempt of each fresh compile yields a cut-off cubin
};

/// Lets compiles run side by side and a retry run alone: exclusive() waits for the compiles in
/// flight and holds new ones back until it is done. Waiting exclusive holders go first, so a
/// retry never starves behind a pool that keeps compiling.
class CompileGate {
 public:
  /// Holds the gate shared (a compile among others) or exclusively (a retry) while it lives.
  class Hold {
   public:
    Hold(CompileGate& gate, bool exclusive);
    ~Hold();
    Hold(const Hold&) = delete;
    Hold& operator=(const Hold&) = delete;

   private:
    CompileGate& gate_;
    bool exclusive_;
  };

  /// Exclusive holders waiting for the gate (what a test waits on before it goes on).
  int exclusive_waiting() {
    std::lock_guard lock(mutex_);
    return exclusive_waiting_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int shared_ = 0;
  int exclusive_waiting_ = 0;
  bool exclusive_ = false;
};

/// Compiles emitted kernels with NVRTC for one architecture through the content-addressed
/// cache at `cache_dir`. The key covers the source, the embedded headers, the options, the
/// architecture and NVRTC's version, so any change to what would be compiled misses.
///
/// A compile that fails, or whose cubin gives no figures for the entry, is tried once more
/// alone: every compile of the process (all Jits) waits while the retry runs. Only the retry's
/// outcome is cached, so a failure is stored only when it happens again with nothing beside
/// it. compile() is safe to call from many threads.
class Jit {
 public:
  Jit(std::filesystem::path cache_dir, std::string arch, JitFaults faults = {});

  /// Compiles `source` (a translation unit defining the extern "C" kernel `symbol`), or
  /// returns the cached result of the same compile. Throws only when NVRTC cannot start or
  /// the cache cannot be written; a compile error is a result with ok == false and the log.
  /// Concurrent requests for one source (in any Jit of the process with the same key) compile
  /// it once: the later ones wait and get the first's result, marked as a cache hit.
  CompileResult compile(const std::string& symbol, const std::string& source) const;

  /// The hash identifying what a source compiles to (source plus embedded headers).
  static std::string source_hash(const std::string& source);
  /// The cache key of `source` under this Jit's architecture, options and NVRTC.
  std::string cache_key(const std::string& source) const;

  const std::string& arch() const { return arch_; }
  const std::filesystem::path& cache_dir() const { return cache_.dir(); }

 private:
  CompileResult compile_once(const std::string& symbol, const std::string& source) const;
  struct Attempt;
  Attempt attempt(const std::string& symbol, const std::string& source, bool alone) const;
  KernelCache cache_;
  std::string arch_;
  std::vector<std::string> options_;
  JitFaults faults_;
};

}  // namespace coalesce::tuner
