// The host entry point of a tiled fused matmul, as coalesce-translate --mlir-to-cuda-host emits
// it beside the kernel: the extern "C" function coalesce-lower-to-library calls. It registers the
// kernel (whose symbol is its config name) with the runtime and runs coalesce_fused_matmul with
// that config, so the launch (geometry, arguments, tensor maps, workspace, split-K's reduce) is
// the one launch contract's (harness/launch.hpp), whatever the family. The descriptors are
// untyped (the dtype is the config name's). nvcc only.
#pragma once

#include "compiler/runtime/coalesce_runtime.h"
#include "compiler/runtime/runtime_core.hpp"

/// `_mlir_ciface_ENTRY(A, B, bias, C)` running the kernel KERNEL (symbol = its config name). The
/// tile type (`...`) is the emitted unit's record of the config; the launch reads the name.
#define COALESCE_DEFINE_FUSED_ENTRY(ENTRY, KERNEL, ...)                                             \
  extern "C" void _mlir_ciface_##ENTRY(const CoalesceMemRef2D* a, const CoalesceMemRef2D* b,         \
                                       const CoalesceMemRef1D* bias, const CoalesceMemRef2D* c) {    \
    ::coalesce::runtime::run_emitted_entry(#ENTRY, #KERNEL, reinterpret_cast<const void*>(&KERNEL), a, b, \
                                           bias, c);                                                 \
  }

/// `_mlir_ciface_ENTRY(A, B, C)` for the empty epilogue, which takes no bias.
#define COALESCE_DEFINE_FUSED_ENTRY_NO_BIAS(ENTRY, KERNEL, ...)                                     \
  extern "C" void _mlir_ciface_##ENTRY(const CoalesceMemRef2D* a, const CoalesceMemRef2D* b,         \
                                       const CoalesceMemRef2D* c) {                                  \
    ::coalesce::runtime::run_emitted_entry(#ENTRY, #KERNEL, reinterpret_cast<const void*>(&KERNEL), a, b, \
                                           nullptr, c);                                              \
  }

/// The same for a split-K config (split = S > 1): the launch contract runs the kernel over S
/// slices with its workspace from the stream-ordered pool and the reduce that applies the
/// epilogue (EPILOGUE, also the config name's).
#define COALESCE_DEFINE_FUSED_SPLIT_K_ENTRY(ENTRY, KERNEL, EPILOGUE, ...) \
  COALESCE_DEFINE_FUSED_ENTRY(ENTRY, KERNEL, __VA_ARGS__)

/// The split-K entry with the empty epilogue.
#define COALESCE_DEFINE_FUSED_SPLIT_K_ENTRY_NO_BIAS(ENTRY, KERNEL, ...) \
  COALESCE_DEFINE_FUSED_ENTRY_NO_BIAS(ENTRY, KERNEL, __VA_ARGS__)
