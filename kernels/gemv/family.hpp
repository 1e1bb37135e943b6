// The `gemv` family's host plug-in (kernels/core/family.hpp): its parameters, search space,
// rules (GemvConfig's), resources, geometry and emission.
#pragma once

#include "kernels/core/family.hpp"
#include "kernels/gemv/config.hpp"

namespace coalesce {

/// The gemv family, registered in kernels/families.cpp.
const Family& gemv_family();

/// A generic config of the gemv family as the kernel's struct, and back.
GemvConfig to_gemv(const Config& config);
Config from_gemv(const GemvConfig& config);

/// The values each gemv parameter takes in a sweep (docs/kernels.md "gemv" says why). `vec_bytes`
/// is not a list: every candidate loads the widest vector (16, 8, 4 or 2 bytes) the problem allows;
/// `split` is 1 here and the tuner's space adds the split variants; `mr` is taken as
/// gemv_sweeps_mr() says for the problem's M.
struct GemvLists {
  std::vector<int> mr, warps, lanes, unroll;
};
const GemvLists& gemv_lists();

/// Whether a sweep at M takes `mr` rows per block: MR up to 8 at every M (as measured since
/// run 51), MR above 8 only where more than half of a block's rows are rows of C (M > MR / 2).
bool gemv_sweeps_mr(int mr, int m);

/// The widest load (16, 8, 4 or 2 bytes) that GemvConfig::check_problem() accepts for a row of B,
/// or 0 when none does (a problem refused whatever the width).
int gemv_widest_vec(const Problem& problem);

}  // namespace coalesce
