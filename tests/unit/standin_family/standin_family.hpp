// A stand-in second kernel family for tests: a naive f32 GEMM with a fused epilogue, tiled by
// (bm, bn, threads). It lives in these two files only and is registered by the tests that use it
// (register_family), proving that a family plugs into the space, the sweep and the compiler's
// emission through kernels/core/family.hpp alone (docs/families.md).
#pragma once

#include "kernels/core/family.hpp"

namespace coalesce::testing {

/// The `stub` family (registered on first call).
const Family& standin_family();

}  // namespace coalesce::testing
