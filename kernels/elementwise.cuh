// The elementwise kernels the baselines run after a cuBLAS GEMM, in the dtype's storage type T
// (f32, bf16 or f16; math in f32, one rounding per store): a bias add, an activation alone (what
// PyTorch eager launches for `gelu(x @ w + b)`: GEMM, add, GELU) and one fused bias+activation
// pass (the best unfused pair). All work in place on row-major C (M×N), use a grid-stride loop,
// and move 16 bytes per access when every row starts 16-byte aligned. Beside them, split-K's
// reduce: the S f32 partial sums of a split GEMM added in slice order, the epilogue applied
// once, C stored once. nvcc only (host launchers).
#pragma once

#include <cuda_runtime.h>

#include "kernels/core/epilogue.cuh"
#include "kernels/core/numeric.cuh"

namespace coalesce {

/// Threads per block of the elementwise kernels; 8 such blocks fill an SM's 2048 threads.
constexpr int kElementwiseBlock = 256;

/// 16 bytes of T, moved as one access.
template <class T>
struct alignas(16) Vec16 {
  static constexpr int kCount = 16 / static_cast<int>(sizeof(T));
  T v[kCount];
};

/// x[i] = Act(x[i]) over `count` 16-byte vectors.
template <class T, class Act>
__global__ void activation_inplace_vec(Vec16<T>* __restrict__ x, long long count) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    Vec16<T> v = x[i];
#pragma unroll
    for (int j = 0; j < Vec16<T>::kCount; ++j) v.v[j] = from_float<T>(Act::apply(to_float(v.v[j])));
    x[i] = v;
  }
}

/// x[i] = Act(x[i]) for first <= i < count, one element at a time.
template <class T, class Act>
__global__ void activation_inplace1(T* __restrict__ x, long long first, long long count) {
  for (long long i = first + blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    x[i] = from_float<T>(Act::apply(to_float(x[i])));
}

/// C[m][n] = Epi(C[m][n], bias[n]) for row-major M×N whose rows are whole 16-byte vectors
/// (`n_vec` of them per row), over `count` vectors.
template <class T, class Epi>
__global__ void bias_epilogue_inplace_vec(Vec16<T>* __restrict__ c, const Vec16<T>* __restrict__ bias,
                                          long long count, int n_vec) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    Vec16<T> v = c[i];
    const Vec16<T> b = bias[i % n_vec];
#pragma unroll
    for (int j = 0; j < Vec16<T>::kCount; ++j) v.v[j] = from_float<T>(Epi::apply(to_float(v.v[j]), to_float(b.v[j])));
    c[i] = v;
  }
}

/// C[m][n] = Epi(C[m][n], bias[n]) for row-major M×N, one element at a time (any N).
template <class T, class Epi>
__global__ void bias_epilogue_inplace1(T* __restrict__ c, const T* __restrict__ bias, long long count, int n) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    c[i] = from_float<T>(Epi::apply(to_float(c[i]), to_float(bias[i % n])));
}

/// Waits, in a kernel launched with programmatic stream serialization (launch_splitk_reduce's
/// `programmatic`), until the grid before it on the stream has completed and its writes are
/// visible; a no-op in a kernel launched without it, and before sm_90.
__device__ __forceinline__ void wait_for_previous_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/// Split-K's reduce (docs/families.md "Split-K"), 16 bytes of C per step: C[m][n] = Epi(sum over
/// z = 0..slices-1 of partial[z][m][n], bias[n]), the sum in slice order (deterministic), for
/// row-major M×N whose rows are whole Vec16<T> (`n_vec` per row), `count` vectors in all.
template <class T, class Epi>
__global__ void splitk_reduce_vec(const float* __restrict__ partial, int slices, long long slice_stride,
                                  const Vec16<T>* __restrict__ bias, Vec16<T>* __restrict__ c, long long count,
                                  int n_vec) {
  constexpr int kPer = Vec16<T>::kCount;
  wait_for_previous_grid();
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    float acc[kPer];
    const float4* p = reinterpret_cast<const float4*>(partial + i * kPer);
#pragma unroll
    for (int q = 0; q < kPer / 4; ++q) {
      const float4 v = p[q];
      acc[4 * q + 0] = v.x;
      acc[4 * q + 1] = v.y;
      acc[4 * q + 2] = v.z;
      acc[4 * q + 3] = v.w;
    }
    for (int z = 1; z < slices; ++z) {
      p = reinterpret_cast<const float4*>(partial + z * slice_stride + i * kPer);
#pragma unroll
      for (int q = 0; q < kPer / 4; ++q) {
        const float4 v = p[q];
        acc[4 * q + 0] += v.x;
        acc[4 * q + 1] += v.y;
        acc[4 * q + 2] += v.z;
        acc[4 * q + 3] += v.w;
      }
    }
    Vec16<T> out;
    if (Epi::kUsesBias) {
      const Vec16<T> b = bias[i % n_vec];
#pragma unroll
      for (int j = 0; j < kPer; ++j) out.v[j] = from_float<T>(Epi::apply(acc[j], to_float(b.v[j])));
    } else {
#pragma unroll
      for (int j = 0; j < kPer; ++j) out.v[j] = from_float<T>(Epi::apply(acc[j], 0.0f));
    }
    c[i] = out;
  }
}

