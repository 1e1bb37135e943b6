// The correctness check itself: the fp64 reference equals a host fp64 computation, inputs are
// random, fresh and rounded once to the dtype's storage, and in every dtype at small and large K
// the tolerance rejects each classic bug (transposed operand, dropped K slice, bias by row or
// missing, doubled or missing in one tile, an unwritten row, a wrong edge tile, ReLU for GELU on
// the bend inputs, TF32 math in an f32 GEMM) while passing a correct kernel.
#include <cublas_v2.h>

#include <cmath>
#include <set>
#include <vector>

#include "gpu_test.hpp"
#include "harness/cuda_check.hpp"
#include "harness/method.hpp"
#include "harness/workspace.hpp"
#include "kernels/core/epilogue.cuh"
#include "kernels/core/numeric.cuh"

namespace {

using namespace coalesce;

std::vector<float> to_host(const void* d, std::size_t count) {
  std::vector<float> h(count);
  COALESCE_CUDA(cudaMemcpy(h.data(), d, count * sizeof(float), cudaMemcpyDeviceToHost));
  return h;
}

// The activation of each epilogue (a residual is added by the caller), written here apart from
// kernels/core/epilogue_reference.hpp.
double host_epilogue(double x, Epilogue e, bool tanh_gelu) {
  auto tanh_form = [](double x) { return 0.5 * x * (1 + std::tanh(0.79788456080286535588 * (x + 0.044715 * x * x * x))); };
  switch (e) {
    case Epilogue::none:
    case Epilogue::bias: return x;
    case Epilogue::bias_relu: return x > 0 ? x : 0;
    case Epilogue::bias_gelu:
    case Epilogue::bias_gelu_residual: return tanh_gelu ? tanh_form(x) : 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
    case Epilogue::bias_gelu_tanh: return tanh_form(x);
    case Epilogue::bias_silu:
    case Epilogue::swiglu: return x / (1 + std::exp(-x));
    case Epilogue::geglu: return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
  }
  return x;
}

// Rectangular and odd so that a swapped M/N/K or leading dimension in the DGEMM call shows.
TEST(Reference, MatchesHostFp64ForEveryEpilogue) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  // The residual epilogue's problem, so the workspace holds a residual for its reference.
  const Problem p{37, 53, 71, Dtype::f32, Epilogue::bias_gelu_residual};
  Workspace ws(p, 7, stream.get());
  const std::vector<float> a = to_host(ws.a(), 37 * 71), b = to_host(ws.b(), 71 * 53),
                           bias = to_host(ws.bias(), 53), residual = to_host(ws.residual(), 37 * 53);
  for (Epilogue e : all_epilogues()) {
    if (epilogue_spec(e).reads.gated) continue;  // N/2 columns of pairs: the next test
    for (bool tanh_gelu : {false, true}) {
      std::vector<double> ref(37 * 53);
      COALESCE_CUDA(cudaMemcpy(ref.data(), ws.reference({e, tanh_gelu}), ref.size() * sizeof(double),
                               cudaMemcpyDeviceToHost));
      double worst = 0;
      for (int m = 0; m < p.m; ++m)
        for (int n = 0; n < p.n; ++n) {
          double acc = 0;
          for (int k = 0; k < p.k; ++k) acc += double(a[m * p.k + k]) * double(b[k * p.n + n]);
          const double expect = host_epilogue(acc + (e == Epilogue::none ? 0.0 : bias[n]), e, tanh_gelu) +
                                (e == Epilogue::bias_gelu_residual ? residual[m * p.n + n] : 0.0);
          worst = std::max(worst, std::abs(ref[m * p.n + n] - expect));
        }
      EXPECT_LT(worst, 1e-12) << "epilogue " << to_string(e) << (tanh_gelu ? " (tanh)" : "");
    }
  }
}

