// The cold measurement, step by step (see timing.hpp).
#include "timing.hpp"

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <nlohmann/json.hpp>

#include "device.hpp"

namespace coalesce {

namespace {

int l2_bytes(int ordinal) {
  int bytes = 0;
  COALESCE_CUDA(cudaDeviceGetAttribute(&bytes, cudaDevAttrL2CacheSize, ordinal));
  return bytes;
}

/// Set once the process has done its long first warm-up; later kernels warm up briefly.
std::atomic<bool> g_process_warmed{false};

/// The most launches queued between two events during warm-up: enough that launch gaps do not
/// dominate a microsecond kernel, few enough that one batch of a slow kernel stays short.
constexpr int kMaxWarmupBatch = 256;

}  // namespace

L2Flush::L2Flush(int device_ordinal, double factor, L2FlushMode mode)
    : buffer_(static_cast<std::size_t>(factor * l2_bytes(device_ordinal)) / 16 * 16),
      mode_(mode),
      read_blocks_(mode == L2FlushMode::read ? l2_read_flush_blocks(device_ordinal) : 0),
      sink_(static_cast<std::size_t>(read_blocks_)) {
  if (mode_ == L2FlushMode::read) {
    // Filled once, so every read returns defined data.
    COALESCE_CUDA(cudaMemset(buffer_.get(), 0, buffer_.bytes()));
    COALESCE_CUDA(cudaDeviceSynchronize());
  }
}

void L2Flush::flush(cudaStream_t stream) {
  if (mode_ == L2FlushMode::read) {
    l2_read_flush(buffer_.get(), buffer_.bytes(), sink_.get(), read_blocks_, stream);
  } else {
    COALESCE_CUDA(cudaMemsetAsync(buffer_.get(), 0, buffer_.bytes(), stream));
  }
}

ColdTimer::ColdTimer(int device_ordinal, const TimingSettings& settings, cudaStream_t stream)
    : ordinal_(device_ordinal),
      settings_(settings),
      stream_(stream),
      flush_(device_ordinal, settings.l2_flush_factor, settings.l2_flush) {}

Timing ColdTimer::measure(const StreamWork& launch, const StreamWork& reset_output,
                          const std::string& what) {
  Timing t;
  auto elapsed_ms = [&] {
    float ms = 0;
    COALESCE_CUDA_CTX(cudaEventSynchronize(stop_.get()), what);
    COALESCE_CUDA_CTX(cudaEventElapsedTime(&ms, start_.get(), stop_.get()), what);
    return static_cast<double>(ms);
  };

  // 1. Warm-up, in GPU time, in growing batches between one event pair (no flush: it only has
  //    to load the module and bring the clocks up).
  const double warmup_target =
      g_process_warmed.load() ? settings_.warmup_ms : settings_.first_warmup_ms;
  for (int batch = 1; t.warmup_launches == 0 || t.warmup_gpu_ms < warmup_target;
       batch = batch < kMaxWarmupBatch ? batch * 2 : batch) {
    COALESCE_CUDA_CTX(cudaEventRecord(start_.get(), stream_), what);
    for (int i = 0; i < batch; ++i) launch(stream_);
    COALESCE_CUDA_CTX(cudaEventRecord(stop_.get(), stream_), what);
    t.warmup_gpu_ms += elapsed_ms();
    t.warmup_launches += batch;
  }
  g_process_warmed.store(true);

  // 2. Samples: reset the output, flush L2 and spin outside the window, then one event pair
  //    around one launch, synchronizing on every sample. The spin keeps the host's enqueue of
  //    the launch off the window, as the Python peers need it (scripts/torch_peers.py).
  const StoppingRule rule{settings_.min_samples, settings_.max_samples,
                          settings_.max_rel_std_error, settings_.budget_ms};
  t.sm_clock_before_mhz = sm_clock_mhz(ordinal_);
  const auto wall_start = std::chrono::steady_clock::now();
  for (;;) {
    reset_output(stream_);
    flush_.flush(stream_);
    if (settings_.spin_cycles > 0) gpu_spin(settings_.spin_cycles, stream_);
    COALESCE_CUDA_CTX(cudaEventRecord(start_.get(), stream_), what);
    launch(stream_);
    COALESCE_CUDA_CTX(cudaEventRecord(stop_.get(), stream_), what);
    t.samples_ms.push_back(elapsed_ms());
    t.stats = summarize(t.samples_ms);
    if (settings_.sample_gap_ms > 0)
      std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(settings_.sample_gap_ms));
    const double wall_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wall_start).count();
    if (auto reason = should_stop(rule, t.stats, wall_ms)) {
      t.stop = *reason;
      break;
    }
  }
  t.sm_clock_after_mhz = sm_clock_mhz(ordinal_);
  return t;
}

}  // namespace coalesce
