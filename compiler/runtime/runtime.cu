// The Coalesce runtime library's nvcc-compiled part (coalesce_runtime.h): the f32 entries
// coalesce-lower-to-library calls (the fused and matmul ones through coalesce_fused_matmul,
// fused_matmul.cpp; the elementwise ones, glu's act-and-multiply included, as grid-stride
// kernels), the simt built-in kernels compiled in (kernels/simt/builtin.hpp), the descriptor
// checks every entry shares, and the device allocator.
#include <cuda_runtime.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <utility>

#include "compiler/runtime/coalesce_runtime.h"
#include "compiler/runtime/runtime_core.hpp"
#include "harness/cuda_check.hpp"
#include "kernels/core/epilogue.cuh"
#include "kernels/core/family.hpp"
#include "kernels/core/problem.hpp"
#include "kernels/elementwise.cuh"
#include "kernels/simt/builtin.hpp"
#include "kernels/simt/gemm.cuh"

namespace coalesce::runtime {

namespace {

[[noreturn]] void fail(const char* entry, const std::string& why) {
  std::fprintf(stderr, "coalesce runtime: %s: %s\n", entry, why.c_str());
  std::exit(1);
}

void check_cuda(cudaError_t status, const char* entry, const char* call) {
  if (status != cudaSuccess)
    fail(entry, std::string(call) + " failed: " + cudaGetErrorString(status));
}

std::string shape(long long rows, long long cols) {
  return std::to_string(rows) + "x" + std::to_string(cols);
}

Refusal invalid(const std::string& why) { return Refusal(COALESCE_INVALID_ARGUMENT, why); }

}  // namespace

// The kernels take extents as int, compute grid sizes and element offsets (`row * N`) in int,
// and read rows with 16-byte vectors: each extent at most kMaxExtent and each operand at most
// INT_MAX elements (the compiler's verifier applies the same limits, CoalesceOps.h), rows
// contiguous, the data 16-byte aligned.
Matrix matrix(const char* name, const CoalesceMemRef2D* d, int element_bytes, bool strided_rows) {
  if (!d) throw invalid(std::string(name) + " is a null descriptor");
  const long long rows = d->sizes[0], cols = d->sizes[1];
  if (rows < 0 || cols < 0 || rows > kMaxExtent || cols > kMaxExtent)
    throw invalid(std::string(name) + " has extents " + shape(rows, cols) + " outside 0.." +
                  std::to_string(kMaxExtent));
  if (rows * cols > INT_MAX)
    throw invalid(std::string(name) + " is " + shape(rows, cols) + ", more than INT_MAX elements");
  const bool rows_apart = strided_rows ? d->strides[0] < cols : d->strides[0] != cols;
  if ((rows > 1 && rows_apart) || (cols > 1 && d->strides[1] != 1))
    throw invalid(std::string(name) + (strided_rows ? " does not have contiguous rows (strides " : " is not row-major contiguous (strides ") +
                  std::to_string(d->strides[0]) + ", " + std::to_string(d->strides[1]) + ")");
  if (rows * cols > 0 && !d->aligned) throw invalid(std::string(name) + " has a null data pointer");
  char* data = static_cast<char*>(d->aligned) + d->offset * element_bytes;
  if (rows * cols > 0 && reinterpret_cast<std::uintptr_t>(data) % 16 != 0)
    throw invalid(std::string(name) + " is not 16-byte aligned");
  return {data, static_cast<int>(rows), static_cast<int>(cols), rows > 1 ? d->strides[0] : cols};
}

Vector vector(const char* name, const CoalesceMemRef1D* d, int element_bytes) {
  if (!d) throw invalid(std::string(name) + " is a null descriptor");
  const long long size = d->sizes[0];
  if (size < 0 || size > kMaxExtent)
    throw invalid(std::string(name) + " has " + std::to_string(size) + " entries, outside 0.." +
                  std::to_string(kMaxExtent));
  if (size > 1 && d->strides[0] != 1) throw invalid(std::string(name) + " is not contiguous");
  if (size > 0 && !d->aligned) throw invalid(std::string(name) + " has a null data pointer");
  char* data = static_cast<char*>(d->aligned) + d->offset * element_bytes;
  if (size > 0 && reinterpret_cast<std::uintptr_t>(data) % 16 != 0)
    throw invalid(std::string(name) + " is not 16-byte aligned");
  return {data, static_cast<int>(size)};
}

CoalesceMemRef2D untyped(const CoalesceMemRef2DF32* d) {
  return {d->allocated, d->aligned, d->offset, {d->sizes[0], d->sizes[1]}, {d->strides[0], d->strides[1]}};
}
CoalesceMemRef1D untyped(const CoalesceMemRef1DF32* d) {
  return {d->allocated, d->aligned, d->offset, {d->sizes[0]}, {d->strides[0]}};
}

namespace {

// The f32 entries' operands: the checked views, or one line and exit status 1.
Matrix view(const char* name, const CoalesceMemRef2D* d) { return matrix(name, d, 4); }
Vector view(const char* name, const CoalesceMemRef1D* d) { return vector(name, d, 4); }
template <class F32Descriptor>
auto f32_view(const char* entry, const char* name, const F32Descriptor* d) {
  using Untyped = decltype(untyped(d));
  try {
    if (!d) return view(name, static_cast<const Untyped*>(nullptr));
    const Untyped u = untyped(d);
    return view(name, &u);
  } catch (const Refusal& e) {
    fail(entry, e.what());
  }
}

// The built-in kernels: kConfigs[i] x {none, bias, bias_relu, bias_gelu}, compiled into the
// library so that untuned f32 calls need no NVRTC.
template <int I>
using BuiltinTile =
    SimtTile<simt_builtin::kConfigs[I].bm, simt_builtin::kConfigs[I].bn, simt_builtin::kConfigs[I].bk,
             simt_builtin::kConfigs[I].wm, simt_builtin::kConfigs[I].wn, simt_builtin::kConfigs[I].tm,
             simt_builtin::kConfigs[I].tn, simt_builtin::kConfigs[I].stages, simt_builtin::kConfigs[I].vec,
             simt_builtin::kConfigs[I].group_m, simt_builtin::kConfigs[I].min_blocks>;

template <int I, Epilogue E>
void register_builtin(const Config& config) {
  register_kernel(config_name(config, Dtype::f32, E),
                  reinterpret_cast<const void*>(&simt_gemm_kernel<BuiltinTile<I>, EpilogueFor<E>>));
}

template <int... I>
void register_builtins(std::integer_sequence<int, I...>) {
  // simt's builtin_configs() lists kConfigs in order (kernels/simt/family.cpp).
  const std::vector<Config> configs = find_family("simt")->builtin_configs(Problem{});
  ((register_builtin<I, Epilogue::none>(configs[I]), register_builtin<I, Epilogue::bias>(configs[I]),
    register_builtin<I, Epilogue::bias_relu>(configs[I]), register_builtin<I, Epilogue::bias_gelu>(configs[I])),
   ...);
}

// Y[i] = Epi(X[i], bias[i % N]) and Y[i] = Act(X[i]), 16 bytes at a time where rows allow. X and
// Y may be one buffer: each element is read and written by the same thread.
template <class Epi>
__global__ void bias_map4(const float4* x, const float4* bias, float4* y, long long count4, int n4) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count4;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    float4 v = x[i];
    const float4 b = bias[i % n4];
    y[i] = make_float4(Epi::apply(v.x, b.x), Epi::apply(v.y, b.y), Epi::apply(v.z, b.z),
                       Epi::apply(v.w, b.w));
  }
}

