// The elementwise kernels the baselines run after a cuBLAS GEMM: a bias add, an activation alone
// (what PyTorch eager launches for `gelu(x @ w + b)`: GEMM, add, GELU) and one fused
// bias+activation pass (the best unfused pair). All work in place on row-major C (M×N), use a
// grid-stride loop, and move float4s when every row starts 16-byte aligned (N % 4 == 0 on a
// cudaMalloc'd buffer).
#pragma once

#include <cuda_runtime.h>

#include "epilogue.cuh"

namespace coalesce {

/// x = max(x, 0)
struct ActivationRelu {
  __device__ __forceinline__ static float apply(float x) { return fmaxf(x, 0.0f); }
};
/// x = gelu_erf(x) — PyTorch's default GELU
struct ActivationGeluErf {
  __device__ __forceinline__ static float apply(float x) { return gelu_erf(x); }
};

/// Threads per block of the elementwise kernels; 8 such blocks fill an SM's 2048 threads.
constexpr int kElementwiseBlock = 256;

/// x[i] = Act(x[i]) for i < count, as float4s (count4 = count / 4, x 16-byte aligned).
template <class Act>
__global__ void activation_inplace4(float4* __restrict__ x, long long count4) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count4;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    float4 v = x[i];
    v.x = Act::apply(v.x);
    v.y = Act::apply(v.y);
    v.z = Act::apply(v.z);
    v.w = Act::apply(v.w);
    x[i] = v;
  }
}

/// x[i] = Act(x[i]) for first <= i < count, one float at a time.
template <class Act>
__global__ void activation_inplace1(float* __restrict__ x, long long first, long long count) {
  for (long long i = first + blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
       i < count; i += static_cast<long long>(gridDim.x) * blockDim.x)
    x[i] = Act::apply(x[i]);
}

/// C[m][n] = Epi(C[m][n], bias[n]) for row-major M×N with N % 4 == 0, as float4s.
template <class Epi>
__global__ void bias_epilogue_inplace4(float4* __restrict__ c, const float4* __restrict__ bias,
                                       long long count4, int n4) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count4;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    float4 v = c[i];
    const float4 b = bias[i % n4];
    v.x = Epi::apply(v.x, b.x);
    v.y = Epi::apply(v.y, b.y);
    v.z = Epi::apply(v.z, b.z);
    v.w = Epi::apply(v.w, b.w);
    c[i] = v;
  }
}

/// C[m][n] = Epi(C[m][n], bias[n]) for row-major M×N, one float at a time (any N).
template <class Epi>
__global__ void bias_epilogue_inplace1(float* __restrict__ c, const float* __restrict__ bias,
                                       long long count, int n) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    c[i] = Epi::apply(c[i], bias[i % n]);
}

/// Blocks for a grid-stride pass over `items`: enough to fill every SM (`max_blocks`, the
/// caller's SM count times resident blocks) and no more than there is work for.
inline unsigned elementwise_blocks(long long items, int max_blocks) {
  long long needed = (items + kElementwiseBlock - 1) / kElementwiseBlock;
  if (needed < 1) needed = 1;
  return static_cast<unsigned>(needed < max_blocks ? needed : max_blocks);
}

inline bool aligned16(const void* p) { return (reinterpret_cast<unsigned long long>(p) & 15) == 0; }

/// C = Act(C) over `count` floats; float4 body plus a scalar tail. The caller checks
/// cudaGetLastError().
template <class Act>
void launch_activation_inplace(float* x, long long count, int max_blocks, cudaStream_t stream) {
  long long done = 0;
  if (aligned16(x) && count >= 4) {
    const long long count4 = count / 4;
    activation_inplace4<Act><<<elementwise_blocks(count4, max_blocks), kElementwiseBlock, 0, stream>>>(
        reinterpret_cast<float4*>(x), count4);
    done = count4 * 4;
  }
  if (done < count)
    activation_inplace1<Act><<<elementwise_blocks(count - done, max_blocks), kElementwiseBlock, 0, stream>>>(
        x, done, count);
}

/// C = Epi(C, bias[n]) over row-major M×N; float4s when N % 4 == 0 and both pointers are
/// 16-byte aligned. The caller checks cudaGetLastError().
template <class Epi>
void launch_bias_epilogue_inplace(float* c, const float* bias, int m, int n, int max_blocks,
                                  cudaStream_t stream) {
  const long long count = static_cast<long long>(m) * n;
  if (n % 4 == 0 && aligned16(c) && aligned16(bias)) {
    const long long count4 = count / 4;
    bias_epilogue_inplace4<Epi><<<elementwise_blocks(count4, max_blocks), kElementwiseBlock, 0, stream>>>(
        reinterpret_cast<float4*>(c), reinterpret_cast<const float4*>(bias), count4, n / 4);
  } else {
    bias_epilogue_inplace1<Epi><<<elementwise_blocks(count, max_blocks), kElementwiseBlock, 0, stream>>>(
        c, bias, count, n);
  }
}

}  // namespace coalesce
