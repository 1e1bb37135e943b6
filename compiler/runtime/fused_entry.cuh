// The host entry point of a tiled fused matmul, as coalesce-translate --mlir-to-cuda-host emits
// it beside the kernel: the extern "C" function coalesce-lower-to-library calls, launching the
// kernel defined by COALESCE_DEFINE_SIMT_KERNEL with its config's geometry. nvcc only.
#pragma once

#include "compiler/runtime/coalesce_runtime.h"
#include "kernels/simt_config.hpp"

namespace coalesce::runtime {

/// Checks the operands of C = epilogue(A B [+ bias]) (shapes, layout, alignment and
/// config.check_problem(M, N, K)), then launches `kernel`, a simt kernel instantiated with
/// `config`, on the legacy default stream. `bias` is null for the empty epilogue. `entry` names
/// the entry point in error messages.
void launch_simt(const void* kernel, const SimtConfig& config, const char* entry,
                 const CoalesceMemRef2DF32* a, const CoalesceMemRef2DF32* b,
                 const CoalesceMemRef1DF32* bias, const CoalesceMemRef2DF32* c);

}  // namespace coalesce::runtime

/// `_mlir_ciface_ENTRY(A, B, bias, C)` launching the kernel KERNEL of tile type `...`.
#define COALESCE_DEFINE_FUSED_ENTRY(ENTRY, KERNEL, ...)                                          \
  extern "C" void _mlir_ciface_##ENTRY(const CoalesceMemRef2DF32* a, const CoalesceMemRef2DF32* b, \
                                       const CoalesceMemRef1DF32* bias,                          \
                                       const CoalesceMemRef2DF32* c) {                           \
    ::coalesce::runtime::launch_simt(reinterpret_cast<const void*>(&KERNEL), __VA_ARGS__::config, \
                                     #ENTRY, a, b, bias, c);                                     \
  }

/// `_mlir_ciface_ENTRY(A, B, C)` for the empty epilogue, which takes no bias.
#define COALESCE_DEFINE_FUSED_ENTRY_NO_BIAS(ENTRY, KERNEL, ...)                                  \
  extern "C" void _mlir_ciface_##ENTRY(const CoalesceMemRef2DF32* a, const CoalesceMemRef2DF32* b, \
                                       const CoalesceMemRef2DF32* c) {                           \
    ::coalesce::runtime::launch_simt(reinterpret_cast<const void*>(&KERNEL), __VA_ARGS__::config, \
                                     #ENTRY, a, b, nullptr, c);                                  \
  }
