// The simt configs the runtime library ships. The fallback of coalesce-apply-tile-config and the configs the runtime's generic entry
// points run with are one list, so a fused op without a tuned config computes with the same
// kernel whether it was tiled at compile time or picked at run time.
//
// Plain C++17 with no MLIR: included by the compiler and by the nvcc-compiled runtime.
#pragma once

#include "kernels/simt/config.hpp"

namespace coalesce::simt_builtin {

/// In order of preference: one block tile (coalesce::SimtConfig's defaults: 128x128x16, 8 warps
/// of 64x32, 8x8 per thread, a 3-stage pipeline, 2 blocks per SM) with the widest
/// global-to-shared copy the shape allows. The last one copies one float at a time, so it is
/// legal for every M, N, K.
inline constexpr SimtConfig kConfigs[] = {
    {128, 128, 16, 64, 32, 8, 8, 3, 4, 8, 2},
    {128, 128, 16, 64, 32, 8, 8, 3, 2, 8, 2},
    {128, 128, 16, 64, 32, 8, 8, 3, 1, 8, 2},
};
inline constexpr int kCount = sizeof(kConfigs) / sizeof(kConfigs[0]);

/// The index in kConfigs of the first config legal for an M x N x K problem on `limits`, or -1
/// (only when M, N or K is not positive, or the limits hold no config at all).
constexpr int first_legal(const DeviceLimits& limits, int m, int n, int k) {
  for (int i = 0; i < kCount; ++i)
    if (kConfigs[i].check(limits).ok() && kConfigs[i].check_problem(m, n, k).ok()) return i;
  return -1;
}

}  // namespace coalesce::simt_builtin
