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
struct WgmmaLists {
  std::vector<int> bm, bn, bk, stages, consumers, cluster_m, cluster_n, persistent, group_m, tma_store, pingpong,
      epilogue_warps, stream_k;
};
const WgmmaLists& wgmma_lists();

}  // namespace coalesce
