/* coalesce_runtime.h - the C ABI of the Coalesce runtime library (compiler/runtime/,
 * libcoalesce_runtime.a and libcoalesce_runtime.so).
 *
 * One entry runs a fused matmul C = epilogue(A B [+ bias]) of any dtype, epilogue and kernel
 * family on a stream and returns a status (coalesce_fused_matmul). coalesce-lower-to-library
 * turns coalesce ops into calls of the `_mlir_ciface_*` entries below (MLIR's
 * llvm.emit_c_interface lowering passes pointers to memref descriptors); those run on the
 * legacy default stream and, since MLIR's calls have no error channel, print one line naming
 * the entry point to stderr and exit with status 1 on a bad argument or a failing CUDA call.
 * Every buffer is in device memory, row-major with contiguous rows, 16-byte aligned
 * (coalesce_alloc_*, cudaMalloc and cudaMallocAsync give 256); coalesce_fused_matmul's A, B and
 * C may be row slices of wider matrices (strides[0] larger than the width, strides[1] 1), which
 * the launch copies through contiguous rows in its workspace. Calls enqueue work and return at
 * once: synchronize the stream before reading results on the host. Thread-safe.
 */
#ifndef COALESCE_RUNTIME_H
#define COALESCE_RUNTIME_H

#include <stdint.h>

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The GEMM's types (kernels/core/types.hpp): f32 everywhere; tf32 (f32 storage, TF32 tensor-core
 * math); bf16 and f16 (16-bit A, B, bias and C, f32 accumulation). */
typedef enum { COALESCE_F32 = 0, COALESCE_TF32 = 1, COALESCE_BF16 = 2, COALESCE_F16 = 3 } coalesce_dtype;

typedef enum {
  COALESCE_OK = 0,
  COALESCE_INVALID_ARGUMENT = 1, /* a descriptor, dtype, epilogue, config name or file the call cannot take */
  COALESCE_NO_CONFIG = 2,        /* no config is legal for the problem on this device */
  COALESCE_CUDA_ERROR = 3,       /* a CUDA call failed (no device, out of memory, a launch refused) */
  COALESCE_COMPILE_ERROR = 4     /* NVRTC could not compile the config's kernel */
} coalesce_status;

/* MLIR's ranked memref descriptor of any element type (StridedMemRefType<T, N>); `offset` and
 * `strides` count elements of the dtype's storage type. */
typedef struct {
  void* allocated;
  void* aligned;
  int64_t offset;
  int64_t sizes[2];
  int64_t strides[2];
} CoalesceMemRef2D;

typedef struct {
  void* allocated;
  void* aligned;
  int64_t offset;
  int64_t sizes[1];
  int64_t strides[1];
} CoalesceMemRef1D;

/* C = epilogue(A B [+ bias]) on `stream` (a cudaStream_t; NULL = the legacy default stream).
 * A is M x K, B K x N, C M x N and the bias N long, each in `dtype`'s storage type (f32 for f32
 * and tf32; bf16; f16). `epilogue` is a name of the epilogue registry (kernels/core/epilogues.hpp:
 * "none", "bias", "bias_relu", "bias_gelu", "bias_gelu_tanh", "bias_silu", "swiglu", "geglu";
 * "bias_gelu_residual" reads an M x N residual: coalesce_fused_matmul_residual); `bias` is given
 * exactly when the epilogue reads one. The gated "swiglu" and "geglu" take B's gate and up columns
 * interleaved (column 2j gate j, 2j+1 up j; N even) and write C M x N/2, act(gate) * up, with no
 * bias. `config` is a config name (config_name(), e.g.
 * "wgmma_bf16_..._bias_gelu", whose dtype and epilogue must be the call's), or NULL for the best
 * known config for this GPU and problem: the tuning table's (coalesce_load_tuning_table), else
 * the first of the families' built-in configs legal here. The kernel comes from a cubin
 * registered for the config (coalesce_register_cubin), else from one compiled into the library,
 * else from NVRTC through the on-disk kernel cache ($COALESCE_KERNEL_CACHE, else
 * $XDG_CACHE_HOME/coalesce/kernels or ~/.cache/coalesce/kernels) on first use. Workspace
 * (split-K's partial sums, stream-K's, counters) is taken from the device's stream-ordered pool
 * (cudaMallocAsync / cudaFreeAsync on `stream`). Never exits; on failure returns a status and
 * sets the thread's message (coalesce_last_error). M = 0 or N = 0 does nothing. */
coalesce_status coalesce_fused_matmul(const CoalesceMemRef2D* a, const CoalesceMemRef2D* b,
                                      const CoalesceMemRef1D* bias, const CoalesceMemRef2D* c,
                                      coalesce_dtype dtype, const char* epilogue, const char* config,
                                      void* stream);

/* coalesce_fused_matmul with an M x N `residual` of C's storage type (row-major, 16-byte
 * aligned, not C itself), given exactly when the epilogue reads one ("bias_gelu_residual":
 * C = residual + gelu(A B + bias)). Only kernel families whose kernels read a residual run such
 * an epilogue (gemv today: decode-sized M); for a problem none of them runs, the call returns
 * COALESCE_NO_CONFIG (config NULL) or COALESCE_INVALID_ARGUMENT (a named config) with the
 * families' reasons, and never falls back to an unfused sequence. */
