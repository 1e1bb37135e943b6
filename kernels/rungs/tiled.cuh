// Rung 2: shared-memory tiled GEMM. A block of 32×32 threads computes a 32×32 tile of C; it
// walks K in 32-wide slices, each thread loading one element of the A slice and one of the B
// slice into shared memory, so every global element is read by one thread per block instead of
// 32. Each output still costs one shared-memory load of A and one of B per FMA, which bounds
// this rung by shared-memory bandwidth.
#pragma once

#include <cuda_runtime.h>

#include "common.cuh"

namespace coalesce {

/// The tile side: BM = BN = BK = 32, one thread per output of the tile.
constexpr int kTiledTile = 32;

/// C tile at (blockIdx.y, blockIdx.x); loads outside A or B are zero-filled and stores outside C
/// are skipped, so any M, N, K is computed.
template <class Epi>
__global__ void __launch_bounds__(kTiledTile * kTiledTile)
    gemm_tiled(const float* __restrict__ A, const float* __restrict__ B,
               const float* __restrict__ bias, float* __restrict__ C, int M, int N, int K) {
  // A warp is one row of the tile (fixed ty, tx = 0..31): As[ty][k] is a broadcast and
  // Bs[k][tx] hits 32 consecutive banks, so neither read conflicts.
  __shared__ float As[kTiledTile][kTiledTile];
  __shared__ float Bs[kTiledTile][kTiledTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int m = blockIdx.y * kTiledTile + ty;
  const int n = blockIdx.x * kTiledTile + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += kTiledTile) {
    As[ty][tx] = (m < M && k0 + tx < K) ? A[static_cast<long long>(m) * K + k0 + tx] : 0.0f;
    Bs[ty][tx] = (k0 + ty < K && n < N) ? B[static_cast<long long>(k0 + ty) * N + n] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kTiledTile; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();  // the next slice overwrites what slower warps may still be reading
  }
  if (m < M && n < N) C[static_cast<long long>(m) * N + n] = rung_epilogue<Epi>(acc, bias, n);
}

/// Launches gemm_tiled<Epi> on `stream`; the caller checks cudaGetLastError().
template <class Epi>
void launch_gemm_tiled(const float* A, const float* B, const float* bias, float* C, int M, int N,
                       int K, cudaStream_t stream) {
  const dim3 block(kTiledTile, kTiledTile);
  const dim3 grid((N + kTiledTile - 1) / kTiledTile, (M + kTiledTile - 1) / kTiledTile);
  gemm_tiled<Epi><<<grid, block, 0, stream>>>(A, B, bias, C, M, N, K);
}

}  // namespace coalesce
