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
  /// A C++ host unit (compiler/runtime/mlir_entry.h): for each config the extern "C" entry
  /// point coalesce-lower-to-library calls, which runs the config through the runtime's
  /// coalesce_fused_matmul; the runtime compiles the kernel with NVRTC at its first call.
  hostEntries,
  /// hostEntries plus each config's cubin, compiled during the translation by NVRTC through the
  /// tuner's JIT and registered with coalesce_register_cubin when the program loads.
  hostEntriesAndCubins,
};

/// Writes one translation unit for the distinct (config, dtype, epilogue) of the tiled
/// coalesce.fused_matmul ops under `root`: CUDA instantiating each config's family template
/// once, or the host unit (any family, any dtype). Fails, with an error on the op, for a fused
/// matmul without a tile or a kernel NVRTC does not compile, and when there is no fused matmul.
LogicalResult translateToCuda(Operation* root, llvm::raw_ostream& os, CudaEmission emission);

/// Registers the translations `--mlir-to-cuda`, `--mlir-to-cuda-host` and
/// `--mlir-to-cuda-host-entries` for mlirTranslateMain.
void registerCudaTranslations();

}  // namespace mlir::coalesce