/// Split-K's reduce one element at a time (any N).
template <class T, class Epi>
__global__ void splitk_reduce1(const float* __restrict__ partial, int slices, long long slice_stride,
                               const T* __restrict__ bias, T* __restrict__ c, long long count, int n) {
  wait_for_previous_grid();
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    float acc = partial[i];
    for (int z = 1; z < slices; ++z) acc += partial[z * slice_stride + i];
    c[i] = from_float<T>(Epi::apply(acc, Epi::kUsesBias ? to_float(bias[i % n]) : 0.0f));
  }
}

/// Split-K's reduce of a gated epilogue (EpilogueReads::gated): C[i] = Epi::gate(g, u) of the
/// slice-ordered sums g, u of partials 2i and 2i+1 (row-major M×N: output (m, j) of the M×N/2
/// C is pair i = m·N/2 + j, its gate and up columns 2j and 2j+1), `pairs` = M·N/2 of them.
template <class T, class Epi>
__global__ void splitk_reduce_gated(const float* __restrict__ partial, int slices, long long slice_stride,
                                    T* __restrict__ c, long long pairs) {
  wait_for_previous_grid();
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < pairs;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    float2 acc = reinterpret_cast<const float2*>(partial)[i];
    for (int z = 1; z < slices; ++z) {
      const float2 v = reinterpret_cast<const float2*>(partial + z * slice_stride)[i];
      acc.x += v.x;
      acc.y += v.y;
    }
    c[i] = from_float<T>(Epi::gate(acc.x, acc.y));
  }
}

/// The framework's second kernel of a gated MLP over the merged GEMM's output (vLLM's
/// SiluAndMul, a torch.compile'd `act(h[:, 0::2]) * h[:, 1::2]`): C[i] = Epi::gate(h[2i], h[2i+1])
/// in f32, rounded once, reading the M×N product h (gate and up interleaved) and writing the M×N/2
/// C, `pairs` = M·N/2 outputs.
template <class T, class Epi>
__global__ void gated_act_mul(const T* __restrict__ h, T* __restrict__ c, long long pairs) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < pairs;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    c[i] = from_float<T>(Epi::gate(to_float(h[2 * i]), to_float(h[2 * i + 1])));
}

/// Blocks for a grid-stride pass over `items`: enough to fill every SM (`max_blocks`, the
/// caller's SM count times resident blocks) and no more than there is work for.
inline unsigned elementwise_blocks(long long items, int max_blocks) {
  long long needed = (items + kElementwiseBlock - 1) / kElementwiseBlock;
  if (needed < 1) needed = 1;
  return static_cast<unsigned>(needed < max_blocks ? needed : max_blocks);
}

inline bool aligned16(const void* p) { return (reinterpret_cast<unsigned long long>(p) & 15) == 0; }

/// x = Act(x) over `count` elements; 16-byte body plus a scalar tail. The caller checks
/// cudaGetLastError().
template <class T, class Act>
void launch_activation_inplace(T* x, long long count, int max_blocks, cudaStream_t stream) {
  constexpr int kPer = Vec16<T>::kCount;
  long long done = 0;
  if (aligned16(x) && count >= kPer) {
    const long long vecs = count / kPer;
    activation_inplace_vec<T, Act><<<elementwise_blocks(vecs, max_blocks), kElementwiseBlock, 0, stream>>>(
        reinterpret_cast<Vec16<T>*>(x), vecs);
    done = vecs * kPer;
  }
  if (done < count)
    activation_inplace1<T, Act><<<elementwise_blocks(count - done, max_blocks), kElementwiseBlock, 0, stream>>>(
        x, done, count);
}

