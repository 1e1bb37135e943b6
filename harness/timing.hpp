// Cold timing as nvbench's measure_cold does it: before every sample the output is reset, L2 is
// flushed and, with TimingSettings::spin_cycles, the GPU spins (all outside the timed window),
// then one event pair brackets the launch. Warm-up is measured in GPU time; sampling stops by
// the rule in stats.hpp; every sample is kept (docs/tuner.md, "The timing protocol").
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
#include "timing_settings.hpp"

namespace coalesce {

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

/// Enqueues a one-thread kernel that loops on the SM clock for `cycles` (gpu_spin.cu), as
/// torch.cuda._sleep does: the spin before a sample's start event.
void gpu_spin(long long cycles, cudaStream_t stream);

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

  /// Warms `launch` up, then samples it: per sample reset_output, flush L2, the GPU spin (when
  /// spin_cycles > 0), event, launch, event, synchronize, and the rest of sample_gap_ms. `what`
  /// names the kernel and config in any CUDA error.
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