// A gated reference is M x N/2: act(gate) * up of each interleaved pair of the product, checked
// against the host at an odd M, an N/2 that is odd and an odd K.
TEST(Reference, GatedIsTheActivatedGateTimesUpOfEachPair) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  for (Epilogue e : {Epilogue::swiglu, Epilogue::geglu}) {
    const Problem p{37, 54, 71, Dtype::f32, e};
    Workspace ws(p, 8, stream.get());
    const std::vector<float> a = to_host(ws.a(), 37 * 71), b = to_host(ws.b(), 71 * 54);
    std::vector<double> ref(37 * 27);
    COALESCE_CUDA(cudaMemcpy(ref.data(), ws.reference({e, false}), ref.size() * sizeof(double), cudaMemcpyDeviceToHost));
    double worst = 0;
    for (int m = 0; m < p.m; ++m)
      for (int j = 0; j < p.n / 2; ++j) {
        double gate = 0, up = 0;
        for (int k = 0; k < p.k; ++k) {
          gate += double(a[m * p.k + k]) * double(b[k * p.n + 2 * j]);
          up += double(a[m * p.k + k]) * double(b[k * p.n + 2 * j + 1]);
        }
        worst = std::max(worst, std::abs(ref[m * (p.n / 2) + j] - host_epilogue(gate, e, false) * up));
      }
    EXPECT_LT(worst, 1e-12) << to_string(e);
  }
}

TEST(Workspace, InputsAreRandomInRangeAndFreshAfterRefill) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  Workspace ws({256, 192, 128, Dtype::f32, Epilogue::bias}, 11, stream.get());
  const std::vector<float> a = to_host(ws.a(), 256 * 128);
  std::set<float> distinct(a.begin(), a.end());
  EXPECT_GT(distinct.size(), a.size() * 9 / 10);  // 24 random bits: few collisions in 32K draws
  double sum = 0;
  for (float x : a) {
    ASSERT_GE(x, -1.0f);
    ASSERT_LT(x, 1.0f);
    sum += x;
  }
  EXPECT_LT(std::abs(sum / a.size()), 0.02);  // mean of uniform[-1,1): 0 ± 0.0032 (1 sigma)
  ws.refill_next();
  const std::vector<float> a2 = to_host(ws.a(), 256 * 128);
  int same = 0;
  for (std::size_t i = 0; i < a.size(); ++i) same += a[i] == a2[i];
  EXPECT_LT(same, 100);
  ws.refill(11);  // the seed reproduces the inputs
  EXPECT_EQ(to_host(ws.a(), 256 * 128), a);
}

// A one-thread-per-output GEMM with an erf-GELU epilogue in storage type T (f32 accumulation,
// TF32 operands when asked, one rounding of C), correct or with one planted bug.
enum class Bug {
  none,
  transposed_b,
  dropped_last_k_slice,
  dropped_last_k,
  bias_by_row,
  missing_bias,
  doubled_bias,
  tile_without_bias,
  unwritten_last_row,
  wrong_edge_tile,
  relu_for_gelu,
};
constexpr int kSlice = 8;  // the dropped K slice: the narrowest BK any kernel here uses
constexpr int kTile = 64;  // the tile edge of the tile and edge-tile bugs

__device__ float tf32_operand(float x) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return __uint_as_float(r);
}

