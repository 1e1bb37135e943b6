// What the MLP example drivers share (mlp_main.cu, gated_mlp_main.cu): memref descriptors over
// the harness's buffers, the fp64 reference rounded to the storage type (the next layer's input
// as the program stores it), the host time per program call, and one line per check.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <chrono>
#include <cstdio>
#include <functional>

#include "compiler/runtime/coalesce_runtime.h"
#include "harness/check.hpp"
#include "harness/cuda_check.hpp"

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

}  // namespace coalesce::examples
