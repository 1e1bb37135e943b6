// Rung 3: register-tiled GEMM. 16×16 threads compute a 64×64 tile of C, each thread a 4×4
// sub-tile held in registers, walking K in slices of 16 through shared memory. Per k a thread
// loads 4 values of A and 4 of B from shared memory and does 16 FMAs: four times the arithmetic
// per shared-memory load of the tiled rung.
//
// Thread (ty, tx) owns rows ty + 16·i and columns tx + 16·j (i, j < 4), strided rather than
// contiguous, so that for each j the 16 threads of a half-warp read 16 consecutive floats of the
// B slice (no bank conflict) and store 16 consecutive floats of C (coalesced).
#pragma once

#include <cuda_runtime.h>

#include "common.cuh"

namespace coalesce {

/// Block tile 64×64, K slice 16, 16×16 threads with 4×4 outputs each.
constexpr int kReg4x4Tile = 64;
constexpr int kReg4x4Slice = 16;
constexpr int kReg4x4Threads = 16;
constexpr int kReg4x4PerThread = kReg4x4Tile / kReg4x4Threads;  // 4

/// C tile at (blockIdx.y, blockIdx.x); loads outside A or B are zero-filled and stores outside C
/// are skipped, so any M, N, K is computed.
template <class Epi>
__global__ void __launch_bounds__(kReg4x4Threads * kReg4x4Threads)
    gemm_reg4x4(const float* __restrict__ A, const float* __restrict__ B,
                const float* __restrict__ bias, float* __restrict__ C, int M, int N, int K) {
  constexpr int T = kReg4x4Tile, S = kReg4x4Slice, R = kReg4x4PerThread;
  constexpr int kThreads = kReg4x4Threads * kReg4x4Threads;
  static_assert((T * S) % kThreads == 0, "the block's threads must split each slice evenly");
  __shared__ float As[T][S];  // As[row][k]: a warp reads two rows (two broadcasts)
  __shared__ float Bs[S][T];  // Bs[k][col]: a half-warp reads 16 consecutive columns
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int t = ty * kReg4x4Threads + tx;
  const int m0 = blockIdx.y * T, n0 = blockIdx.x * T;
  float acc[R][R] = {};
  for (int k0 = 0; k0 < K; k0 += S) {
    // Each thread copies (T·S)/kThreads elements of each slice; consecutive t take consecutive
    // addresses along the slice's row, so the global reads coalesce.
#pragma unroll
    for (int r = 0; r < (T * S) / kThreads; ++r) {
      const int e = t + r * kThreads;
      const int am = e / S, ak = e % S;
      As[am][ak] = (m0 + am < M && k0 + ak < K)
                       ? A[static_cast<long long>(m0 + am) * K + k0 + ak] : 0.0f;
      const int bk = e / T, bn = e % T;
      Bs[bk][bn] = (k0 + bk < K && n0 + bn < N)
                       ? B[static_cast<long long>(k0 + bk) * N + n0 + bn] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < S; ++k) {
      float a[R], b[R];
#pragma unroll
      for (int i = 0; i < R; ++i) a[i] = As[ty + kReg4x4Threads * i][k];
#pragma unroll
      for (int j = 0; j < R; ++j) b[j] = Bs[k][tx + kReg4x4Threads * j];
#pragma unroll
      for (int i = 0; i < R; ++i)
#pragma unroll
        for (int j = 0; j < R; ++j) acc[i][j] += a[i] * b[j];
    }
    __syncthreads();  // the next slice overwrites what slower warps may still be reading
  }
#pragma unroll
  for (int i = 0; i < R; ++i) {
    const int m = m0 + ty + kReg4x4Threads * i;
    if (m >= M) continue;
#pragma unroll
    for (int j = 0; j < R; ++j) {
      const int n = n0 + tx + kReg4x4Threads * j;
      if (n < N) C[static_cast<long long>(m) * N + n] = rung_epilogue<Epi>(acc[i][j], bias, n);
    }
  }
}

/// Launches gemm_reg4x4<Epi> on `stream`; the caller checks cudaGetLastError().
template <class Epi>
void launch_gemm_reg4x4(const float* A, const float* B, const float* bias, float* C, int M, int N,
                        int K, cudaStream_t stream) {
  const dim3 block(kReg4x4Threads, kReg4x4Threads);
  const dim3 grid((N + kReg4x4Tile - 1) / kReg4x4Tile, (M + kReg4x4Tile - 1) / kReg4x4Tile);
  gemm_reg4x4<Epi><<<grid, block, 0, stream>>>(A, B, bias, C, M, N, K);
}

}  // namespace coalesce
