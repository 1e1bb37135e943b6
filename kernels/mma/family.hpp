// The `mma` family's host plug-in (kernels/core/family.hpp): its parameters, search space,
// rules (MmaConfig's), resources, geometry and emission.
#pragma once

#include "kernels/core/family.hpp"
#include "kernels/mma/config.hpp"

namespace coalesce {

/// The mma family, registered in kernels/families.cpp.
const Family& mma_family();

/// A generic config of the mma family as the kernel's struct, and back.
MmaConfig to_mma(const Config& config);
Config from_mma(const MmaConfig& config);

/// The values each mma parameter takes in a sweep (docs/tuner.md says why each list is what it
/// is). `vec_bytes` is not a list: every candidate copies the widest vector (16, 8 or 4 bytes
/// by cp.async, 2 by a plain load) the problem allows, since a narrower copy of the same tile
/// only issues more instructions.
struct MmaLists {
  std::vector<int> bm, bn, bk_bytes, wm, wn, stages, swizzle, group_m, min_blocks;
};
const MmaLists& mma_lists();

/// The widest copy (16, 8, 4 or 2 bytes) that MmaConfig::check_problem() accepts for the
/// problem's rows: 2 only for an odd K or N in bf16/f16; 0 when none does (a problem refused
/// whatever the copy, e.g. a matrix past the kernel's indexing).
int mma_widest_vec(const Problem& problem);

}  // namespace coalesce
