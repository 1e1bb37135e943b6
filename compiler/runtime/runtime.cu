// The Coalesce runtime library: the entry points coalesce-lower-to-library calls
// (coalesce_runtime.h). The fused and matmul entries run kernels/simt/gemm.cuh instantiated for
// the built-in configs (kernels/simt/builtin.hpp) or, for tiled ops, the kernel emitted with
// the op (fused_entry.cuh), split-K ones followed by the reduce (kernels/elementwise.cuh); the
// elementwise entries are grid-stride kernels.
#include <cuda_runtime.h>

#include <array>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <unordered_set>
#include <utility>

#include "compiler/runtime/coalesce_runtime.h"
#include "compiler/runtime/fused_entry.cuh"
#include "kernels/elementwise.cuh"
#include "kernels/core/epilogue.cuh"
#include "kernels/core/problem.hpp"
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

struct Matrix {
  float* data;
  int rows, cols;
};
struct Vector {
  float* data;
  int size;
};

// The kernels take extents as int, compute grid sizes and element offsets (`row * N`) in int,
// and read rows with 16-byte vectors: each extent at most kMaxExtent and each operand at most
// INT_MAX elements (the compiler's verifier applies the same limits, CoalesceOps.h), rows
// contiguous, the data 16-byte aligned.
Matrix matrix(const char* entry, const char* name, const CoalesceMemRef2DF32* d) {
  if (!d) fail(entry, std::string(name) + " is a null descriptor");
  const long long rows = d->sizes[0], cols = d->sizes[1];
  if (rows < 0 || cols < 0 || rows > kMaxExtent || cols > kMaxExtent)
    fail(entry, std::string(name) + " has extents " + shape(rows, cols) + " outside 0.." +
                    std::to_string(kMaxExtent));
  if (rows * cols > INT_MAX)
    fail(entry, std::string(name) + " is " + shape(rows, cols) + ", more than INT_MAX elements");
  if ((rows > 1 && d->strides[0] != cols) || (cols > 1 && d->strides[1] != 1))
    fail(entry, std::string(name) + " is not row-major contiguous (strides " +
                    std::to_string(d->strides[0]) + ", " + std::to_string(d->strides[1]) + ")");
  float* data = d->aligned + d->offset;
  if (rows * cols > 0 && reinterpret_cast<std::uintptr_t>(data) % 16 != 0)
    fail(entry, std::string(name) + " is not 16-byte aligned");
  return {data, static_cast<int>(rows), static_cast<int>(cols)};
}

Vector vector(const char* entry, const char* name, const CoalesceMemRef1DF32* d) {
  if (!d) fail(entry, std::string(name) + " is a null descriptor");
  const long long size = d->sizes[0];
  if (size < 0 || size > kMaxExtent)
    fail(entry, std::string(name) + " has " + std::to_string(size) + " entries, outside 0.." +
                    std::to_string(kMaxExtent));
  if (size > 1 && d->strides[0] != 1) fail(entry, std::string(name) + " is not contiguous");
  float* data = d->aligned + d->offset;
  if (size > 0 && reinterpret_cast<std::uintptr_t>(data) % 16 != 0)
    fail(entry, std::string(name) + " is not 16-byte aligned");
  return {data, static_cast<int>(size)};
}

// The device the runtime launches on, queried once.
struct Device {
  DeviceLimits limits;
  int sm_count = 0;
};

const Device& device(const char* entry) {
  static const Device queried = [entry] {
    Device d;
    int ordinal = 0;
    check_cuda(cudaGetDevice(&ordinal), entry, "cudaGetDevice (no CUDA device?)");
    auto attribute = [&](cudaDeviceAttr what, int& out) {
      check_cuda(cudaDeviceGetAttribute(&out, what, ordinal), entry, "cudaDeviceGetAttribute");
    };
    attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, d.limits.smem_per_block_optin);
    attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor, d.limits.smem_per_sm);
    attribute(cudaDevAttrMaxThreadsPerBlock, d.limits.max_threads_per_block);
    attribute(cudaDevAttrMaxThreadsPerMultiProcessor, d.limits.max_threads_per_sm);
    attribute(cudaDevAttrMaxRegistersPerMultiprocessor, d.limits.regs_per_sm);
    attribute(cudaDevAttrMaxBlocksPerMultiprocessor, d.limits.max_blocks_per_sm);
    attribute(cudaDevAttrMultiProcessorCount, d.sm_count);
    return d;
  }();
  return queried;
}