template <class Epi>
__global__ void bias_map1(const float* x, const float* bias, float* y, long long count, int n) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    y[i] = Epi::apply(x[i], bias[i % n]);
}

template <class Act>
__global__ void unary_map4(const float4* x, float4* y, long long count4) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count4;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    float4 v = x[i];
    y[i] = make_float4(Act::apply(v.x), Act::apply(v.y), Act::apply(v.z), Act::apply(v.w));
  }
}

template <class Act>
__global__ void unary_map1(const float* x, float* y, long long first, long long count) {
  for (long long i = first + blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
       i < count; i += static_cast<long long>(gridDim.x) * blockDim.x)
    y[i] = Act::apply(x[i]);
}

// Y[i] = X1[i] + X2[i], 16 bytes at a time where the count allows; Y may be either input.
__global__ void add_map4(const float4* x1, const float4* x2, float4* y, long long count4) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count4;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const float4 u = x1[i], v = x2[i];
    y[i] = make_float4(u.x + v.x, u.y + v.y, u.z + v.z, u.w + v.w);
  }
}

__global__ void add_map1(const float* x1, const float* x2, float* y, long long first, long long count) {
  for (long long i = first + blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    y[i] = x1[i] + x2[i];
}

// Enough blocks to fill every SM with resident ones (8 blocks of 256 threads per SM).
int elementwise_max_blocks(const char* entry) {
  static const int sm_count = [entry] {
    int ordinal = 0, sms = 0;
    check_cuda(cudaGetDevice(&ordinal), entry, "cudaGetDevice (no CUDA device?)");
    check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, ordinal), entry, "cudaDeviceGetAttribute");
    return sms;
  }();
  return sm_count * (2048 / kElementwiseBlock);
}

