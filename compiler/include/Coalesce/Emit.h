//===- Emit.h - CUDA emission as a library call (the tuner's entry) ---------===//
// For one problem and one config of any family, builds the coalesce IR (matmul -> bias_add -> relu/gelu
// per epilogue, static shapes), runs coalesce-fuse-epilogue and coalesce-apply-tile-config
// with the config, and emits the CUDA translation unit of the one fused kernel. No MLIR types
// in this header: the tuner includes it as plain C++ (link the CMake target CoalesceEmit).
#pragma once

#include <string>

#include "kernels/core/family.hpp"

namespace coalesce::compiler {

/// One kernel's CUDA C++ translation unit and the extern "C" symbol it exports.
struct EmittedKernel {
  std::string symbol;  ///< config_name(config, problem.dtype, problem.epilogue)
  std::string source;  ///< the family's `#include` and its kernel definition (Family::define_kernel)
};

/// Emits the fused kernel of `problem` with `config` for `target` (the fused op's target
/// attribute). The config is checked by the fused op's verifier (the family's rules against the
/// target's limits and the problem); a config or problem the pipeline refuses throws
/// std::runtime_error with the compiler's diagnostic. Thread-safe: each call owns its MLIR
/// context.
EmittedKernel emit_fused_kernel(const Problem& problem, const Config& config, const Target& target);

}  // namespace coalesce::compiler
