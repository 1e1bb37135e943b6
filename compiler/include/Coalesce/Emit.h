//===- Emit.h - CUDA emission as a library call (the tuner's entry) ---------===//
// For one problem and one simt config, builds the coalesce IR (matmul -> bias_add -> relu/gelu
// per epilogue, static shapes), runs coalesce-fuse-epilogue and coalesce-apply-tile-config
// with the config, and emits the CUDA translation unit of the one fused kernel. No MLIR types
// in this header: the tuner includes it as plain C++ (link the CMake target CoalesceEmit).
#pragma once

#include <string>

#include "kernels/names.hpp"

namespace coalesce::compiler {

/// One kernel's CUDA C++ translation unit and the extern "C" symbol it exports.
struct EmittedKernel {
  std::string symbol;  ///< config_name(config, problem.dtype, problem.epilogue)
  std::string source;  ///< `#include "kernels/simt_gemm.cuh"` + COALESCE_DEFINE_SIMT_KERNEL(...)
};

/// Emits the fused kernel of `problem` with `config`. The config is checked by the fused op's
/// verifier (SimtConfig::check against the H200's limits, check_problem(M, N, K)); a config or
/// problem the pipeline refuses throws std::runtime_error with the compiler's diagnostic.
/// Thread-safe: each call owns its MLIR context.
EmittedKernel emit_fused_kernel(const Problem& problem, const SimtConfig& config);

}  // namespace coalesce::compiler