void same_shape(const char* entry, const Matrix& x, const Matrix& y) {
  if (x.rows != y.rows || x.cols != y.cols)
    fail(entry, "Y is " + shape(y.rows, y.cols) + " but X is " + shape(x.rows, x.cols));
}

template <class Act>
void run_unary(const char* entry, const CoalesceMemRef2DF32* xd, const CoalesceMemRef2DF32* yd) {
  Matrix x = f32_view(entry, "X", xd), y = f32_view(entry, "Y", yd);
  same_shape(entry, x, y);
  const long long count = static_cast<long long>(x.rows) * x.cols;
  if (count == 0) return;
  const int max_blocks = elementwise_max_blocks(entry);
  // Both buffers are 16-byte aligned (checked above), so the body goes 4 floats at a time.
  const long long count4 = count / 4;
  if (count4 > 0)
    unary_map4<Act><<<elementwise_blocks(count4, max_blocks), kElementwiseBlock>>>(
        static_cast<const float4*>(x.data), static_cast<float4*>(y.data), count4);
  if (count4 * 4 < count)
    unary_map1<Act><<<elementwise_blocks(count - count4 * 4, max_blocks), kElementwiseBlock>>>(
        static_cast<const float*>(x.data), static_cast<float*>(y.data), count4 * 4, count);
  check_cuda(cudaGetLastError(), entry, "kernel launch");
}

// Y = X1 + X2 over M x N.
void run_add(const char* entry, const CoalesceMemRef2DF32* x1d, const CoalesceMemRef2DF32* x2d,
             const CoalesceMemRef2DF32* yd) {
  Matrix x1 = f32_view(entry, "X1", x1d), x2 = f32_view(entry, "X2", x2d), y = f32_view(entry, "Y", yd);
  same_shape(entry, x1, y);
  if (x2.rows != x1.rows || x2.cols != x1.cols)
    fail(entry, "X2 is " + shape(x2.rows, x2.cols) + " but X1 is " + shape(x1.rows, x1.cols));
  const long long count = static_cast<long long>(x1.rows) * x1.cols;
  if (count == 0) return;
  const int max_blocks = elementwise_max_blocks(entry);
  const long long count4 = count / 4;
  if (count4 > 0)
    add_map4<<<elementwise_blocks(count4, max_blocks), kElementwiseBlock>>>(
        static_cast<const float4*>(x1.data), static_cast<const float4*>(x2.data), static_cast<float4*>(y.data), count4);
  if (count4 * 4 < count)
    add_map1<<<elementwise_blocks(count - count4 * 4, max_blocks), kElementwiseBlock>>>(
        static_cast<const float*>(x1.data), static_cast<const float*>(x2.data), static_cast<float*>(y.data),
        count4 * 4, count);
  check_cuda(cudaGetLastError(), entry, "kernel launch");
}

