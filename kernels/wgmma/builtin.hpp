// The wgmma configs that must work without tuning: the compiler's fallback for a bf16, f16 or
// tf32 fused op on sm_90a and the configs the GPU and NVRTC tests always build. Every one is legal
// for every problem the family takes (its problem rules do not depend on the tile).
//
// Plain C++17 with no MLIR: included by the compiler, the plug-in and the tests.
#pragma once

#include "kernels/wgmma/config.hpp"

namespace coalesce::wgmma_builtin {

/// In order of preference. 128x256 with two consumers (64 rows x 256 columns, 128 accumulators
/// each) is the tile the Hopper GEMMs this family follows settle on at large shapes, here with a
/// persistent grid so each block's epilogue overlaps its next tile's loads; then the same tile
/// launched one block per tile; a 128x128 tile with a 6-deep ring, storing C through TMA; and a
/// one-consumer 64x128 tile for shapes with few tiles.
//                                         bm   bn  bk  s  wg cm cn  p  g ts
inline constexpr WgmmaConfig kConfigs[] = {{128, 256, 64, 4, 2, 1, 1, 1, 8, 0},
                                           {128, 256, 64, 4, 2, 1, 1, 0, 8, 0},
                                           {128, 128, 64, 6, 2, 1, 1, 1, 8, 1},
                                           {64, 128, 64, 6, 1, 1, 1, 0, 8, 0}};
inline constexpr int kCount = sizeof(kConfigs) / sizeof(kConfigs[0]);

/// tf32 (BK = 32, the transposed tile): 128x256 with two consumers of 128 columns each (two m64
/// blocks of C^T, wgmma N = 128), persistent and not; 256x128 with two consumers of 64 columns
/// (wgmma N = 256); a one-consumer 128x128 tile for shapes with few tiles.
//                                             bm   bn  bk  s  wg cm cn  p  g ts
inline constexpr WgmmaConfig kTf32Configs[] = {{128, 256, 32, 4, 2, 1, 1, 1, 8, 0},
                                               {128, 256, 32, 4, 2, 1, 1, 0, 8, 0},
                                               {256, 128, 32, 4, 2, 1, 1, 1, 8, 0},
                                               {128, 128, 32, 6, 1, 1, 1, 0, 8, 0}};
inline constexpr int kTf32Count = sizeof(kTf32Configs) / sizeof(kTf32Configs[0]);

}  // namespace coalesce::wgmma_builtin
