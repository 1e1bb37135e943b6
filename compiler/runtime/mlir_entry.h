// The MLIR-facing entry points of fused matmuls on the runtime's generic C ABI
// (coalesce_fused_matmul, coalesce_runtime.h): what coalesce-lower-to-library's calls reach.
// The unit coalesce-translate --mlir-to-cuda-host emits defines one entry per tiled config with
// these macros and registers the config's cubin, compiled at translate time, when the program
// loads; mlir_entries.cpp defines the untiled entries of tf32, bf16 and f16 the same way. Plain
// C++: the emitted unit needs no nvcc.
#pragma once

#include <string>

#include "compiler/runtime/coalesce_runtime.h"

namespace coalesce::runtime {

/// A cubin compiled ahead of time for one config, registered with coalesce_register_cubin when
/// the program loads (a static object of the emitted unit). A failed registration does not stop
/// the program there (a machine without a GPU must still start and say so); the config's entry
/// reports it at its first call instead of silently compiling the kernel at run time.
class AotCubin {
 public:
  AotCubin(const char* config, coalesce_dtype dtype, const char* epilogue, const void* image,
           size_t bytes);
  bool ok() const { return status_ == COALESCE_OK; }
  /// coalesce_last_error() of the registration ("" when it succeeded).
  const std::string& message() const { return message_; }

 private:
  coalesce_status status_;
  std::string message_;
};

/// C = epilogue(A·B [+ bias]) [+ residual] through coalesce_fused_matmul_residual on the legacy
/// default stream, with `config` (NULL: the runtime's best known config). MLIR calls have no
/// error channel, so a failure (or a failed registration of `aot`, when given) prints
/// `coalesce runtime: <entry>: <message>` to stderr and exits with status 1, as the f32 entries do.
void mlir_fused_matmul(const char* entry, const CoalesceMemRef2D* a, const CoalesceMemRef2D* b,
                       const CoalesceMemRef1D* bias, const CoalesceMemRef2D* residual, const CoalesceMemRef2D* c,
                       coalesce_dtype dtype, const char* epilogue, const char* config, const AotCubin* aot);

}  // namespace coalesce::runtime

// The entries' C signatures follow the fused op's operands, which are the registry row's reads
// (kernels/core/epilogues.hpp): A, B, a bias where it reads one, a residual where it reads one, C.

/// `_mlir_ciface_ENTRY(A, B, bias, C)`: config CONFIG (a string or NULL) of DTYPE and EPILOGUE;
/// AOT is the AotCubin registered for it, or NULL.
#define COALESCE_DEFINE_MLIR_FUSED_ENTRY(ENTRY, CONFIG, DTYPE, EPILOGUE, AOT)                     \
  extern "C" void _mlir_ciface_##ENTRY(const CoalesceMemRef2D* a, const CoalesceMemRef2D* b,    \
                                       const CoalesceMemRef1D* bias, const CoalesceMemRef2D* c) { \
    ::coalesce::runtime::mlir_fused_matmul(#ENTRY, a, b, bias, nullptr, c, DTYPE, EPILOGUE, CONFIG, AOT); \
  }

/// `_mlir_ciface_ENTRY(A, B, C)` for an epilogue that reads neither (none, the gated pair).
#define COALESCE_DEFINE_MLIR_FUSED_ENTRY_NO_BIAS(ENTRY, CONFIG, DTYPE, EPILOGUE, AOT)                    \
  extern "C" void _mlir_ciface_##ENTRY(const CoalesceMemRef2D* a, const CoalesceMemRef2D* b,           \
                                       const CoalesceMemRef2D* c) {                                     \
    ::coalesce::runtime::mlir_fused_matmul(#ENTRY, a, b, nullptr, nullptr, c, DTYPE, EPILOGUE, CONFIG, AOT); \
  }

/// `_mlir_ciface_ENTRY(A, B, bias, R, C)` for an epilogue that reads a bias and an M x N residual.
#define COALESCE_DEFINE_MLIR_FUSED_ENTRY_RESIDUAL(ENTRY, CONFIG, DTYPE, EPILOGUE, AOT)                    \
  extern "C" void _mlir_ciface_##ENTRY(const CoalesceMemRef2D* a, const CoalesceMemRef2D* b,            \
                                       const CoalesceMemRef1D* bias, const CoalesceMemRef2D* residual,  \
                                       const CoalesceMemRef2D* c) {                                      \
    ::coalesce::runtime::mlir_fused_matmul(#ENTRY, a, b, bias, residual, c, DTYPE, EPILOGUE, CONFIG, AOT); \
  }