// C = epilogue(A B [+ bias]) operands, checked against each other.
struct GemmOperands {
  Matrix a, b, c;
  const float* bias;
};

GemmOperands gemm_operands(const char* entry, const CoalesceMemRef2DF32* a,
                           const CoalesceMemRef2DF32* b, const CoalesceMemRef1DF32* bias,
                           const CoalesceMemRef2DF32* c) {
  GemmOperands g{matrix(entry, "A", a), matrix(entry, "B", b), matrix(entry, "C", c), nullptr};
  if (g.a.cols != g.b.rows)
    fail(entry, "A is " + shape(g.a.rows, g.a.cols) + " but B is " + shape(g.b.rows, g.b.cols));
  if (g.c.rows != g.a.rows || g.c.cols != g.b.cols)
    fail(entry, "C is " + shape(g.c.rows, g.c.cols) + ", not " + shape(g.a.rows, g.b.cols));
  if (bias) {
    Vector v = vector(entry, "bias", bias);
    if (v.size != g.c.cols)
      fail(entry, "the bias has " + std::to_string(v.size) + " entries, not N = " +
                      std::to_string(g.c.cols));
    g.bias = v.data;
  }
  return g;
}

// cudaFuncSetAttribute is needed once per kernel before its first launch with more than 48 KB
// of dynamic shared memory; the set remembers which kernels have had it.
void allow_dynamic_smem(const void* kernel, int bytes, const char* entry) {
  static std::mutex mutex;
  static std::unordered_set<const void*> allowed;
  std::lock_guard<std::mutex> lock(mutex);
  if (allowed.count(kernel)) return;
  check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes),
             entry, "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)");
  allowed.insert(kernel);
}

// The tile's rules on this problem (first: a refusal there needs no device) and on this device;
// the blocks of its grid's x extent.
long long checked_blocks(const LaunchContract& tile, const char* entry, int m, int n, int k) {
  Verdict on_problem = tile.check_problem(m, n, k);
  if (!on_problem.ok())
    fail(entry, "the config does not fit the problem " + shape(m, n) + "x" + std::to_string(k) +
                    ": " + on_problem.why);
  Verdict on_device = tile.check_device(device(entry).limits);
  if (!on_device.ok())
    fail(entry, std::string("the config does not fit this device: ") + on_device.why);
  long long blocks = tile.grid_blocks(m, n);
  if (blocks > INT_MAX) fail(entry, "the grid would have more than INT_MAX blocks");
  return blocks;
}

// Launches `kernel` over blocks × 1 × tile.split blocks, storing into `c` (C, or split-K's
// partials).
void launch_kernel(const void* kernel, const LaunchContract& tile, const char* entry, long long blocks,
                   const GemmOperands& g, float* c) {
  int m = g.a.rows, n = g.b.cols, k = g.a.cols;
  allow_dynamic_smem(kernel, tile.smem_bytes, entry);
  const float* a = g.a.data;
  const float* b = g.b.data;
  const float* bias = g.bias;
  void* args[] = {&a, &b, &bias, &c, &m, &n, &k};
  const dim3 grid(static_cast<unsigned>(blocks), 1, static_cast<unsigned>(tile.split));
  check_cuda(cudaLaunchKernel(kernel, grid, dim3(tile.threads), args, tile.smem_bytes, nullptr), entry,
             "cudaLaunchKernel");
}

void launch_checked(const void* kernel, const LaunchContract& tile, const char* entry, GemmOperands g) {
  if (tile.split != 1)
    fail(entry, "the tile splits K into " + std::to_string(tile.split) +
                    " slices, which needs the split-K entry (COALESCE_DEFINE_FUSED_SPLIT_K_ENTRY)");
  const long long blocks = checked_blocks(tile, entry, g.a.rows, g.b.cols, g.a.cols);
  launch_kernel(kernel, tile, entry, blocks, g, g.c.data);
}

// The built-in kernels: kConfigs[i] x {none, bias, bias_relu, bias_gelu}.
template <int I>
using BuiltinTile =
    SimtTile<simt_builtin::kConfigs[I].bm, simt_builtin::kConfigs[I].bn, simt_builtin::kConfigs[I].bk,
             simt_builtin::kConfigs[I].wm, simt_builtin::kConfigs[I].wn, simt_builtin::kConfigs[I].tm,
             simt_builtin::kConfigs[I].tn, simt_builtin::kConfigs[I].stages, simt_builtin::kConfigs[I].vec,
             simt_builtin::kConfigs[I].group_m, simt_builtin::kConfigs[I].min_blocks>;

