// Programmatic dependent launch (sm_90 and later): how a split-K GEMM kernel and the reduce that
// the harness launches after it on the same stream (launch_splitk_reduce, kernels/elementwise.cuh,
// with programmatic stream serialization) overlap. Both calls are no-ops before sm_90 and in a
// grid launched without that attribute. Device-safe under nvcc and NVRTC.
#pragma once

namespace coalesce {

/// Called by the first grid, at its start: the grid launched after it with programmatic stream
/// serialization may be launched as soon as every block of this grid has called this or exited,
/// instead of when the last one exits, so that its launch (a few microseconds on the H200,
/// docs/results.md "The reduce launched early") runs under this grid's work. The later grid's
/// threads still wait in wait_for_previous_grid() for this grid to complete: only the launch moves,
/// no read does. One call per block is enough (PTX: repeated calls in a CTA have no further effect).
__device__ __forceinline__ void launch_next_grid_early() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/// Waits, in a kernel launched with programmatic stream serialization, until the grid before it
/// on the stream has completed and its writes are visible.
__device__ __forceinline__ void wait_for_previous_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

}  // namespace coalesce
