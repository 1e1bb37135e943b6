// What the teaching rungs (gemm_naive, gemm_tiled, gemm_reg4x4) share: the fused epilogue at one
// output element. Device-safe under nvcc and NVRTC.
#pragma once

#include "kernels/core/epilogue.cuh"

namespace coalesce {

/// C[m][n] = Epi(acc, bias[n]); bias is not read at all when the epilogue has none (it may be
/// null then).
template <class Epi>
__device__ __forceinline__ float rung_epilogue(float acc, const float* __restrict__ bias, int n) {
  if constexpr (Epi::kUsesBias) {
    return Epi::apply(acc, bias[n]);
  } else {
    return Epi::apply(acc, 0.0f);
  }
}

}  // namespace coalesce