template <class T, bool kTf32>
__global__ void planted_gemm(const T* A, const T* B, const T* bias, T* C, int M, int N, int K, Bug bug) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x, m = blockIdx.y;
  if (n >= N || m >= M) return;
  if (bug == Bug::unwritten_last_row && m == M - 1) return;
  // The last tile column computes its neighbour's values (a wrong tile origin).
  const int n_read = bug == Bug::wrong_edge_tile && n >= ((N - 1) / kTile) * kTile && n >= kTile ? n - kTile : n;
  int k_end = K;
  if (bug == Bug::dropped_last_k_slice) k_end = ((K - 1) / kSlice) * kSlice;
  if (bug == Bug::dropped_last_k) k_end = K - 1;
  float acc = 0;
  for (int k = 0; k < k_end; ++k) {
    float a = to_float(A[(long long)m * K + k]);
    float b = to_float(bug == Bug::transposed_b ? B[(long long)n_read * K + k] : B[(long long)k * N + n_read]);
    if (kTf32) {
      a = tf32_operand(a);
      b = tf32_operand(b);
    }
    acc = fmaf(a, b, acc);
  }
  float bv = to_float(bug == Bug::bias_by_row ? bias[m] : bias[n_read]);
  if (bug == Bug::missing_bias || (bug == Bug::tile_without_bias && m < kTile && n < kTile)) bv = 0;
  if (bug == Bug::doubled_bias) bv *= 2;
  const float y = bug == Bug::relu_for_gelu ? EpilogueFor<Epilogue::bias_relu>::apply(acc, bv) : EpilogueFor<Epilogue::bias_gelu>::apply(acc, bv);
  C[(long long)m * N + n] = from_float<T>(y);
}

Method planted_method(Workspace& ws, Bug bug) {
  Method m;
  m.method = "coalesce";
  m.family = "planted";
  m.config = "planted_bug_" + std::to_string(static_cast<int>(bug));
  m.reference_epilogue = Epilogue::bias_gelu;
  const Problem p = ws.problem();
  m.launch = [&ws, p, bug, name = m.config](cudaStream_t s) {
    const dim3 grid((p.n + 127) / 128, p.m);
    auto launch = [&](auto tag, auto tf32) {
      using T = decltype(tag);
      planted_gemm<T, decltype(tf32)::value><<<grid, 128, 0, s>>>(
          static_cast<const T*>(ws.a()), static_cast<const T*>(ws.b()), static_cast<const T*>(ws.bias()),
          static_cast<T*>(ws.c()), p.m, p.n, p.k, bug);
    };
    switch (p.dtype) {
      case Dtype::f32: launch(float{}, std::false_type{}); break;
      case Dtype::tf32: launch(float{}, std::true_type{}); break;
      case Dtype::bf16: launch(bf16_t{}, std::false_type{}); break;
      case Dtype::f16: launch(f16_t{}, std::false_type{}); break;
    }
    COALESCE_CUDA_CTX(cudaGetLastError(), name);
  };
  return m;
}

// In every dtype, at a small and a large K: the correct kernel passes on normal and bend inputs
// with room (see tests/unit/harness/check_test.cpp), and every planted bug fails. The transposed operand is planted in a
// square problem (where it stays in bounds); ReLU for GELU on the bend inputs, where the
// activations differ (at K = 8192 on normal inputs the two are 1e-3 apart normwise).
class PlantedBugs : public ::testing::TestWithParam<Dtype> {};

TEST_P(PlantedBugs, TheCheckPassesTheCorrectKernelAndCatchesEachBug) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  for (int k : {256, 8192}) {
    Workspace ws({256, 256, k, GetParam(), Epilogue::bias_gelu}, 1, stream.get());
    for (Inputs inputs : {Inputs::normal, Inputs::bend}) {
      const CheckResult ok = check_method(planted_method(ws, Bug::none), ws, inputs);
      EXPECT_TRUE(ok.passed) << "K " << k << ": " << ok.why;
      EXPECT_LT(ok.errors.rel_frobenius, 0.5 * ok.tolerance.rel_frobenius) << "K " << k;
      EXPECT_LT(ok.errors.max_scaled_err, 0.7 * ok.tolerance.max_scaled) << "K " << k;
    }
    for (Bug bug : {Bug::dropped_last_k_slice, Bug::dropped_last_k, Bug::bias_by_row, Bug::missing_bias,
                    Bug::doubled_bias, Bug::tile_without_bias, Bug::unwritten_last_row, Bug::wrong_edge_tile}) {
      const CheckResult r = check_method(planted_method(ws, bug), ws);
      EXPECT_FALSE(r.passed) << "K " << k << ", bug " << static_cast<int>(bug) << ": rel " << r.errors.rel_frobenius
                             << ", scaled " << r.errors.max_scaled_err;
    }
    const CheckResult relu = check_method(planted_method(ws, Bug::relu_for_gelu), ws, Inputs::bend);
    EXPECT_FALSE(relu.passed) << "K " << k << ": scaled " << relu.errors.max_scaled_err;
  }
  Workspace square({256, 256, 256, GetParam(), Epilogue::bias_gelu}, 2, stream.get());
  EXPECT_FALSE(check_method(planted_method(square, Bug::transposed_b), square).passed);
  const CheckResult unwritten = check_method(planted_method(square, Bug::unwritten_last_row), square);
  EXPECT_EQ(unwritten.errors.non_finite, 256);
}