using KernelsOfTile = std::array<const void*, 4>;  // indexed by Epilogue

struct BuiltinKernels {
  KernelsOfTile kernels;
  LaunchContract contract;
};

template <int I>
BuiltinKernels kernels_of_tile() {
  using Tile = BuiltinTile<I>;
  return {{reinterpret_cast<const void*>(&simt_gemm_kernel<Tile, EpilogueFor<Epilogue::none>>),
           reinterpret_cast<const void*>(&simt_gemm_kernel<Tile, EpilogueFor<Epilogue::bias>>),
           reinterpret_cast<const void*>(&simt_gemm_kernel<Tile, EpilogueFor<Epilogue::bias_relu>>),
           reinterpret_cast<const void*>(&simt_gemm_kernel<Tile, EpilogueFor<Epilogue::bias_gelu>>)},
          contract_of<Tile>()};
}

template <int... I>
std::array<BuiltinKernels, simt_builtin::kCount> builtin_table(std::integer_sequence<int, I...>) {
  return {kernels_of_tile<I>()...};
}

int epilogue_index(Epilogue e) {
  switch (e) {
    case Epilogue::none: return 0;
    case Epilogue::bias: return 1;
    case Epilogue::bias_relu: return 2;
    case Epilogue::bias_gelu: return 3;
  }
  return 0;
}

// The generic fused entry: the first built-in config legal for the shape on this device, the
// same choice coalesce-apply-tile-config's fallback makes at compile time.
void run_builtin(Epilogue epilogue, const char* entry, const CoalesceMemRef2DF32* a,
                 const CoalesceMemRef2DF32* b, const CoalesceMemRef1DF32* bias,
                 const CoalesceMemRef2DF32* c) {
  static const auto table = builtin_table(std::make_integer_sequence<int, simt_builtin::kCount>{});
  GemmOperands g = gemm_operands(entry, a, b, bias, c);
  int m = g.a.rows, n = g.b.cols, k = g.a.cols;
  if (m == 0 || n == 0) return;
  int index = simt_builtin::first_legal(device(entry).limits, m, n, k);
  if (index < 0)
    fail(entry, "no built-in config is legal for " + shape(m, n) + "x" + std::to_string(k));
  launch_checked(table[index].kernels[epilogue_index(epilogue)], table[index].contract, entry, g);
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

// Enough blocks to fill every SM with resident ones (8 blocks of 256 threads per SM).
int elementwise_max_blocks(const char* entry) {
  return device(entry).sm_count * (2048 / kElementwiseBlock);
}

void same_shape(const char* entry, const Matrix& x, const Matrix& y) {
  if (x.rows != y.rows || x.cols != y.cols)
    fail(entry, "Y is " + shape(y.rows, y.cols) + " but X is " + shape(x.rows, x.cols));
}

template <class Act>
void run_unary(const char* entry, const CoalesceMemRef2DF32* xd, const CoalesceMemRef2DF32* yd) {
  Matrix x = matrix(entry, "X", xd), y = matrix(entry, "Y", yd);
  same_shape(entry, x, y);
  const long long count = static_cast<long long>(x.rows) * x.cols;
  if (count == 0) return;
  const int max_blocks = elementwise_max_blocks(entry);
  // Both buffers are 16-byte aligned (checked above), so the body goes 4 floats at a time.
  const long long count4 = count / 4;
  if (count4 > 0)
    unary_map4<Act><<<elementwise_blocks(count4, max_blocks), kElementwiseBlock>>>(
        reinterpret_cast<const float4*>(x.data), reinterpret_cast<float4*>(y.data), count4);
  if (count4 * 4 < count)
    unary_map1<Act><<<elementwise_blocks(count - count4 * 4, max_blocks), kElementwiseBlock>>>(
        x.data, y.data, count4 * 4, count);
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

// The default pool keeps freed memory (release threshold: never), so the temporaries of a
// program called in a loop, and split-K's partials, are recycled instead of going back to the
// driver at every synchronization.
void keep_pool_memory(const char* entry) {
  static std::once_flag pool_configured;
  std::call_once(pool_configured, [entry] {
    int ordinal = 0;
    check_cuda(cudaGetDevice(&ordinal), entry, "cudaGetDevice (no CUDA device?)");
    cudaMemPool_t pool;
    check_cuda(cudaDeviceGetDefaultMemPool(&pool, ordinal), entry, "cudaDeviceGetDefaultMemPool");
    std::uint64_t keep_everything = UINT64_MAX;
    check_cuda(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_everything),
               entry, "cudaMemPoolSetAttribute(ReleaseThreshold)");
  });
}

float* device_alloc(const char* entry, const long long* sizes, int rank) {
  long long count = 1;
  for (int d = 0; d < rank; ++d) {
    if (sizes[d] < 0) fail(entry, "a negative extent was asked for");
    if (sizes[d] > 0 && count > LLONG_MAX / 4 / sizes[d]) fail(entry, "the buffer size overflows");
    count *= sizes[d];
  }
  if (count == 0) return nullptr;
  keep_pool_memory(entry);
  void* data = nullptr;
  check_cuda(cudaMallocAsync(&data, static_cast<size_t>(count) * sizeof(float), nullptr), entry,
             "cudaMallocAsync");
  return static_cast<float*>(data);
}

void device_free(const char* entry, float* allocated) {
  if (allocated) check_cuda(cudaFreeAsync(allocated, nullptr), entry, "cudaFreeAsync");
}

// Split-K's reduce for the op's epilogue: C = Epi(sum of the partials in slice order, bias).
template <Epilogue E>
void reduce_partials(const float* partials, int slices, const float* bias, float* c, int m, int n,
                     const char* entry) {
  launch_splitk_reduce<float, EpilogueFor<E>>(partials, slices, bias, c, m, n,
                                              elementwise_max_blocks(entry), nullptr);
}

void reduce_partials(Epilogue epilogue, const float* partials, int slices, const float* bias, float* c,
                     int m, int n, const char* entry) {
  switch (epilogue) {
    case Epilogue::none: return reduce_partials<Epilogue::none>(partials, slices, bias, c, m, n, entry);
    case Epilogue::bias: return reduce_partials<Epilogue::bias>(partials, slices, bias, c, m, n, entry);
    case Epilogue::bias_relu:
      return reduce_partials<Epilogue::bias_relu>(partials, slices, bias, c, m, n, entry);
    case Epilogue::bias_gelu:
      return reduce_partials<Epilogue::bias_gelu>(partials, slices, bias, c, m, n, entry);
  }
}

}  // namespace