coalesce_status coalesce_fused_matmul_residual(const CoalesceMemRef2D* a, const CoalesceMemRef2D* b,
                                               const CoalesceMemRef1D* bias, const CoalesceMemRef2D* residual,
                                               const CoalesceMemRef2D* c, coalesce_dtype dtype, const char* epilogue,
                                               const char* config, void* stream);

/* Makes the compiled kernel image (a cubin or fatbin of `bytes` bytes) of config name `config`
 * available, so that config runs without NVRTC. The image defines the extern "C" kernel named
 * `config`, as coalesce-translate emits it; `dtype` and `epilogue` must be the name's. The image
 * is copied; it is loaded on the config's first call (registering needs no device, so a
 * program's static initializers may call this). A second image for one name replaces the first
 * if that was never loaded, and is refused otherwise. */
coalesce_status coalesce_register_cubin(const char* config, coalesce_dtype dtype, const char* epilogue,
                                        const void* image, size_t bytes);

/* Reads the tuning table at `path` (the TSV `coalesce-report export` writes; its format is in
 * docs/compiler.md, "The tuning table") and makes it the table coalesce_fused_matmul consults
 * when `config` is NULL. A file that does not load leaves the previous table in force. */
coalesce_status coalesce_load_tuning_table(const char* path);

/* The calling thread's message of its last call to this API: "" after a success, else one
 * sentence saying what failed. Valid until the thread's next call. */
const char* coalesce_last_error(void);

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

/* Unfused ops. matmul: C = A B; bias_add: Y = X + bias[n]; relu, gelu (erf), gelu_tanh, silu:
 * Y = f(X); add: Y = X1 + X2; glu_silu, glu_gelu (erf): Y[m][j] = f(X[m][2j]) * X[m][2j+1], X
 * M x N with gate and up columns interleaved, Y M x N/2. Y may be X (either input of add), except
 * for glu. The matmul is coalesce_fused_matmul with the "none" epilogue and config NULL. */
void _mlir_ciface_coalesce_matmul_f32(const CoalesceMemRef2DF32* a, const CoalesceMemRef2DF32* b,
                                      const CoalesceMemRef2DF32* c);
void _mlir_ciface_coalesce_bias_add_f32(const CoalesceMemRef2DF32* x,
                                        const CoalesceMemRef1DF32* bias,
                                        const CoalesceMemRef2DF32* y);
void _mlir_ciface_coalesce_relu_f32(const CoalesceMemRef2DF32* x, const CoalesceMemRef2DF32* y);
void _mlir_ciface_coalesce_gelu_f32(const CoalesceMemRef2DF32* x, const CoalesceMemRef2DF32* y);
void _mlir_ciface_coalesce_gelu_tanh_f32(const CoalesceMemRef2DF32* x, const CoalesceMemRef2DF32* y);
void _mlir_ciface_coalesce_silu_f32(const CoalesceMemRef2DF32* x, const CoalesceMemRef2DF32* y);
void _mlir_ciface_coalesce_add_f32(const CoalesceMemRef2DF32* x1, const CoalesceMemRef2DF32* x2,
                                   const CoalesceMemRef2DF32* y);
void _mlir_ciface_coalesce_glu_silu_f32(const CoalesceMemRef2DF32* x, const CoalesceMemRef2DF32* y);
void _mlir_ciface_coalesce_glu_gelu_f32(const CoalesceMemRef2DF32* x, const CoalesceMemRef2DF32* y);

/* Fused matmuls without a tile config: coalesce_fused_matmul with config NULL on the legacy
 * default stream (the tuning table's config, else the first built-in config legal for the
 * shape on this device: simt's, kernels/simt/builtin.hpp, compiled into the library). Tiled
 * fused matmuls call `coalesce_fused_matmul_<config name>`, defined by the unit
 * coalesce-translate --mlir-to-cuda-host emits (fused_entry.cuh), which runs its kernel through
 * coalesce_fused_matmul too. */
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

/* The MLIR-facing entries of the other dtypes (compiler/runtime/mlir_entries.cpp), each a call
 * of coalesce_fused_matmul on the legacy default stream that, since MLIR calls have no error
 * channel, prints `coalesce runtime: <entry>: <coalesce_last_error()>` and exits with status 1
 * on failure. <dtype> is tf32, bf16 or f16 with every epilogue of the registry, and f32 with
 * those after bias_gelu (bias_gelu_tanh, bias_silu, bias_gelu_residual, swiglu, geglu; the f32
 * ones above take f32 descriptors). The operands are the epilogue's: a bias where it reads one,
 * then a residual where it reads one (coalesce_fused_matmul_residual).
 *   _mlir_ciface_coalesce_matmul_<dtype>(A, B, C)                  config NULL, epilogue none
 *   _mlir_ciface_coalesce_fused_matmul_<dtype>_<epilogue>(A, B, [bias,] [R,] C)   config NULL
 * and the allocator's 16-bit buffers, from the same pool as the f32 ones:
 *   _mlir_ciface_coalesce_{alloc,free}_{1,2}d_{bf16,f16}
 * A tiled fused matmul's entry `_mlir_ciface_coalesce_fused_matmul_<config name>` is defined by
 * the unit coalesce-translate --mlir-to-cuda-host emits (mlir_entry.h), which also registers
 * the configs' cubins at load time. */

#ifdef __cplusplus
}
#endif

#endif /* COALESCE_RUNTIME_H */
