// A simt kernel (compiled by nvcc from kernels/simt_gemm.cuh, or loaded from an NVRTC cubin) as
// a Method: its launch geometry comes from the config alone.
#pragma once

#include <cuda_runtime.h>

#include "kernels/names.hpp"
#include "kernels/simt_config.hpp"
#include "method.hpp"
#include "workspace.hpp"

namespace coalesce {

/// Grid, block and dynamic shared memory of a simt launch (CONTEXT: 1-D grid of
/// ceil(M/BM)·ceil(N/BN) blocks, config.threads() threads, config.smem_bytes()).
struct LaunchGeometry {
  dim3 grid, block;
  std::size_t smem_bytes = 0;
};
LaunchGeometry simt_geometry(const SimtConfig& config, int m, int n);

/// A Method launching `kernel` (signature (const float* A, const float* B, const float* bias,
/// float* C, int M, int N, int K); a __global__ function's address or CubinKernel::function())
/// on ws's buffers. Sets the kernel's dynamic shared-memory limit now. The kernel must stay
/// loaded while the Method is used. Throws std::invalid_argument when config.check() or
/// config.check_problem() refuses the problem (the caller records it as skipped).
Method simt_method(const SimtConfig& config, Epilogue epilogue, const void* kernel, Workspace& ws);

}  // namespace coalesce
