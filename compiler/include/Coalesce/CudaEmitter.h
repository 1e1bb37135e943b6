//===- CudaEmitter.h - coalesce IR to CUDA C++ ------------------------------===//
// The translation behind `coalesce-translate --mlir-to-cuda` and emit_fused_kernel().
#pragma once

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::coalesce {

/// What a translation unit contains besides the kernels.
enum class CudaEmission {
  /// Only the kernels: NVRTC-compilable, what the tuner compiles and loads.
  kernels,
  /// The kernels and, for each, the extern "C" host entry point coalesce-lower-to-library
  /// calls (compiler/runtime/fused_entry.cuh): compiled by nvcc and linked with the runtime.
  kernelsAndHostEntries,
};

/// Writes one CUDA translation unit instantiating each config's family template once for every
/// distinct (config, dtype, epilogue) of the tiled coalesce.fused_matmul ops under `root`.
/// Fails, with an error on the op, for a fused matmul without a tile (or, with host entries,
/// not in f32: the runtime library's ABI), and when there is no fused matmul at all.
LogicalResult translateToCuda(Operation* root, llvm::raw_ostream& os, CudaEmission emission);

/// Registers the translations `--mlir-to-cuda` and `--mlir-to-cuda-host` for mlirTranslateMain.
void registerCudaTranslations();

}  // namespace mlir::coalesce
