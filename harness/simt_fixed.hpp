// A small fixed set of hand-picked simt configs compiled by nvcc (library coalesce_simt_fixed),
// for coalesce-bench and the GPU tests; the tuner searches the full space through NVRTC instead.
#pragma once

#include <vector>

#include "kernels/core/problem.hpp"
#include "kernels/simt/config.hpp"

namespace coalesce {

/// One nvcc instantiation of kernels/simt/gemm.cuh's simt_gemm_kernel<Tile, Epi>.
struct FixedSimtKernel {
  SimtConfig config;
  Epilogue epilogue;
  const void* kernel;  ///< pass to kernel_method() with from_simt(config)
};

/// Every hand-picked config × every epilogue (none, bias, bias_relu, bias_gelu with erf GELU),
/// configs in the order they are listed in simt_fixed.cu.
const std::vector<FixedSimtKernel>& fixed_simt_kernels();

/// The distinct hand-picked configs, in order.
std::vector<SimtConfig> fixed_simt_configs();

/// The instantiation of `config` with `epilogue`; nullptr when it is not in the fixed set.
const void* find_fixed_simt_kernel(const SimtConfig& config, Epilogue epilogue);

}  // namespace coalesce
