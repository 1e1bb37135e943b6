// The `simt` family's host plug-in (kernels/core/family.hpp): its parameters, search space,
// rules (SimtConfig's), resources, geometry and emission.
#pragma once

#include "kernels/core/family.hpp"
#include "kernels/simt/config.hpp"

namespace coalesce {

/// The simt family, registered in kernels/families.cpp.
const Family& simt_family();

/// A generic config of the simt family as the kernel's struct, and back.
SimtConfig to_simt(const Config& config);
Config from_simt(const SimtConfig& config);

/// The values each simt parameter takes in a sweep (docs/tuner.md says why each list is what it
/// is). `vec` is not a list: every candidate copies the widest vector (4, 2 or 1 floats) the
/// problem allows, since a narrower copy of the same tile only issues more instructions.
struct SimtLists {
  std::vector<int> bm, bn, bk, wm, wn, tm, tn, stages, group_m, min_blocks;
  /// Block rows a sweep adds after `bm` for a problem whose M is at most the tile (issue 12).
  std::vector<int> small_m_bm;
};
const SimtLists& simt_lists();

/// The block rows a sweep at M takes: `bm`, then each of `small_m_bm` not below M.
std::vector<int> simt_sweep_bm(int m);

/// The index bits a problem's configs take: 64 where a matrix has 2^31 elements or more
/// (needs_64bit_offsets), else 32, so the common case keeps 32-bit offsets.
int simt_index_bits(const Problem& problem);

/// The widest vector copy (4, 2 or 1 floats) that SimtConfig::check_problem() accepts.
int simt_widest_vec(const Problem& problem);

}  // namespace coalesce
