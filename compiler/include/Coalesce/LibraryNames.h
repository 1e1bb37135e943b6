//===- LibraryNames.h - names of the runtime library's entry points ---------===//
// The one derivation of the extern "C" names coalesce-lower-to-library calls and the runtime
// library (compiler/runtime/) and CUDA emission define. The C ABI symbol of each is the name
// prefixed with `_mlir_ciface_` (MLIR's llvm.emit_c_interface convention).
#pragma once

#include <string>
#include <string_view>

#include "kernels/core/family.hpp"

namespace coalesce::compiler {

/// An unfused op's entry point: `coalesce_<op>_<dtype>`, e.g. `coalesce_bias_add_f32`;
/// `op` is the op's mnemonic (matmul, bias_add, relu, gelu, gelu_tanh, silu, add), a glu's with
/// its activation (`glu_silu`, `glu_gelu`).
std::string unfused_entry(std::string_view op, Dtype dtype);

/// A fused matmul without a tile config, which the runtime runs with the first legal built-in
/// config: `coalesce_fused_matmul_<dtype>_<epilogue>`, e.g. `coalesce_fused_matmul_f32_bias_gelu`.
std::string fused_entry(Dtype dtype, Epilogue epilogue);

/// A fused matmul with a tile config: `coalesce_fused_matmul_<config name>`. CUDA emission's
/// host variant defines it around the kernel named config_name(config, dtype, epilogue).
std::string fused_entry(const Config& config, Dtype dtype, Epilogue epilogue);

/// The device allocator's entry points for a buffer of `rank` (1 or 2):
/// `coalesce_alloc_<rank>d_<dtype>` and `coalesce_free_<rank>d_<dtype>`.
std::string alloc_entry(int rank, Dtype dtype);
std::string free_entry(int rank, Dtype dtype);

/// The prefix MLIR's C interface gives an entry point's symbol.
inline constexpr std::string_view kCInterfacePrefix = "_mlir_ciface_";

}  // namespace coalesce::compiler