void launch_tiled(const void* kernel, const LaunchContract& tile, const char* entry,
                  const CoalesceMemRef2DF32* a, const CoalesceMemRef2DF32* b,
                  const CoalesceMemRef1DF32* bias, const CoalesceMemRef2DF32* c) {
  GemmOperands g = gemm_operands(entry, a, b, bias, c);
  if (g.a.rows == 0 || g.b.cols == 0) return;
  launch_checked(kernel, tile, entry, g);
}

void launch_tiled_split_k(const void* kernel, const LaunchContract& tile, Epilogue epilogue,
                          const char* entry, const CoalesceMemRef2DF32* a,
                          const CoalesceMemRef2DF32* b, const CoalesceMemRef1DF32* bias,
                          const CoalesceMemRef2DF32* c) {
  if (tile.split < 2) fail(entry, "the split-K entry was given a tile that does not split K");
  if ((epilogue == Epilogue::none) != (bias == nullptr))
    fail(entry, "the " + std::string(to_string(epilogue)) + " epilogue " +
                    (bias ? "takes no bias, but one was given" : "needs a bias, but none was given"));
  GemmOperands g = gemm_operands(entry, a, b, bias, c);
  const int m = g.a.rows, n = g.b.cols;
  if (m == 0 || n == 0) return;
  const long long blocks = checked_blocks(tile, entry, m, n, g.a.cols);
  // The partials live from the kernel to the reduce only; allocated and freed in the stream's
  // order, so no synchronization waits for them and concurrent calls never share one.
  const long long bytes = static_cast<long long>(tile.split) * m * n * static_cast<long long>(sizeof(float));
  keep_pool_memory(entry);
  void* partials = nullptr;
  const cudaError_t status = cudaMallocAsync(&partials, static_cast<size_t>(bytes), nullptr);
  if (status != cudaSuccess)
    fail(entry, "cudaMallocAsync of split-K's partial sums (" + std::to_string(tile.split) + " x " +
                    shape(m, n) + " floats, " + std::to_string(bytes) + " bytes) failed: " +
                    cudaGetErrorString(status));
  launch_kernel(kernel, tile, entry, blocks, g, static_cast<float*>(partials));
  reduce_partials(epilogue, static_cast<const float*>(partials), tile.split, g.bias, g.c.data, m, n, entry);
  check_cuda(cudaGetLastError(), entry, "split-K reduce launch");
  check_cuda(cudaFreeAsync(partials, nullptr), entry, "cudaFreeAsync (split-K's partial sums)");
}

}  // namespace coalesce::runtime

