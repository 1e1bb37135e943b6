// The `wgmma` family's host plug-in (kernels/core/family.hpp): its parameters, search space,
// rules (WgmmaConfig's), resources, geometry, tensor maps and emission.
#pragma once

#include "kernels/core/family.hpp"
#include "kernels/wgmma/config.hpp"

namespace coalesce {

/// The wgmma family, registered in kernels/families.cpp.
const Family& wgmma_family();

/// A generic config of the wgmma family as the kernel's struct, and back.
WgmmaConfig to_wgmma(const Config& config);
Config from_wgmma(const WgmmaConfig& config);

/// The values each wgmma parameter takes in a sweep (docs/kernels.md says why each list is what
/// it is); every combination is listed and WgmmaConfig's rule refuses the illegal ones.
/// `epilogue_warps` 1 lists a tile with epilogue_slots = BN / 64 (slots for the whole tile).
/// `deep_stages` are the rings listed only for problems of few tiles (wgmma_deep_rings), on the
/// tiles of `deep_bm` x `deep_bn`, each with every `deep_k_interleave` (two consumers taking
/// alternate K slices of the tile); and the swapped tiles (swap_ab: C^T = B^T A^T) of
/// `swapped_bm` rows by 64 columns per consumer with `swapped_stages`.
struct WgmmaLists {
  std::vector<int> bm, bn, bk, stages, consumers, cluster_m, cluster_n, persistent, group_m, tma_store, pingpong,
      epilogue_warps, stream_k, deep_stages, deep_bm, deep_bn, deep_k_interleave, swapped_bm, swapped_stages;
};
const WgmmaLists& wgmma_lists();

/// Problems of few tiles: at most WgmmaConfig::kDeepRingTiles tiles of 64 x 64 (N = K = 4096 with
/// M up to 256, 512^3, 1024^3). There a block is alone on its SM or nearly, its K loop waits on
/// memory rather than on the tensor cores, and the sweep also lists the deep rings.
bool wgmma_deep_rings(const Problem& problem);

}  // namespace coalesce
