// The mma configs that must work without tuning: the compiler's fallback for a bf16, f16 or tf32
// fused op when the tuning database has no measured config (Family::builtin_configs).
//
// Plain C++17 with no MLIR: included by the compiler and by nvcc-compiled code.
#pragma once

#include "kernels/mma/config.hpp"

namespace coalesce::mma_builtin {

/// In order of preference:
///   1. 128×256 blocks of 8 warps of 64×64, 64-byte K slices in a 4-deep ring (98 KB), one block
///      per SM: the CUTLASS-style large tile that re-reads A and B from L2 least;
///   2. 128×128 blocks of 4 warps of 64×64, two blocks per SM: twice the blocks for problems
///      that give the first one too few to fill 132 SMs;
///   3. 64×64 blocks of 4 warps of 32×32: small problems;
///   4.–5. 128×128 blocks of 8 warps of 64×32 with 8- and 4-byte copies, for rows of A or B
///      that are not a multiple of 16 bytes (K or N not a multiple of 8 bf16/f16 or 4 tf32):
///      narrow copies are many (16 per thread and slice at 4 bytes), and their addresses need
///      the registers a 64×64 warp tile does not have. 4-byte copies take any even K and N in
///      bf16/f16 and any K and N in tf32;
///   6. the same tile with 2-byte plain loads (one bf16/f16 element each): an odd K or N in
///      bf16/f16 (issue 39), so that every shape has a built-in config in every dtype.
inline constexpr MmaConfig kConfigs[] = {
    {128, 256, 64, 64, 64, 4, 16, 1, 8, 1},
    {128, 128, 64, 64, 64, 4, 16, 1, 8, 2},
    {64, 64, 64, 32, 32, 4, 16, 1, 8, 4},
    {128, 128, 64, 64, 32, 4, 8, 1, 8, 1},
    {128, 128, 64, 64, 32, 4, 4, 1, 8, 1},
    {128, 128, 64, 64, 32, 4, 2, 1, 8, 1},
};
inline constexpr int kCount = sizeof(kConfigs) / sizeof(kConfigs[0]);

}  // namespace coalesce::mma_builtin
