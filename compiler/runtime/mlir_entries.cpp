// The MLIR-facing entries of tf32, bf16 and f16 (coalesce_runtime.h): the untiled fused matmuls
// and matmuls, each one call of coalesce_fused_matmul_residual with no config (the runtime's best
// known one), and the allocator's 16-bit buffers; f32's untiled fused matmuls of the epilogues
// since issue 40; plus mlir_entry.h's helpers, which the tiled entries of an emitted unit call.
// The other f32 entries are runtime.cu's.
#include "compiler/runtime/mlir_entry.h"

#include <cstdio>
#include <cstdlib>

namespace coalesce::runtime {

namespace {

[[noreturn]] void fail(const char* entry, const std::string& message) {
  std::fprintf(stderr, "coalesce runtime: %s: %s\n", entry, message.c_str());
  std::exit(1);
}

}  // namespace

AotCubin::AotCubin(const char* config, coalesce_dtype dtype, const char* epilogue, const void* image,
                   size_t bytes)
    : status_(coalesce_register_cubin(config, dtype, epilogue, image, bytes)) {
  if (status_ != COALESCE_OK)
    message_ = std::string("registering the ahead-of-time cubin of ") + config + " failed: " +
               coalesce_last_error();
}

void mlir_fused_matmul(const char* entry, const CoalesceMemRef2D* a, const CoalesceMemRef2D* b,
                       const CoalesceMemRef1D* bias, const CoalesceMemRef2D* residual, const CoalesceMemRef2D* c,
                       coalesce_dtype dtype, const char* epilogue, const char* config, const AotCubin* aot) {
  if (aot && !aot->ok()) fail(entry, aot->message());
  if (coalesce_fused_matmul_residual(a, b, bias, residual, c, dtype, epilogue, config, nullptr) != COALESCE_OK)
    fail(entry, coalesce_last_error());
}

}  // namespace coalesce::runtime

// Untiled: the runtime picks the config (its tuning table, else the families' built-ins). One
// entry per registry epilogue, its operands the row's reads (mlir_entry.h); tests/lit/
// lower-to-llvm.mlir lowers a fused op of every epilogue in every dtype and finds each symbol in
// the library.
#define COALESCE_UNTILED_BIAS_ENTRY(NAME, DTYPE, EPILOGUE) \
  COALESCE_DEFINE_MLIR_FUSED_ENTRY(coalesce_fused_matmul_##NAME##_##EPILOGUE, nullptr, DTYPE, #EPILOGUE, nullptr)
#define COALESCE_UNTILED_NO_BIAS_ENTRY(NAME, DTYPE, EPILOGUE)                                                  \
  COALESCE_DEFINE_MLIR_FUSED_ENTRY_NO_BIAS(coalesce_fused_matmul_##NAME##_##EPILOGUE, nullptr, DTYPE, #EPILOGUE, \
                                           nullptr)

// The epilogues since issue 40; runtime.cu defines f32's matmul and first four with f32 descriptors.
#define COALESCE_UNTILED_ISSUE_40_ENTRIES(NAME, DTYPE)                                                        \
  COALESCE_UNTILED_BIAS_ENTRY(NAME, DTYPE, bias_gelu_tanh)                                                    \
  COALESCE_UNTILED_BIAS_ENTRY(NAME, DTYPE, bias_silu)                                                         \
  COALESCE_DEFINE_MLIR_FUSED_ENTRY_RESIDUAL(coalesce_fused_matmul_##NAME##_bias_gelu_residual, nullptr, DTYPE, \
                                            "bias_gelu_residual", nullptr)                                    \
  COALESCE_UNTILED_NO_BIAS_ENTRY(NAME, DTYPE, swiglu)                                                         \
  COALESCE_UNTILED_NO_BIAS_ENTRY(NAME, DTYPE, geglu)

#define COALESCE_UNTILED_ENTRIES(NAME, DTYPE)                                                         \
  COALESCE_DEFINE_MLIR_FUSED_ENTRY_NO_BIAS(coalesce_matmul_##NAME, nullptr, DTYPE, "none", nullptr)   \
  COALESCE_UNTILED_NO_BIAS_ENTRY(NAME, DTYPE, none)                                                   \
  COALESCE_UNTILED_BIAS_ENTRY(NAME, DTYPE, bias)                                                      \
  COALESCE_UNTILED_BIAS_ENTRY(NAME, DTYPE, bias_relu)                                                 \
  COALESCE_UNTILED_BIAS_ENTRY(NAME, DTYPE, bias_gelu)                                                 \
  COALESCE_UNTILED_ISSUE_40_ENTRIES(NAME, DTYPE)

COALESCE_UNTILED_ISSUE_40_ENTRIES(f32, COALESCE_F32)
COALESCE_UNTILED_ENTRIES(tf32, COALESCE_TF32)
COALESCE_UNTILED_ENTRIES(bf16, COALESCE_BF16)
COALESCE_UNTILED_ENTRIES(f16, COALESCE_F16)

// 16-bit device buffers come from the f32 allocator (runtime.cu: cudaMallocAsync from the default
// pool, its checks and messages) as rows of enough floats for a row's halves, so every buffer
// shares one pool and each extent stays within the allocator's limits.
namespace {

int64_t floats_for(int64_t halves) { return (halves + 1) / 2; }

void alloc_16bit(CoalesceMemRef1D* result, int64_t n) {
  CoalesceMemRef1DF32 raw;
  _mlir_ciface_coalesce_alloc_1d_f32(&raw, floats_for(n));
  *result = {raw.allocated, raw.aligned, 0, {n}, {1}};
}

void alloc_16bit(CoalesceMemRef2D* result, int64_t rows, int64_t cols) {
  CoalesceMemRef2DF32 raw;
  _mlir_ciface_coalesce_alloc_2d_f32(&raw, rows, floats_for(cols));
  *result = {raw.allocated, raw.aligned, 0, {rows, cols}, {cols, 1}};
}

// The f32 allocator's free reads only the descriptor's allocated pointer.
void free_16bit(void* allocated) {
  float* data = static_cast<float*>(allocated);
  CoalesceMemRef1DF32 raw{data, data, 0, {0}, {1}};
  _mlir_ciface_coalesce_free_1d_f32(&raw);
}

}  // namespace

#define COALESCE_16BIT_ALLOCATOR(NAME)                                                              \
  extern "C" void _mlir_ciface_coalesce_alloc_1d_##NAME(CoalesceMemRef1D* result, int64_t n) {      \
    alloc_16bit(result, n);                                                                         \
  }                                                                                                 \
  extern "C" void _mlir_ciface_coalesce_alloc_2d_##NAME(CoalesceMemRef2D* result, int64_t rows,     \
                                                        int64_t cols) {                             \
    alloc_16bit(result, rows, cols);                                                                \
  }                                                                                                 \
  extern "C" void _mlir_ciface_coalesce_free_1d_##NAME(const CoalesceMemRef1D* buffer) {            \
    free_16bit(buffer ? buffer->allocated : nullptr);                                                \
  }                                                                                                 \
  extern "C" void _mlir_ciface_coalesce_free_2d_##NAME(const CoalesceMemRef2D* buffer) {            \
    free_16bit(buffer ? buffer->allocated : nullptr);                             \
  }

COALESCE_16BIT_ALLOCATOR(bf16)
COALESCE_16BIT_ALLOCATOR(f16)
