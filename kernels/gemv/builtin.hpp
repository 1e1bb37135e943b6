// The gemv configs that must work without tuning: the compiler's fallback for a fused op the
// gemv family takes (M <= 64) when the tuning database has no measured config
// (Family::builtin_configs).
//
// Plain C++17 with no MLIR: included by the compiler and by nvcc-compiled code.
#pragma once

#include "kernels/gemv/config.hpp"

namespace coalesce::gemv_builtin {

/// In order of preference, both legal for every M <= 64 (more row groups in y above MR):
///   1. 4 rows of C per block, 8 warps, 16-byte loads by 8 lanes across a strip (4 rows of B
///      per warp load; 32 f32 or 64 bf16/f16 columns, 128 strips at N = 4096 in f32), 4 loads in
///      flight per thread;
///   2. 4-byte loads, for rows of B that are not a multiple of 16 bytes (any N in f32 and tf32,
///      any even N in bf16/f16), by all 32 lanes across a strip (128-byte row segments, whole
///      lines) with 8 loads in flight per thread;
///   3. the same with 2-byte loads, one bf16/f16 element each: an odd N in bf16/f16 (issue 39;
///      a vocabulary of 50257 columns at decode), 64-byte row segments.
inline constexpr GemvConfig kConfigs[] = {
    {4, 8, 16, 8, 4},
    {4, 8, 4, 32, 8},
    {4, 8, 2, 32, 8},
};
inline constexpr int kCount = sizeof(kConfigs) / sizeof(kConfigs[0]);

}  // namespace coalesce::gemv_builtin
