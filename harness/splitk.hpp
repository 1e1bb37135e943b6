// Split-K's second kernel for the harness and the tools: the reduce that adds a split GEMM's f32
// partial sums in slice order, applies the epilogue and stores C once (kernels/elementwise.cuh).
#pragma once

#include <cuda_runtime.h>

#include "kernels/core/problem.hpp"

namespace coalesce {

/// Enqueues C = Epi(sum over z < slices of partial[z·M·N + i], bias) for `problem` (its storage
/// type and epilogue; erf GELU) on `stream`, over a grid of at most `max_blocks` blocks; with
/// `programmatic`, as a programmatic dependent launch (kernels/elementwise.cuh; sm_90 and later).
/// Throws CudaError when the launch fails.
void launch_splitk_reduce(const Problem& problem, const float* partial, int slices, const void* bias, void* c,
                          int max_blocks, cudaStream_t stream, bool programmatic = false);

/// Whether the current device takes programmatic dependent launches (compute capability 9.0 or
/// later).
bool programmatic_launch_supported();

/// Blocks that fill the current device with elementwise work (its SMs times the 256-thread blocks
/// one SM holds): the grid cap of the reduce and of the baselines' elementwise kernels.
int elementwise_grid_cap();

}  // namespace coalesce
