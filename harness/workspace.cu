// Random inputs, the fp64 reference and the GPU comparison (see workspace.hpp).
#include "workspace.hpp"

#include <cublas_v2.h>

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <optional>
#include <string>

namespace coalesce {

namespace {

void check_cublas(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cuBLAS error ") + cublasGetStatusName(status) + " in " +
                             call + " (fp64 reference)");
}

constexpr int kBlock = 256;
/// Grid-stride kernels here use at most this many blocks: 8 per SM on 132 SMs, enough to keep
/// the H200's memory busy, and the comparison's one atomic per block stays cheap.
constexpr long long kMaxBlocks = 1056;

unsigned blocks_for(long long items) {
  long long b = (items + kBlock - 1) / kBlock;
  return static_cast<unsigned>(b < 1 ? 1 : (b < kMaxBlocks ? b : kMaxBlocks));
}

/// SplitMix64's finalizer (Steele, Lea & Flood 2014): a bijective 64-bit mix whose outputs for
/// consecutive counters pass BigCrush, so hash(key + i·γ) is a counter-based random stream.
__host__ __device__ inline unsigned long long splitmix64(unsigned long long x) {
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
constexpr unsigned long long kGolden = 0x9E3779B97F4A7C15ull;  // SplitMix64's increment γ

/// out[i] = uniform in [-1, 1) with 24 random bits: (h >> 40) · 2^-23 - 1 is exact in FP32.
__global__ void fill_uniform(float* out, long long count, unsigned long long key) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const unsigned long long h = splitmix64(key + static_cast<unsigned long long>(i + 1) * kGolden);
    out[i] = static_cast<float>(h >> 40) * 0x1p-23f - 1.0f;
  }
}

__global__ void widen(const float* in, double* out, long long count) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    out[i] = static_cast<double>(in[i]);
}

/// The fp64 epilogues, mirroring kernels/epilogue.cuh formula for formula.
__device__ double reference_epilogue(double x, int epilogue, bool tanh_gelu) {
  switch (static_cast<Epilogue>(epilogue)) {
    case Epilogue::none:
    case Epilogue::bias: return x;
    case Epilogue::bias_relu: return x > 0.0 ? x : 0.0;
    case Epilogue::bias_gelu:
      if (tanh_gelu) {
        const double kSqrt2OverPi = 0.79788456080286535588;
        return 0.5 * x * (1.0 + tanh(kSqrt2OverPi * (x + 0.044715 * x * x * x)));
      }
      return 0.5 * x * (1.0 + erf(x * 0.70710678118654752440));
  }
  return x;
}

/// ref[m][n] = epilogue(product[m][n] + bias[n]); the bias is skipped for Epilogue::none.
__global__ void apply_reference_epilogue(const double* product, const double* bias, double* ref,
                                         long long count, int n, int epilogue, bool tanh_gelu) {
  const bool uses_bias = static_cast<Epilogue>(epilogue) != Epilogue::none;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const double x = product[i] + (uses_bias ? bias[i % n] : 0.0);
    ref[i] = reference_epilogue(x, epilogue, tanh_gelu);
  }
}

/// Sums and maxima of the comparison, reduced over the whole grid with atomics. The maxima are
/// of non-negative doubles, whose bit patterns order like unsigned integers.
struct ErrorSums {
  double sum_sq_err;
  double sum_sq_ref;
  unsigned long long max_abs_err_bits;
  unsigned long long max_abs_ref_bits;
  unsigned long long non_finite;
};

__device__ inline double warp_sum(double v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}
__device__ inline double warp_max(double v) {
  for (int o = 16; o > 0; o >>= 1) v = fmax(v, __shfl_down_sync(0xffffffffu, v, o));
  return v;
}

