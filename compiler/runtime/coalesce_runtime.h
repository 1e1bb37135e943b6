/* coalesce_runtime.h - the C ABI of the Coalesce runtime library (compiler/runtime/).
 *
 * coalesce-lower-to-library turns coalesce ops into calls of these entry points; MLIR's
 * llvm.emit_c_interface lowering calls them as `_mlir_ciface_<name>` with pointers to memref
 * descriptors. Every buffer is f32, row-major and contiguous, in device memory, 16-byte aligned
 * (coalesce_alloc_*, cudaMalloc and cudaMallocAsync give 256). Work is enqueued on the legacy
 * default stream and the calls return at once: synchronize before reading results on the host.
 * A call with a bad argument or a failing CUDA call prints one line naming the entry point to
 * stderr and exits with status 1, since MLIR's calls have no error channel.
 */
#ifndef COALESCE_RUNTIME_H
#define COALESCE_RUNTIME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* MLIR's descriptor of a ranked memref<...xf32> (StridedMemRefType<float, N>). */
typedef struct {
  float* allocated;
  float* aligned;
  int64_t offset;
  int64_t sizes[1];
  int64_t strides[1];
} CoalesceMemRef1DF32;

typedef struct {
  float* allocated;
  float* aligned;
  int64_t offset;
  int64_t sizes[2];
  int64_t strides[2];
} CoalesceMemRef2DF32;

/* Unfused ops. matmul: C = A B; bias_add: Y = X + bias[n]; relu/gelu (erf): Y = f(X).
 * Y may be X. The matmul runs the first built-in simt config legal for its shape. */
void _mlir_ciface_coalesce_matmul_f32(const CoalesceMemRef2DF32* a, const CoalesceMemRef2DF32* b,
                                      const CoalesceMemRef2DF32* c);
void _mlir_ciface_coalesce_bias_add_f32(const CoalesceMemRef2DF32* x,
                                        const CoalesceMemRef1DF32* bias,
                                        const CoalesceMemRef2DF32* y);
void _mlir_ciface_coalesce_relu_f32(const CoalesceMemRef2DF32* x, const CoalesceMemRef2DF32* y);
void _mlir_ciface_coalesce_gelu_f32(const CoalesceMemRef2DF32* x, const CoalesceMemRef2DF32* y);

/* Fused matmuls without a tile config: C = epilogue(A B [+ bias]) with the first built-in simt
 * config (kernels/simt/builtin.hpp) legal for the shape on this device. Tiled fused matmuls
 * call `coalesce_fused_matmul_<config name>`, defined by the unit coalesce-translate
 * --mlir-to-cuda-host emits (fused_entry.cuh); a split-K config's entry also takes its S x M x N
 * floats of partial sums from the allocator's pool below, stream-ordered (freed after its reduce). */
void _mlir_ciface_coalesce_fused_matmul_f32_none(const CoalesceMemRef2DF32* a,
                                                 const CoalesceMemRef2DF32* b,
                                                 const CoalesceMemRef2DF32* c);
void _mlir_ciface_coalesce_fused_matmul_f32_bias(const CoalesceMemRef2DF32* a,
                                                 const CoalesceMemRef2DF32* b,
                                                 const CoalesceMemRef1DF32* bias,
                                                 const CoalesceMemRef2DF32* c);
void _mlir_ciface_coalesce_fused_matmul_f32_bias_relu(const CoalesceMemRef2DF32* a,
                                                      const CoalesceMemRef2DF32* b,
                                                      const CoalesceMemRef1DF32* bias,
                                                      const CoalesceMemRef2DF32* c);
void _mlir_ciface_coalesce_fused_matmul_f32_bias_gelu(const CoalesceMemRef2DF32* a,
                                                      const CoalesceMemRef2DF32* b,
                                                      const CoalesceMemRef1DF32* bias,
                                                      const CoalesceMemRef2DF32* c);

/* Device buffers of the buffers coalesce-lower-to-library moved off the host: stream-ordered
 * (cudaMallocAsync) from the device's default pool, which keeps freed memory for reuse, so a
 * temporary allocated on every call costs no cudaMalloc after the first. */
void _mlir_ciface_coalesce_alloc_1d_f32(CoalesceMemRef1DF32* result, int64_t n);
void _mlir_ciface_coalesce_alloc_2d_f32(CoalesceMemRef2DF32* result, int64_t rows, int64_t cols);
void _mlir_ciface_coalesce_free_1d_f32(const CoalesceMemRef1DF32* buffer);
void _mlir_ciface_coalesce_free_2d_f32(const CoalesceMemRef2DF32* buffer);

#ifdef __cplusplus
}
#endif

#endif /* COALESCE_RUNTIME_H */
