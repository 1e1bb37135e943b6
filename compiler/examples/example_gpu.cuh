// What the MLP example drivers share (mlp_main.cu, gated_mlp_main.cu): memref descriptors over
// the harness's buffers, the fp64 reference rounded to the storage type (the next layer's input
// as the program stores it), the host time per program call, and one line per check.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>

#include "compiler/runtime/coalesce_runtime.h"
#include "harness/check.hpp"
#include "harness/cuda_check.hpp"
#include "harness/device.hpp"
#include "harness/timing.hpp"

namespace coalesce::examples {

/// A row-major rows × cols descriptor of `data`.
inline CoalesceMemRef2D matrix(const void* data, int rows, int cols) {
  void* p = const_cast<void*>(data);
  return {p, p, 0, {rows, cols}, {cols, 1}};
}

inline CoalesceMemRef1D vector(const void* data, int n) {
  void* p = const_cast<void*>(data);
  return {p, p, 0, {n}, {1}};
}

// out[i] = the storage type's rounding of ref[i].
__global__ inline void round_to_storage_kernel(const double* ref, void* out, long long n, bool bf16) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    if (bf16)
      static_cast<__nv_bfloat16*>(out)[i] = __double2bfloat16(ref[i]);
    else
      static_cast<__half*>(out)[i] = __double2half(ref[i]);
  }
}

/// Writes the n values of the fp64 `ref` into `out` rounded once to bf16 or f16, and waits.
inline void round_to_storage(const double* ref, void* out, long long n, bool bf16) {
  round_to_storage_kernel<<<1024, 256>>>(ref, out, n, bf16);
  COALESCE_CUDA(cudaGetLastError());
  COALESCE_CUDA(cudaDeviceSynchronize());
}

/// Host microseconds per call of `call`, enqueued `calls` times back to back after one warm call
/// (first-call loading stays out of the figure).
inline double host_us_per_call(const std::function<void()>& call, int calls = 50) {
  call();
  COALESCE_CUDA(cudaDeviceSynchronize());
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) call();
  const auto stop = std::chrono::steady_clock::now();
  COALESCE_CUDA(cudaDeviceSynchronize());
  return std::chrono::duration<double, std::micro>(stop - start).count() / calls;
}

inline void print_check(const char* name, const char* what, const CheckResult& check) {
  std::printf("%s %s: vs fp64 reference: rel_frobenius %.3g, max_abs_err %.3g (max |ref| %.3g), "
              "non-finite %lld: %s%s\n",
              name, what, check.errors.rel_frobenius, check.errors.max_abs_err, check.errors.max_abs_ref,
              check.errors.non_finite, check.passed ? "passed" : "FAILED: ", check.why.c_str());
}

/// The program against a baseline sequence `base` ("eager", "framework") of `base_launches`
/// kernels: each one's host time per call (the program's also per runtime call), then each
/// one's GPU time with one cold protocol on the legacy default stream (where the runtime
/// launches), `reset` before every sample, and the ratio of the medians. `shape` describes the
/// problem in the GPU-time lines; `flops` gives their TFLOP/s.
inline void time_against(const char* name, const DeviceInfo& device, const std::function<void()>& program,
                         int runtime_calls, const char* base, const std::function<void(cudaStream_t)>& baseline,
                         int base_launches, const std::function<void(cudaStream_t)>& reset, const std::string& shape,
                         double flops) {
  const double program_host_us = host_us_per_call(program);
  const double base_host_us = host_us_per_call([&] { baseline(nullptr); });
  std::printf("%s host time: program %.1f us per call (%d runtime calls: %.2f us each); %s "
              "sequence %.1f us per call (%d launches)\n",
              name, program_host_us, runtime_calls, program_host_us / runtime_calls, base, base_host_us,
              base_launches);
  ColdTimer timer(device.ordinal, TimingSettings{}, nullptr);
  const Timing program_time = timer.measure([&](cudaStream_t) { program(); }, reset, name);
  const Timing base_time = timer.measure(baseline, reset, std::string(name) + " " + base);
  for (auto [what, timing] : {std::pair{"program", &program_time}, std::pair{base, &base_time}}) {
    const SampleStats& s = timing->stats;
    std::printf("%s GPU time %s: %s on %s (%s): median %.4f ms (p10 %.4f, p90 %.4f, %d samples), %.1f TFLOP/s\n",
                name, what, shape.c_str(), device.name.c_str(), device.arch().c_str(), s.median, s.p10, s.p90,
                s.count, flops / (s.median * 1e-3) / 1e12);
  }
  std::printf("%s speedup over %s: %.3fx (median against median, same protocol)\n", name, base,
              base_time.stats.median / program_time.stats.median);
}

}  // namespace coalesce::examples
