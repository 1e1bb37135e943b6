// The winner unfused: a GEMM method followed by the separate bias+activation kernel that the
// `unfused` baseline runs after cuBLAS, so the database isolates what fusion itself buys.
#pragma once

#include "harness/method.hpp"
#include "harness/workspace.hpp"

namespace coalesce::tuner {

/// `gemm` (which must compute C = A·B, epilogue none) then one in-place kernel applying the
/// problem's bias and activation: method `coalesce_unfused`, judged against the problem's
/// epilogue, keeping gemm's family and config.
Method then_bias_epilogue(const Method& gemm, Workspace& ws);

}  // namespace coalesce::tuner
