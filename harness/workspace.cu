// Random inputs, the fp64 reference and the GPU comparison (see workspace.hpp).
#include "workspace.hpp"

#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <optional>
#include <string>

#include "kernels/core/epilogue_reference.hpp"
#include "dispatch.cuh"
#include "kernels/core/numeric.cuh"

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

/// out[i] = scale · (uniform in [-1, 1) with 24 random bits), rounded once to T: (h >> 40) ·
/// 2^-23 - 1 is exact in f32, so f32 storage holds the draw itself.
template <class T>
__global__ void fill_uniform(T* out, long long count, unsigned long long key, float scale) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const unsigned long long h = splitmix64(key + static_cast<unsigned long long>(i + 1) * kGolden);
    out[i] = from_float<T>((static_cast<float>(h >> 40) * 0x1p-23f - 1.0f) * scale);
  }
}

template <class T>
__global__ void widen(const T* in, double* out, long long count) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    out[i] = static_cast<double>(to_float(in[i]));
}

__device__ inline double warp_sum(double v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

/// Adds the block's sum of each thread's `sq` to *total: one atomic per block of kBlock threads.
__device__ void add_block_sum(double sq, double* total) {
  __shared__ double partial[kBlock / 32];
  sq = warp_sum(sq);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = sq;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < kBlock / 32; ++w) sq += partial[w];
    atomicAdd(total, sq);
  }
}

__device__ inline double warp_max(double v) {
  for (int o = 16; o > 0; o >>= 1) v = fmax(v, __shfl_down_sync(0xffffffffu, v, o));
  return v;
}

/// pre = product + bias[n] (no bias for an epilogue without one); ref = the epilogue's output
/// (kernels/core/epilogue_reference.hpp; residual[i] added where it reads one); *sum_sq_pre
/// accumulates Σ pre² over the grid.
__global__ void __launch_bounds__(kBlock)
    apply_reference_epilogue(const double* product, const double* bias, const double* residual, double* ref,
                             long long count, int n, EpilogueReads reads, Activation activation,
                             double* sum_sq_pre) {
  const bool uses_bias = reads.column_bias;
  double sq = 0;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const double pre = product[i] + (uses_bias ? bias[i % n] : 0.0);
    sq += pre * pre;
    ref[i] = reference_epilogue(reads, activation, product[i], bias[i % n], residual ? residual[i] : 0.0);
  }
  add_block_sum(sq, sum_sq_pre);
}

/// The gated reference (EpilogueReads::gated): ref[i] = act(product[2i]) · product[2i+1] for the
/// `count` = M·N/2 outputs (row-major M×N/2: output (m, j) is i = m·N/2 + j, whose gate and up
/// products (m, 2j) and (m, 2j+1) are 2i and 2i+1 of the row-major M×N product); *sum_sq_pre
/// accumulates Σ product² over all M·N products.
__global__ void __launch_bounds__(kBlock)
    apply_reference_gated(const double* product, double* ref, long long count, Activation activation,
                          double* sum_sq_pre) {
  double sq = 0;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const double g = product[2 * i], u = product[2 * i + 1];
    sq += g * g + u * u;
    ref[i] = reference_gated(activation, g, u);
  }
  add_block_sum(sq, sum_sq_pre);
}

/// Sums and maxima of the comparison, reduced over the whole grid with atomics. The maxima are
/// of non-negative doubles, whose bit patterns order like unsigned integers.
struct ErrorSums {
  double sum_sq_err;
  double sum_sq_ref;
  unsigned long long max_abs_err_bits;
  unsigned long long max_abs_ref_bits;
  unsigned long long max_scaled_err_bits;
  unsigned long long non_finite;
};