INSTANTIATE_TEST_SUITE_P(EveryDtype, PlantedBugs, ::testing::Values(Dtype::f32, Dtype::tf32, Dtype::bf16, Dtype::f16),
                         [](const ::testing::TestParamInfo<Dtype>& info) { return std::string(to_string(info.param)); });

// A method that reads the storage types right: 16-bit inputs are rounded once (every value a
// bf16 or f16), and the reference is computed from exactly those values.
TEST(Workspace, SixteenBitInputsAreRoundedOnceToTheirType) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  for (Dtype d : {Dtype::bf16, Dtype::f16}) {
    Workspace ws({64, 64, 64, d, Epilogue::bias}, 3, stream.get());
    std::vector<unsigned short> bits(64 * 64);
    COALESCE_CUDA(cudaMemcpy(bits.data(), ws.a(), bits.size() * 2, cudaMemcpyDeviceToHost));
    std::set<unsigned short> distinct(bits.begin(), bits.end());
    EXPECT_GT(distinct.size(), 500u) << to_string(d);
    for (unsigned short b : bits) {
      // Finite and |x| <= 1 in both formats (a draw just below 1 rounds up to 1.0): the exponent
      // field is below the bias, or at it with a zero mantissa.
      const bool bf16 = d == Dtype::bf16;
      const unsigned exponent = bf16 ? (b >> 7) & 0xff : (b >> 10) & 0x1f;
      const unsigned mantissa = bf16 ? b & 0x7f : b & 0x3ff;
      const unsigned bias = bf16 ? 127u : 15u;
      ASSERT_TRUE(exponent < bias || (exponent == bias && mantissa == 0)) << to_string(d) << " bits " << b;
    }
  }
}

// The f32 tolerance is tight enough to notice TF32 tensor-core math (10-bit mantissa operands).
TEST(Check, F32ToleranceRejectsTf32Math) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  Workspace ws({1024, 1024, 1024, Dtype::f32, Epilogue::none}, 5, stream.get());
  cublasHandle_t h;
  ASSERT_EQ(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
  Method m;
  m.method = "cublas_gemm";
  m.family = "cublas";
  m.config = "cublasGemmEx_compute32f_fast_tf32";
  m.launch = [h, &ws](cudaStream_t s) {
    const float one = 1, zero = 0;
    cublasSetStream(h, s);
    ASSERT_EQ(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 1024, 1024, 1024, &one, ws.b(), CUDA_R_32F, 1024,
                           ws.a(), CUDA_R_32F, 1024, &zero, ws.c(), CUDA_R_32F, 1024,
                           CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT),
              CUBLAS_STATUS_SUCCESS);
  };
  const CheckResult r = check_method(m, ws);
  cublasDestroy(h);
  EXPECT_FALSE(r.passed) << "TF32 landed at " << r.errors.rel_frobenius;
  EXPECT_GT(r.errors.rel_frobenius, 1e-4);
  // ... yet within the tf32 tolerance for the same K
  EXPECT_LT(r.errors.rel_frobenius, tolerance_for({1024, 1024, 1024, Dtype::tf32}).rel_frobenius);
}

}  // namespace