// Y[m][j] = Epi::gate(X[m][2j], X[m][2j+1]) with the act-and-multiply of a gated registry
// epilogue (the kernel the harness's unfused gated baseline runs, kernels/elementwise.cuh).
template <Epilogue Gated>
void run_glu(const char* entry, const CoalesceMemRef2DF32* xd, const CoalesceMemRef2DF32* yd) {
  static_assert(epilogue_spec(Gated).reads.gated, "glu applies a gated epilogue's act-and-multiply");
  Matrix x = f32_view(entry, "X", xd), y = f32_view(entry, "Y", yd);
  if (x.cols % 2 != 0) fail(entry, "X is " + shape(x.rows, x.cols) + ": its gate and up column pairs need an even N");
  if (y.rows != x.rows || y.cols != x.cols / 2)
    fail(entry, "Y is " + shape(y.rows, y.cols) + ", not " + shape(x.rows, x.cols / 2) + " (N/2 of X)");
  if (x.data == y.data && y.rows > 0 && y.cols > 0) fail(entry, "Y is X; glu writes another buffer");
  if (y.rows == 0 || y.cols == 0) return;
  launch_gated_act_mul<float, EpilogueFor<Gated>>(static_cast<const float*>(x.data), static_cast<float*>(y.data),
                                                  x.rows, x.cols, elementwise_max_blocks(entry), nullptr);
  check_cuda(cudaGetLastError(), entry, "kernel launch");
}

template <class T>
void fill_descriptor(T* result, float* data, const long long* sizes, int rank) {
  result->allocated = data;
  result->aligned = data;
  result->offset = 0;
  long long stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    result->sizes[d] = sizes[d];
    result->strides[d] = stride;
    stride *= sizes[d];
  }
}

float* device_alloc(const char* entry, const long long* sizes, int rank) {
  long long count = 1;
  for (int d = 0; d < rank; ++d) {
    if (sizes[d] < 0) fail(entry, "a negative extent was asked for");
    if (sizes[d] > 0 && count > LLONG_MAX / 4 / sizes[d]) fail(entry, "the buffer size overflows");
    count *= sizes[d];
  }
  if (count == 0) return nullptr;
  try {
    keep_pool_memory();
  } catch (const CudaError& e) {
    fail(entry, e.what());
  }
  void* data = nullptr;
  check_cuda(cudaMallocAsync(&data, static_cast<size_t>(count) * sizeof(float), nullptr), entry,
             "cudaMallocAsync");
  return static_cast<float*>(data);
}

void device_free(const char* entry, float* allocated) {
  if (allocated) check_cuda(cudaFreeAsync(allocated, nullptr), entry, "cudaFreeAsync");
}

}  // namespace

// The default pool keeps freed memory (release threshold: never), so the temporaries of a
// program called in a loop, and split-K's partials, are recycled instead of going back to the
// driver at every synchronization.
void keep_pool_memory() {
  static std::once_flag pool_configured;
  std::call_once(pool_configured, [] {
    int ordinal = 0;
    COALESCE_CUDA(cudaGetDevice(&ordinal));
    cudaMemPool_t pool;
    COALESCE_CUDA(cudaDeviceGetDefaultMemPool(&pool, ordinal));
    std::uint64_t keep_everything = UINT64_MAX;
    COALESCE_CUDA(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_everything));
  });
}

void register_builtin_kernels() {
  static std::once_flag registered;
  std::call_once(registered, [] { register_builtins(std::make_integer_sequence<int, simt_builtin::kCount>{}); });
}

}  // namespace coalesce::runtime