/// C = Epi::gate over the M×N/2 pairs of the M×N product h (gated_act_mul). The caller checks
/// cudaGetLastError().
template <class T, class Epi>
void launch_gated_act_mul(const T* h, T* c, int m, int n, int max_blocks, cudaStream_t stream) {
  const long long pairs = static_cast<long long>(m) * (n / 2);
  gated_act_mul<T, Epi><<<elementwise_blocks(pairs, max_blocks), kElementwiseBlock, 0, stream>>>(h, c, pairs);
}

/// C = Epi(C, bias[n]) over row-major M×N; 16-byte vectors when a row is a whole number of
/// them and both pointers are 16-byte aligned. The caller checks cudaGetLastError().
template <class T, class Epi>
void launch_bias_epilogue_inplace(T* c, const T* bias, int m, int n, int max_blocks, cudaStream_t stream) {
  constexpr int kPer = Vec16<T>::kCount;
  const long long count = static_cast<long long>(m) * n;
  if (n % kPer == 0 && aligned16(c) && aligned16(bias)) {
    const long long vecs = count / kPer;
    bias_epilogue_inplace_vec<T, Epi><<<elementwise_blocks(vecs, max_blocks), kElementwiseBlock, 0, stream>>>(
        reinterpret_cast<Vec16<T>*>(c), reinterpret_cast<const Vec16<T>*>(bias), vecs, n / kPer);
  } else {
    bias_epilogue_inplace1<T, Epi><<<elementwise_blocks(count, max_blocks), kElementwiseBlock, 0, stream>>>(
        c, bias, count, n);
  }
}

/// C = Epi(sum of the `slices` partials of M×N floats, bias[n]); 16-byte vectors of C when a
/// row is a whole number of them and the pointers are 16-byte aligned. A gated Epi writes the
/// M×N/2 C of its pairs (splitk_reduce_gated). With `programmatic`
/// (sm_90 and later: Programmatic Dependent Launch), the reduce is launched with programmatic
/// stream serialization: the GPU may start launching it while the GEMM's last blocks finish,
/// and each of its threads waits (griddepcontrol.wait) until the GEMM has completed and its
/// partials are visible, so the result is the same and the launch gap between the two kernels
/// shrinks. The caller checks cudaGetLastError().
template <class T, class Epi>
void launch_splitk_reduce(const float* partial, int slices, const T* bias, T* c, int m, int n, int max_blocks,
                          cudaStream_t stream, bool programmatic = false) {
  constexpr int kPer = Vec16<T>::kCount;
  const long long count = static_cast<long long>(m) * n;
  cudaLaunchConfig_t launch{};
  launch.blockDim = dim3(kElementwiseBlock);
  launch.stream = stream;
  cudaLaunchAttribute serialization{};
  serialization.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  serialization.val.programmaticStreamSerializationAllowed = 1;
  launch.attrs = &serialization;
  launch.numAttrs = programmatic ? 1 : 0;
  if constexpr (Epi::kGated) {
    const long long pairs = count / 2;
    launch.gridDim = dim3(elementwise_blocks(pairs, max_blocks));
    cudaLaunchKernelEx(&launch, splitk_reduce_gated<T, Epi>, partial, slices, count, c, pairs);
  } else if (n % kPer == 0 && aligned16(c) && aligned16(partial) && (!Epi::kUsesBias || aligned16(bias))) {
    const long long vecs = count / kPer;
    launch.gridDim = dim3(elementwise_blocks(vecs, max_blocks));
    cudaLaunchKernelEx(&launch, splitk_reduce_vec<T, Epi>, partial, slices, count,
                       reinterpret_cast<const Vec16<T>*>(bias), reinterpret_cast<Vec16<T>*>(c), vecs, n / kPer);
  } else {
    launch.gridDim = dim3(elementwise_blocks(count, max_blocks));
    cudaLaunchKernelEx(&launch, splitk_reduce1<T, Epi>, partial, slices, count, bias, c, count, n);
  }
}

}  // namespace coalesce