using coalesce::Epilogue;
using coalesce::runtime::run_builtin;

extern "C" {

void _mlir_ciface_coalesce_matmul_f32(const CoalesceMemRef2DF32* a, const CoalesceMemRef2DF32* b,
                                      const CoalesceMemRef2DF32* c) {
  run_builtin(Epilogue::none, "coalesce_matmul_f32", a, b, nullptr, c);
}

void _mlir_ciface_coalesce_bias_add_f32(const CoalesceMemRef2DF32* xd,
                                        const CoalesceMemRef1DF32* biasd,
                                        const CoalesceMemRef2DF32* yd) {
  using namespace coalesce;
  using namespace coalesce::runtime;
  const char* entry = "coalesce_bias_add_f32";
  Matrix x = matrix(entry, "X", xd), y = matrix(entry, "Y", yd);
  Vector bias = vector(entry, "bias", biasd);
  same_shape(entry, x, y);
  if (bias.size != x.cols)
    fail(entry, "the bias has " + std::to_string(bias.size) + " entries, not N = " +
                    std::to_string(x.cols));
  const long long count = static_cast<long long>(x.rows) * x.cols;
  if (count == 0) return;
  const int max_blocks = elementwise_max_blocks(entry);
  if (x.cols % 4 == 0)
    bias_map4<EpilogueBias><<<elementwise_blocks(count / 4, max_blocks), kElementwiseBlock>>>(
        reinterpret_cast<const float4*>(x.data), reinterpret_cast<const float4*>(bias.data),
        reinterpret_cast<float4*>(y.data), count / 4, x.cols / 4);
  else
    bias_map1<EpilogueBias><<<elementwise_blocks(count, max_blocks), kElementwiseBlock>>>(
        x.data, bias.data, y.data, count, x.cols);
  check_cuda(cudaGetLastError(), entry, "kernel launch");
}

void _mlir_ciface_coalesce_relu_f32(const CoalesceMemRef2DF32* x, const CoalesceMemRef2DF32* y) {
  coalesce::runtime::run_unary<coalesce::ActivationRelu>("coalesce_relu_f32", x, y);
}

void _mlir_ciface_coalesce_gelu_f32(const CoalesceMemRef2DF32* x, const CoalesceMemRef2DF32* y) {
  coalesce::runtime::run_unary<coalesce::ActivationGeluErf>("coalesce_gelu_f32", x, y);
}

void _mlir_ciface_coalesce_fused_matmul_f32_none(const CoalesceMemRef2DF32* a,
                                                 const CoalesceMemRef2DF32* b,
                                                 const CoalesceMemRef2DF32* c) {
  run_builtin(Epilogue::none, "coalesce_fused_matmul_f32_none", a, b, nullptr, c);
}

void _mlir_ciface_coalesce_fused_matmul_f32_bias(const CoalesceMemRef2DF32* a,
                                                 const CoalesceMemRef2DF32* b,
                                                 const CoalesceMemRef1DF32* bias,
                                                 const CoalesceMemRef2DF32* c) {
  run_builtin(Epilogue::bias, "coalesce_fused_matmul_f32_bias", a, b, bias, c);
}

void _mlir_ciface_coalesce_fused_matmul_f32_bias_relu(const CoalesceMemRef2DF32* a,
                                                      const CoalesceMemRef2DF32* b,
                                                      const CoalesceMemRef1DF32* bias,
                                                      const CoalesceMemRef2DF32* c) {
  run_builtin(Epilogue::bias_relu, "coalesce_fused_matmul_f32_bias_relu", a, b, bias, c);
}

void _mlir_ciface_coalesce_fused_matmul_f32_bias_gelu(const CoalesceMemRef2DF32* a,
                                                      const CoalesceMemRef2DF32* b,
                                                      const CoalesceMemRef1DF32* bias,
                                                      const CoalesceMemRef2DF32* c) {
  run_builtin(Epilogue::bias_gelu, "coalesce_fused_matmul_f32_bias_gelu", a, b, bias, c);
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