/// Compares out (storage type T) with ref; the elementwise figure divides each error by
/// |pre| + rms(pre), with pre = product + bias[n] as in apply_reference_epilogue, plus
/// |residual[i]| where the epilogue adds one (C's rounding scales with the sum it rounds); for a
/// gated output i by (|gate| + rms)·(|up| + rms), its products 2i and 2i+1 (apply_reference_gated).
template <class T>
__global__ void __launch_bounds__(kBlock)
    compare(const T* out, const double* ref, const double* product, const double* bias, const double* residual,
            int n, bool uses_bias, bool gated, double rms_pre, long long count, ErrorSums* sums) {
  double sq_err = 0, sq_ref = 0, max_err = 0, max_ref = 0, max_scaled = 0, non_finite = 0;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const double r = ref[i];
    sq_ref += r * r;
    max_ref = fmax(max_ref, fabs(r));
    const float o = to_float(out[i]);
    if (!isfinite(o)) {
      non_finite += 1;
      continue;
    }
    const double e = fabs(static_cast<double>(o) - r);
    sq_err += e * e;
    max_err = fmax(max_err, e);
    if (gated) {
      max_scaled = fmax(max_scaled, e / ((fabs(product[2 * i]) + rms_pre) * (fabs(product[2 * i + 1]) + rms_pre)));
    } else {
      const double pre = product[i] + (uses_bias ? bias[i % n] : 0.0);
      max_scaled = fmax(max_scaled, e / (fabs(pre) + (residual ? fabs(residual[i]) : 0.0) + rms_pre));
    }
  }
  __shared__ double partial[6][kBlock / 32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  sq_err = warp_sum(sq_err);
  sq_ref = warp_sum(sq_ref);
  non_finite = warp_sum(non_finite);
  max_err = warp_max(max_err);
  max_ref = warp_max(max_ref);
  max_scaled = warp_max(max_scaled);
  if (lane == 0) {
    partial[0][warp] = sq_err;
    partial[1][warp] = sq_ref;
    partial[2][warp] = non_finite;
    partial[3][warp] = max_err;
    partial[4][warp] = max_ref;
    partial[5][warp] = max_scaled;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < kBlock / 32; ++w) {
      sq_err += partial[0][w];
      sq_ref += partial[1][w];
      non_finite += partial[2][w];
      max_err = fmax(max_err, partial[3][w]);
      max_ref = fmax(max_ref, partial[4][w]);
      max_scaled = fmax(max_scaled, partial[5][w]);
    }
    atomicAdd(&sums->sum_sq_err, sq_err);
    atomicAdd(&sums->sum_sq_ref, sq_ref);
    atomicAdd(&sums->non_finite, static_cast<unsigned long long>(non_finite));
    atomicMax(&sums->max_abs_err_bits, static_cast<unsigned long long>(__double_as_longlong(max_err)));
    atomicMax(&sums->max_abs_ref_bits, static_cast<unsigned long long>(__double_as_longlong(max_ref)));
    atomicMax(&sums->max_scaled_err_bits, static_cast<unsigned long long>(__double_as_longlong(max_scaled)));
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
  DeviceBuffer<double> a64, b64, bias64;  // the stored inputs widened (exactly) to fp64
  DeviceBuffer<double> residual64;        // the same of the residual, for an epilogue with one
  DeviceBuffer<double> product;           // A·B in fp64
  DeviceBuffer<double> ref;               // activation(product + bias) for `kind`
  DeviceBuffer<double> sum_sq_pre{1};
  double rms_pre = 0;                     // rms of product + bias, for the elementwise figure
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

namespace {
std::size_t elements_bytes(long long count, Element e) {
  return static_cast<std::size_t>(count) * static_cast<std::size_t>(element_bytes(e));
}
}  // namespace

Workspace::Workspace(const Problem& problem, unsigned long long seed, cudaStream_t stream)
    : problem_(validated(problem)),
      seed_(seed),
      stream_(stream),
      a_(elements_bytes(static_cast<long long>(problem.m) * problem.k, problem.types().a)),
      b_(elements_bytes(static_cast<long long>(problem.k) * problem.n, problem.types().b)),
      bias_(elements_bytes(problem.n, problem.types().bias)),
      c_(elements_bytes(static_cast<long long>(problem.m) * problem.n, problem.types().c)),
      residual_(epilogue_spec(problem.epilogue).reads.residual
                    ? elements_bytes(static_cast<long long>(problem.m) * problem.n, problem.types().c)
                    : 0),
      intermediate_(epilogue_spec(problem.epilogue).reads.gated
                        ? elements_bytes(static_cast<long long>(problem.m) * problem.n, problem.types().c)
                        : 0),
      ref_(std::make_unique<Reference>(stream)) {
  refill(seed);
  poison_output();
}

Workspace::~Workspace() = default;

void Workspace::refill(unsigned long long seed, Inputs inputs) {
  seed_ = seed;
  inputs_ = inputs;
  const GemmTypes t = types();
  const long long m = problem_.m, n = problem_.n, k = problem_.k;
  // Bend inputs scale A so that A·B has a standard deviation of 1 (each of the K products has
  // variance 1/9 before scaling): pre-activations then mostly fall in [-3, 3].
  const float a_scale = inputs == Inputs::bend ? static_cast<float>(3.0 / std::sqrt(static_cast<double>(k))) : 1.0f;
  // One independent stream per buffer: the buffer's number is mixed into the key.
  struct Fill { void* p; long long count; Element e; unsigned long long id; float scale; };
  for (const Fill& f : {Fill{a_.get(), m * k, t.a, 1, a_scale}, Fill{b_.get(), k * n, t.b, 2, 1.0f},
                        Fill{bias_.get(), n, t.bias, 3, 1.0f},
                        Fill{residual_.get(), residual_.get() ? m * n : 0, t.c, 4, 1.0f}}) {
    if (f.count == 0) continue;
    const unsigned long long key = splitmix64(seed ^ splitmix64(f.id * kGolden));
    with_storage(f.e, [&](auto tag) {
      using T = decltype(tag);
      fill_uniform<T><<<blocks_for(f.count), kBlock, 0, stream_>>>(static_cast<T*>(f.p), f.count, key, f.scale);
    });
    COALESCE_CUDA_CTX(cudaGetLastError(), "fill_uniform (workspace inputs)");
  }
  ref_->product_valid = false;
  ref_->kind.reset();
}

void Workspace::poison_output(cudaStream_t stream) const {
  // All-ones bytes are a quiet NaN in f32 and a NaN in bf16 and f16.
  COALESCE_CUDA(cudaMemsetAsync(c_.get(), 0xff, c_.bytes(), stream ? stream : stream_));
}

namespace {

// Counts the 32-bit words where a and b differ (a trailing partial word compared bytewise).
__global__ void count_differences(const unsigned* __restrict__ a, const unsigned* __restrict__ b, long long words,
                                  const unsigned char* __restrict__ a_tail, const unsigned char* __restrict__ b_tail,
                                  int tail_bytes, unsigned long long* __restrict__ out) {
  unsigned long long local = 0;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < words;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    local += a[i] != b[i];
  if (blockIdx.x == 0 && threadIdx.x == 0)
    for (int j = 0; j < tail_bytes; ++j) local += a_tail[j] != b_tail[j];
  if (local) atomicAdd(out, local);
}

}  // namespace

void Workspace::snapshot_output() {
  if (c_snapshot_.size() != c_.size()) c_snapshot_ = DeviceBuffer<unsigned char>(c_.size());
  COALESCE_CUDA(cudaMemcpyAsync(c_snapshot_.get(), c_.get(), c_.bytes(), cudaMemcpyDeviceToDevice, stream_));
}

long long Workspace::output_differs() {
  if (c_snapshot_.size() != c_.size()) throw std::logic_error("output_differs() before snapshot_output()");
  DeviceBuffer<unsigned long long> count(1);
  COALESCE_CUDA(cudaMemsetAsync(count.get(), 0, sizeof(unsigned long long), stream_));
  const long long words = static_cast<long long>(c_.bytes() / 4);
  const int tail = static_cast<int>(c_.bytes() % 4);
  const long long blocks = std::min<long long>(1024, std::max<long long>(1, (words + 255) / 256));
  count_differences<<<static_cast<unsigned>(blocks), 256, 0, stream_>>>(
      reinterpret_cast<const unsigned*>(c_.get()), reinterpret_cast<const unsigned*>(c_snapshot_.get()), words,
      c_.get() + words * 4, c_snapshot_.get() + words * 4, tail, count.get());
  COALESCE_CUDA(cudaGetLastError());
  unsigned long long host = 0;
  COALESCE_CUDA(cudaMemcpyAsync(&host, count.get(), sizeof host, cudaMemcpyDeviceToHost, stream_));
  COALESCE_CUDA(cudaStreamSynchronize(stream_));
  return static_cast<long long>(host);
}

const double* Workspace::reference(const ReferenceKind& kind) {
  Reference& r = *ref_;
  const long long m = problem_.m, n = problem_.n, k = problem_.k;
  const GemmTypes t = types();
  if (!r.product_valid) {
    if (!r.product.get()) {
      r.a64 = DeviceBuffer<double>(static_cast<std::size_t>(m * k));
      r.b64 = DeviceBuffer<double>(static_cast<std::size_t>(k * n));
      r.bias64 = DeviceBuffer<double>(static_cast<std::size_t>(n));
      if (residual_.get()) r.residual64 = DeviceBuffer<double>(static_cast<std::size_t>(m * n));
      r.product = DeviceBuffer<double>(static_cast<std::size_t>(m * n));
      r.ref = DeviceBuffer<double>(static_cast<std::size_t>(m * n));
    }
    struct Widen { const void* p; double* out; long long count; Element e; };
    for (const Widen& w : {Widen{a_.get(), r.a64.get(), m * k, t.a}, Widen{b_.get(), r.b64.get(), k * n, t.b},
                           Widen{bias_.get(), r.bias64.get(), n, t.bias},
                           Widen{residual_.get(), r.residual64.get(), residual_.get() ? m * n : 0, t.c}}) {
      if (w.count == 0) continue;
      with_storage(w.e, [&](auto tag) {
        using T = decltype(tag);
        widen<T><<<blocks_for(w.count), kBlock, 0, stream_>>>(static_cast<const T*>(w.p), w.out, w.count);
      });
    }
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
    COALESCE_CUDA(cudaMemsetAsync(r.sum_sq_pre.get(), 0, sizeof(double), stream_));
    // cuBLASLt's GELU_BIAS computes the tanh GELU where it stands in for the erf one.
    const EpilogueSpec& spec = epilogue_spec(kind.epilogue);
    if (spec.reads.residual && !residual_.get())
      throw std::logic_error(std::string("the reference of ") + spec.name + " needs a residual, and this workspace's " +
                             std::string(to_string(problem_.epilogue)) + " problem has none");
    const Activation activation =
        kind.tanh_gelu && spec.activation == Activation::gelu_erf ? Activation::gelu_tanh : spec.activation;
    if (spec.reads.gated)
      apply_reference_gated<<<blocks_for(m * n / 2), kBlock, 0, stream_>>>(r.product.get(), r.ref.get(), m * n / 2,
                                                                           activation, r.sum_sq_pre.get());
    else
      apply_reference_epilogue<<<blocks_for(m * n), kBlock, 0, stream_>>>(
          r.product.get(), r.bias64.get(), r.residual64.get(), r.ref.get(), m * n, problem_.n, spec.reads, activation,
          r.sum_sq_pre.get());
    COALESCE_CUDA_CTX(cudaGetLastError(), "apply_reference_epilogue (fp64 reference)");
    double sum_sq = 0;
    COALESCE_CUDA(cudaMemcpyAsync(&sum_sq, r.sum_sq_pre.get(), sizeof sum_sq, cudaMemcpyDeviceToHost, stream_));
    COALESCE_CUDA_CTX(cudaStreamSynchronize(stream_), "fp64 reference");
    r.rms_pre = std::sqrt(sum_sq / static_cast<double>(m * n));
    r.kind = kind;
  }
  return r.ref.get();
}

ErrorFigures Workspace::error_figures(const ReferenceKind& kind) {
  const double* ref = reference(kind);
  // C's columns under the kind's epilogue: the GEMM's N, or N/2 for a gated one.
  const long long count = problem_.m * output_columns(epilogue_spec(kind.epilogue).reads, problem_.n);
  COALESCE_CUDA(cudaMemsetAsync(ref_->sums.get(), 0, sizeof(ErrorSums), stream_));
  const bool uses_bias = epilogue_spec(kind.epilogue).reads.column_bias;
  // A reference of all zeros (K products of zeros cannot happen with these draws) would make
  // every scale zero; the floor keeps the figure finite and an error still infinite relative to it.
  const double rms = ref_->rms_pre > 0 ? ref_->rms_pre : 1e-300;
  with_storage(types().c, [&](auto tag) {
    using T = decltype(tag);
    compare<T><<<blocks_for(count), kBlock, 0, stream_>>>(static_cast<const T*>(static_cast<const void*>(c_.get())), ref,
                                                          ref_->product.get(), ref_->bias64.get(),
                                                          epilogue_spec(kind.epilogue).reads.residual
                                                              ? ref_->residual64.get()
                                                              : nullptr,
                                                          problem_.n, uses_bias,
                                                          epilogue_spec(kind.epilogue).reads.gated, rms, count,
                                                          ref_->sums.get());
  });
  COALESCE_CUDA_CTX(cudaGetLastError(), "compare (correctness check)");
  ErrorSums sums{};
  COALESCE_CUDA(cudaMemcpyAsync(&sums, ref_->sums.get(), sizeof sums, cudaMemcpyDeviceToHost, stream_));
  COALESCE_CUDA_CTX(cudaStreamSynchronize(stream_), "correctness check");
  ErrorFigures f;
  f.count = count;
  f.non_finite = static_cast<long long>(sums.non_finite);
  std::memcpy(&f.max_abs_err, &sums.max_abs_err_bits, sizeof(double));
  std::memcpy(&f.max_abs_ref, &sums.max_abs_ref_bits, sizeof(double));
  std::memcpy(&f.max_scaled_err, &sums.max_scaled_err_bits, sizeof(double));
  f.rel_frobenius = sums.sum_sq_ref > 0 ? std::sqrt(sums.sum_sq_err / sums.sum_sq_ref)
                                        : (sums.sum_sq_err > 0 ? INFINITY : 0.0);
  return f;
}

CheckResult Workspace::check(const ReferenceKind& kind) {
  return judge(error_figures(kind), tolerance_for(problem_, kind.roundings));
}

}  // namespace coalesce