using coalesce::runtime::exit_on_failure;
using coalesce::runtime::untyped;

namespace {

// An untiled f32 fused matmul (or the unfused matmul): coalesce_fused_matmul with config NULL
// on the legacy default stream; one line and exit status 1 on failure.
void run_untiled(const char* entry, const char* epilogue, const CoalesceMemRef2DF32* a,
                 const CoalesceMemRef2DF32* b, const CoalesceMemRef1DF32* bias, const CoalesceMemRef2DF32* c) {
  // The f32 descriptors have the untyped ones' layout; copies keep the types honest.
  const CoalesceMemRef2D ua = a ? untyped(a) : CoalesceMemRef2D{}, ub = b ? untyped(b) : CoalesceMemRef2D{},
                         uc = c ? untyped(c) : CoalesceMemRef2D{};
  const CoalesceMemRef1D ubias = bias ? untyped(bias) : CoalesceMemRef1D{};
  exit_on_failure(entry, coalesce_fused_matmul(a ? &ua : nullptr, b ? &ub : nullptr, bias ? &ubias : nullptr,
                                               c ? &uc : nullptr, COALESCE_F32, epilogue, nullptr, nullptr));
}

}  // namespace

extern "C" {

void _mlir_ciface_coalesce_matmul_f32(const CoalesceMemRef2DF32* a, const CoalesceMemRef2DF32* b,
                                      const CoalesceMemRef2DF32* c) {
  run_untiled("coalesce_matmul_f32", "none", a, b, nullptr, c);
}

void _mlir_ciface_coalesce_bias_add_f32(const CoalesceMemRef2DF32* xd,
                                        const CoalesceMemRef1DF32* biasd,
                                        const CoalesceMemRef2DF32* yd) {
  using namespace coalesce;
  using namespace coalesce::runtime;
  const char* entry = "coalesce_bias_add_f32";
  Matrix x = f32_view(entry, "X", xd), y = f32_view(entry, "Y", yd);
  Vector bias = f32_view(entry, "bias", biasd);
  same_shape(entry, x, y);
  if (bias.size != x.cols)
    fail(entry, "the bias has " + std::to_string(bias.size) + " entries, not N = " +
                    std::to_string(x.cols));
  const long long count = static_cast<long long>(x.rows) * x.cols;
  if (count == 0) return;
  const int max_blocks = elementwise_max_blocks(entry);
  float* xp = static_cast<float*>(x.data);
  float* yp = static_cast<float*>(y.data);
  float* bp = static_cast<float*>(bias.data);
  if (x.cols % 4 == 0)
    bias_map4<EpilogueBias><<<elementwise_blocks(count / 4, max_blocks), kElementwiseBlock>>>(
        reinterpret_cast<const float4*>(xp), reinterpret_cast<const float4*>(bp),
        reinterpret_cast<float4*>(yp), count / 4, x.cols / 4);
  else
    bias_map1<EpilogueBias><<<elementwise_blocks(count, max_blocks), kElementwiseBlock>>>(
        xp, bp, yp, count, x.cols);
  check_cuda(cudaGetLastError(), entry, "kernel launch");
}

void _mlir_ciface_coalesce_relu_f32(const CoalesceMemRef2DF32* x, const CoalesceMemRef2DF32* y) {
  coalesce::runtime::run_unary<coalesce::ActivationRelu>("coalesce_relu_f32", x, y);
}

void _mlir_ciface_coalesce_gelu_f32(const CoalesceMemRef2DF32* x, const CoalesceMemRef2DF32* y) {
  coalesce::runtime::run_unary<coalesce::ActivationGeluErf>("coalesce_gelu_f32", x, y);
}

void _mlir_ciface_coalesce_gelu_tanh_f32(const CoalesceMemRef2DF32* x, const CoalesceMemRef2DF32* y) {
  coalesce::runtime::run_unary<coalesce::ActivationFunctor<coalesce::Activation::gelu_tanh>>("coalesce_gelu_tanh_f32",
                                                                                            x, y);
}

void _mlir_ciface_coalesce_silu_f32(const CoalesceMemRef2DF32* x, const CoalesceMemRef2DF32* y) {
  coalesce::runtime::run_unary<coalesce::ActivationFunctor<coalesce::Activation::silu>>("coalesce_silu_f32", x, y);
}

void _mlir_ciface_coalesce_add_f32(const CoalesceMemRef2DF32* x1, const CoalesceMemRef2DF32* x2,
                                   const CoalesceMemRef2DF32* y) {
  coalesce::runtime::run_add("coalesce_add_f32", x1, x2, y);
}

void _mlir_ciface_coalesce_glu_silu_f32(const CoalesceMemRef2DF32* x, const CoalesceMemRef2DF32* y) {
  coalesce::runtime::run_glu<coalesce::Epilogue::swiglu>("coalesce_glu_silu_f32", x, y);
}

void _mlir_ciface_coalesce_glu_gelu_f32(const CoalesceMemRef2DF32* x, const CoalesceMemRef2DF32* y) {
  coalesce::runtime::run_glu<coalesce::Epilogue::geglu>("coalesce_glu_gelu_f32", x, y);
}

void _mlir_ciface_coalesce_fused_matmul_f32_none(const CoalesceMemRef2DF32* a,
                                                 const CoalesceMemRef2DF32* b,
                                                 const CoalesceMemRef2DF32* c) {
  run_untiled("coalesce_fused_matmul_f32_none", "none", a, b, nullptr, c);
}

void _mlir_ciface_coalesce_fused_matmul_f32_bias(const CoalesceMemRef2DF32* a,
                                                 const CoalesceMemRef2DF32* b,
                                                 const CoalesceMemRef1DF32* bias,
                                                 const CoalesceMemRef2DF32* c) {
  run_untiled("coalesce_fused_matmul_f32_bias", "bias", a, b, bias, c);
}

void _mlir_ciface_coalesce_fused_matmul_f32_bias_relu(const CoalesceMemRef2DF32* a,
                                                      const CoalesceMemRef2DF32* b,
                                                      const CoalesceMemRef1DF32* bias,
                                                      const CoalesceMemRef2DF32* c) {
  run_untiled("coalesce_fused_matmul_f32_bias_relu", "bias_relu", a, b, bias, c);
}

void _mlir_ciface_coalesce_fused_matmul_f32_bias_gelu(const CoalesceMemRef2DF32* a,
                                                      const CoalesceMemRef2DF32* b,
                                                      const CoalesceMemRef1DF32* bias,
                                                      const CoalesceMemRef2DF32* c) {
  run_untiled("coalesce_fused_matmul_f32_bias_gelu", "bias_gelu", a, b, bias, c);
}

void _mlir_ciface_coalesce_alloc_1d_f32(CoalesceMemRef1DF32* result, int64_t n) {
  const long long sizes[] = {n};
  float* data = coalesce::runtime::device_alloc("coalesce_alloc_1d_f32", sizes, 1);
  coalesce::runtime::fill_descriptor(result, data, sizes, 1);
}

void _mlir_ciface_coalesce_alloc_2d_f32(CoalesceMemRef2DF32* result, int64_t rows, int64_t cols) {
  const long long sizes[] = {rows, cols};
  float* data = coalesce::runtime::device_alloc("coalesce_alloc_2d_f32", sizes, 2);
  coalesce::runtime::fill_descriptor(result, data, sizes, 2);
}

void _mlir_ciface_coalesce_free_1d_f32(const CoalesceMemRef1DF32* buffer) {
  coalesce::runtime::device_free("coalesce_free_1d_f32", buffer ? buffer->allocated : nullptr);
}

void _mlir_ciface_coalesce_free_2d_f32(const CoalesceMemRef2DF32* buffer) {
  coalesce::runtime::device_free("coalesce_free_2d_f32", buffer ? buffer->allocated : nullptr);
}

}  // extern "C"
