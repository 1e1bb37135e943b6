// Cold timing as nvbench's measure_cold does it: before every sample the output is reset and L2
// is flushed (outside the timed window), then one event pair brackets the launch. Warm-up is
// measured in GPU time; sampling stops by the rule in stats.hpp; every sample is kept.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "cuda_raii.hpp"
#include "stats.hpp"

namespace coalesce {

/// How a sample's L2 flush evicts the cache (TimingSettings::l2_flush).
enum class L2FlushMode {
  /// Overwrite the flush buffer (cudaMemsetAsync, nvbench's l2flush): every line is evicted, and
  /// up to the whole L2 is left dirty, written back to memory while the timed kernel runs.
  write,
  /// Read the flush buffer (filled once): every line is evicted and the dirty ones written back
  /// during the flush, leaving L2 clean.
  read,
};
inline std::string_view to_string(L2FlushMode mode) { return mode == L2FlushMode::read ? "read" : "write"; }
inline std::optional<L2FlushMode> parse_l2_flush_mode(std::string_view name) {
  if (name == "write") return L2FlushMode::write;
  if (name == "read") return L2FlushMode::read;
  return std::nullopt;
}

/// The harness settings a measurement is stamped with (stored as JSON with every run).
struct TimingSettings {
  /// The flush buffer is this many times the device's L2: writing 2× L2 evicts every line of the
  /// previous sample's operands even with a partly set-associative replacement policy.
  double l2_flush_factor = 2.0;
  /// How the flush evicts L2 (stored as "l2_flush" only when it is not `write`, so the settings
  /// of every earlier run read back unchanged).
  L2FlushMode l2_flush = L2FlushMode::write;
  /// Milliseconds the GPU is left idle after each timed sample (stored as "sample_gap_ms" only
  /// when above 0). 0, the default, times the kernel as a loop of samples keeps it loaded; a gap
  /// of several milliseconds times each sample from a GPU that has just rested, as a profiler's
  /// serialized single launches do (docs/tuner.md, "Sustained and rested").
  double sample_gap_ms = 0;
  /// At least 20 samples, so p10 and p90 each rest on two or more samples beyond them.
  int min_samples = 20;
  /// A cap for kernels whose noise never settles (microsecond kernels): 1000 samples bound
  /// their cost to well under a second of GPU time.
  int max_samples = 1000;
  /// Stop once the mean is known to 0.5% (nvbench's default noise criterion): below the ~1-2%
  /// differences between configs the tuner must rank.
  double max_rel_std_error = 0.005;
  /// Wall-time budget per kernel once min_samples are in: slow teaching rungs at large shapes
  /// would otherwise take minutes.
  double budget_ms = 2000;
  /// GPU time of warm-up the first time a process measures: long enough for the SM clock to
  /// leave its idle state (it ramps within a few hundred ms on the H200).
  double first_warmup_ms = 1000;
  /// GPU time of warm-up before each later kernel: module load, instruction cache and TLBs.
  double warmup_ms = 50;
};

void to_json(nlohmann::json& j, const TimingSettings& s);
/// Reads the fields present; absent ones keep their defaults; wrong types throw.
void from_json(const nlohmann::json& j, TimingSettings& s);

/// A buffer of l2_flush_factor × the device's L2 that evicts every cached line before a sample:
/// overwritten with cudaMemsetAsync (nvbench's l2flush) or read through L2 (L2FlushMode).
class L2Flush {
 public:
  L2Flush(int device_ordinal, double factor, L2FlushMode mode = L2FlushMode::write);
  void flush(cudaStream_t stream);
  std::size_t bytes() const { return buffer_.bytes(); }
  L2FlushMode mode() const { return mode_; }

 private:
  DeviceBuffer<unsigned char> buffer_;
  L2FlushMode mode_;
  int read_blocks_;              ///< the read flush's grid (0 for the write flush)
  DeviceBuffer<unsigned> sink_;  ///< the read flush's per-block results
};

/// The read flush's kernel (l2_flush.cu): reads `bytes` (a multiple of 16) of `buffer` through
/// L2 with `blocks` blocks, one word per block into `sink`; l2_read_flush_blocks() is the grid
/// it uses on a device (4 blocks of 256 threads per SM).
void l2_read_flush(const void* buffer, std::size_t bytes, unsigned* sink, int blocks, cudaStream_t stream);
int l2_read_flush_blocks(int device_ordinal);

/// One cold measurement: every sample (ms), their statistics, how sampling ended, the warm-up
/// and the SM clock before and after (nullopt where NVML is absent).
struct Timing {
  std::vector<double> samples_ms;
  SampleStats stats;
  StopReason stop = StopReason::converged;
  int warmup_launches = 0;
  double warmup_gpu_ms = 0;
  std::optional<int> sm_clock_before_mhz, sm_clock_after_mhz;
};

/// A launch or output reset enqueued on the given stream.
using StreamWork = std::function<void(cudaStream_t)>;

/// Times kernels cold on one stream of one device; owns the flush buffer and the events.
class ColdTimer {
 public:
  ColdTimer(int device_ordinal, const TimingSettings& settings, cudaStream_t stream);

  /// Warms `launch` up, then samples it: per sample reset_output, flush L2, event, launch,
  /// event, synchronize. `what` names the kernel and config in any CUDA error.
  Timing measure(const StreamWork& launch, const StreamWork& reset_output, const std::string& what);

  const TimingSettings& settings() const { return settings_; }
  std::size_t flush_bytes() const { return flush_.bytes(); }

 private:
  int ordinal_;
  TimingSettings settings_;
  cudaStream_t stream_;
  L2Flush flush_;
  Event start_, stop_;
};

}  // namespace coalesce