__global__ void __launch_bounds__(kBlock)
    compare(const float* out, const double* ref, long long count, ErrorSums* sums) {
  double sq_err = 0, sq_ref = 0, max_err = 0, max_ref = 0, non_finite = 0;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const double r = ref[i];
    sq_ref += r * r;
    max_ref = fmax(max_ref, fabs(r));
    const float o = out[i];
    if (!isfinite(o)) {
      non_finite += 1;
      continue;
    }
    const double e = static_cast<double>(o) - r;
    sq_err += e * e;
    max_err = fmax(max_err, fabs(e));
  }
  __shared__ double partial[5][kBlock / 32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  sq_err = warp_sum(sq_err);
  sq_ref = warp_sum(sq_ref);
  non_finite = warp_sum(non_finite);
  max_err = warp_max(max_err);
  max_ref = warp_max(max_ref);
  if (lane == 0) {
    partial[0][warp] = sq_err;
    partial[1][warp] = sq_ref;
    partial[2][warp] = non_finite;
    partial[3][warp] = max_err;
    partial[4][warp] = max_ref;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < kBlock / 32; ++w) {
      sq_err += partial[0][w];
      sq_ref += partial[1][w];
      non_finite += partial[2][w];
      max_err = fmax(max_err, partial[3][w]);
      max_ref = fmax(max_ref, partial[4][w]);
    }
    atomicAdd(&sums->sum_sq_err, sq_err);
    atomicAdd(&sums->sum_sq_ref, sq_ref);
    atomicAdd(&sums->non_finite, static_cast<unsigned long long>(non_finite));
    atomicMax(&sums->max_abs_err_bits, static_cast<unsigned long long>(__double_as_longlong(max_err)));
    atomicMax(&sums->max_abs_ref_bits, static_cast<unsigned long long>(__double_as_longlong(max_ref)));
  }
}

const Problem& validated(const Problem& p) {
  if (p.m <= 0 || p.n <= 0 || p.k <= 0)
    throw std::invalid_argument("a problem needs positive M, N and K, not " + std::to_string(p.m) +
                                "x" + std::to_string(p.n) + "x" + std::to_string(p.k));
  return p;
}

}  // namespace

struct Workspace::Reference {
  cublasHandle_t handle = nullptr;
  DeviceBuffer<double> a64, b64, bias64;  // the FP32 inputs widened (exactly) to fp64
  DeviceBuffer<double> product;           // A·B in fp64
  DeviceBuffer<double> ref;               // epilogue(product + bias) for `kind`
  bool product_valid = false;
  std::optional<ReferenceKind> kind;
  DeviceBuffer<ErrorSums> sums{1};

