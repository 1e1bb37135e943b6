// Rung 1: naive GEMM, one thread per element of C, every operand read from global memory.
// C = Epi(A·B, bias), A M×K and B K×N row-major. threadIdx.x walks N so that a warp reads 32
// consecutive floats of B and writes 32 consecutive floats of C (coalesced); each A element is a
// broadcast within the warp. Every thread re-reads a whole row of A and column of B: 2·K loads
// per 2·K flops, so the rung is bound by L1/L2 bandwidth, not arithmetic.
#pragma once

#include <cuda_runtime.h>

#include "common.cuh"

namespace coalesce {

/// Threads per block of the naive rung: one warp across N, eight rows of M.
constexpr int kNaiveBlockX = 32;
constexpr int kNaiveBlockY = 8;

/// One thread computes C[m][n]; threads outside M×N do nothing (any M, N, K).
template <class Epi>
__global__ void __launch_bounds__(kNaiveBlockX * kNaiveBlockY)
    gemm_naive(const float* __restrict__ A, const float* __restrict__ B,
               const float* __restrict__ bias, float* __restrict__ C, int M, int N, int K) {
  const int n = blockIdx.x * kNaiveBlockX + threadIdx.x;
  const int m = blockIdx.y * kNaiveBlockY + threadIdx.y;
  if (m >= M || n >= N) return;
  const float* a_row = A + static_cast<long long>(m) * K;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += a_row[k] * B[static_cast<long long>(k) * N + n];
  C[static_cast<long long>(m) * N + n] = rung_epilogue<Epi>(acc, bias, n);
}

/// Launches gemm_naive<Epi> on `stream`; the caller checks cudaGetLastError().
template <class Epi>
void launch_gemm_naive(const float* A, const float* B, const float* bias, float* C, int M, int N,
                       int K, cudaStream_t stream) {
  const dim3 block(kNaiveBlockX, kNaiveBlockY);
  const dim3 grid((N + kNaiveBlockX - 1) / kNaiveBlockX, (M + kNaiveBlockY - 1) / kNaiveBlockY);
  gemm_naive<Epi><<<grid, block, 0, stream>>>(A, B, bias, C, M, N, K);
}

}  // namespace coalesce