  explicit Reference(cudaStream_t stream) {
    check_cublas(cublasCreate(&handle), "cublasCreate");
    check_cublas(cublasSetStream(handle, stream), "cublasSetStream");
    // Pedantic: no reduced-precision shortcut anywhere in the reference.
    check_cublas(cublasSetMathMode(handle, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode");
  }
  ~Reference() { cublasDestroy(handle); }
};

Workspace::Workspace(const Problem& problem, unsigned long long seed, cudaStream_t stream)
    : problem_(validated(problem)),
      seed_(seed),
      stream_(stream),
      a_(static_cast<std::size_t>(problem.m) * problem.k),
      b_(static_cast<std::size_t>(problem.k) * problem.n),
      bias_(static_cast<std::size_t>(problem.n)),
      c_(static_cast<std::size_t>(problem.m) * problem.n),
      ref_(std::make_unique<Reference>(stream)) {
  refill(seed);
  poison_output();
}

Workspace::~Workspace() = default;

void Workspace::refill(unsigned long long seed) {
  seed_ = seed;
  // One independent stream per buffer: the buffer's number is mixed into the key.
  struct Fill { float* p; std::size_t n; unsigned long long id; };
  for (const Fill& f : {Fill{a_.get(), a_.size(), 1}, Fill{b_.get(), b_.size(), 2},
                        Fill{bias_.get(), bias_.size(), 3}}) {
    const unsigned long long key = splitmix64(seed ^ splitmix64(f.id * kGolden));
    fill_uniform<<<blocks_for(f.n), kBlock, 0, stream_>>>(f.p, static_cast<long long>(f.n), key);
    COALESCE_CUDA_CTX(cudaGetLastError(), "fill_uniform (workspace inputs)");
  }
  ref_->product_valid = false;
  ref_->kind.reset();
}

void Workspace::poison_output(cudaStream_t stream) const {
  // All-ones bytes are a quiet NaN in FP32.
  COALESCE_CUDA(cudaMemsetAsync(c_.get(), 0xff, c_.bytes(), stream ? stream : stream_));
}

const double* Workspace::reference(const ReferenceKind& kind) {
  Reference& r = *ref_;
  const long long m = problem_.m, n = problem_.n, k = problem_.k;
  if (!r.product_valid) {
    if (!r.product.get()) {
      r.a64 = DeviceBuffer<double>(a_.size());
      r.b64 = DeviceBuffer<double>(b_.size());
      r.bias64 = DeviceBuffer<double>(bias_.size());
      r.product = DeviceBuffer<double>(c_.size());
      r.ref = DeviceBuffer<double>(c_.size());
    }
    widen<<<blocks_for(m * k), kBlock, 0, stream_>>>(a_.get(), r.a64.get(), m * k);
    widen<<<blocks_for(k * n), kBlock, 0, stream_>>>(b_.get(), r.b64.get(), k * n);
    widen<<<blocks_for(n), kBlock, 0, stream_>>>(bias_.get(), r.bias64.get(), n);
    COALESCE_CUDA_CTX(cudaGetLastError(), "widen (fp64 reference)");
    // Row-major through column-major cuBLAS. A row-major R×C matrix with leading dimension C is,
    // byte for byte, the column-major C×R matrix (its transpose) with leading dimension C. So
    // the buffers hold, in cuBLAS's column-major view, Aᵀ (K×M, ld K), Bᵀ (N×K, ld N), and the
    // row-major product C (M×N) we want is the column-major Cᵀ (N×M, ld N). Since
    // Cᵀ = (A·B)ᵀ = Bᵀ·Aᵀ, one GEMM with no transposes computes it: m' = N, n' = M, k' = K,
    // first operand B (ld N), second operand A (ld K), output ld N.
    const double one = 1.0, zero = 0.0;
    check_cublas(cublasDgemm(r.handle, CUBLAS_OP_N, CUBLAS_OP_N, problem_.n, problem_.m, problem_.k,
                             &one, r.b64.get(), problem_.n, r.a64.get(), problem_.k, &zero,
                             r.product.get(), problem_.n),
                 "cublasDgemm");
    r.product_valid = true;
    r.kind.reset();
  }
  if (!r.kind || !(*r.kind == kind)) {
    apply_reference_epilogue<<<blocks_for(m * n), kBlock, 0, stream_>>>(
        r.product.get(), r.bias64.get(), r.ref.get(), m * n, problem_.n,
        static_cast<int>(kind.epilogue), kind.tanh_gelu);
    COALESCE_CUDA_CTX(cudaGetLastError(), "apply_reference_epilogue (fp64 reference)");
    r.kind = kind;
  }
  return r.ref.get();
}

ErrorFigures Workspace::error_figures(const ReferenceKind& kind) {
  const double* ref = reference(kind);
  const long long count = static_cast<long long>(problem_.m) * problem_.n;
  COALESCE_CUDA(cudaMemsetAsync(ref_->sums.get(), 0, sizeof(ErrorSums), stream_));
  compare<<<blocks_for(count), kBlock, 0, stream_>>>(c_.get(), ref, count, ref_->sums.get());
  COALESCE_CUDA_CTX(cudaGetLastError(), "compare (correctness check)");
  ErrorSums sums{};
  COALESCE_CUDA(cudaMemcpyAsync(&sums, ref_->sums.get(), sizeof sums, cudaMemcpyDeviceToHost, stream_));
  COALESCE_CUDA_CTX(cudaStreamSynchronize(stream_), "correctness check");
  ErrorFigures f;
  f.count = count;
  f.non_finite = static_cast<long long>(sums.non_finite);
  std::memcpy(&f.max_abs_err, &sums.max_abs_err_bits, sizeof(double));
  std::memcpy(&f.max_abs_ref, &sums.max_abs_ref_bits, sizeof(double));
  f.rel_frobenius = sums.sum_sq_ref > 0 ? std::sqrt(sums.sum_sq_err / sums.sum_sq_ref)
                                        : (sums.sum_sq_err > 0 ? INFINITY : 0.0);
  return f;
}

CheckResult Workspace::check(const ReferenceKind& kind) {
  return judge(error_figures(kind), tolerance_for(problem_.dtype));
}

}  // namespace coalesce
