// The correctness check itself: the fp64 reference equals a host fp64 computation, inputs are
// random and fresh, and the f32 tolerance rejects each classic bug (transposed operand, dropped
// K slice, bias indexed by row, an unwritten row, TF32 math) while passing a correct kernel.
#include <cublas_v2.h>

#include <cmath>
#include <set>
#include <vector>

#include "gpu_test.hpp"
#include "harness/cuda_check.hpp"
#include "harness/method.hpp"
#include "harness/workspace.hpp"
#include "kernels/epilogue.cuh"

namespace {

using namespace coalesce;

std::vector<float> to_host(const float* d, std::size_t count) {
  std::vector<float> h(count);
  COALESCE_CUDA(cudaMemcpy(h.data(), d, count * sizeof(float), cudaMemcpyDeviceToHost));
  return h;
}

double host_epilogue(double x, Epilogue e, bool tanh_gelu) {
  switch (e) {
    case Epilogue::none:
    case Epilogue::bias: return x;
    case Epilogue::bias_relu: return x > 0 ? x : 0;
    case Epilogue::bias_gelu:
      return tanh_gelu ? 0.5 * x * (1 + std::tanh(0.79788456080286535588 * (x + 0.044715 * x * x * x)))
                       : 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
  }
  return x;
}

// Rectangular and odd so that a swapped M/N/K or leading dimension in the DGEMM call shows.
TEST(Reference, MatchesHostFp64ForEveryEpilogue) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  const Problem p{37, 53, 71, Dtype::f32, Epilogue::bias_gelu};
  Workspace ws(p, 7, stream.get());
  const std::vector<float> a = to_host(ws.a(), 37 * 71), b = to_host(ws.b(), 71 * 53),
                           bias = to_host(ws.bias(), 53);
  for (Epilogue e : {Epilogue::none, Epilogue::bias, Epilogue::bias_relu, Epilogue::bias_gelu}) {
    for (bool tanh_gelu : {false, true}) {
      std::vector<double> ref(37 * 53);
      COALESCE_CUDA(cudaMemcpy(ref.data(), ws.reference({e, tanh_gelu}), ref.size() * sizeof(double),
                               cudaMemcpyDeviceToHost));
      double worst = 0;
      for (int m = 0; m < p.m; ++m)
        for (int n = 0; n < p.n; ++n) {
          double acc = 0;
          for (int k = 0; k < p.k; ++k) acc += double(a[m * p.k + k]) * double(b[k * p.n + n]);
          const double expect = host_epilogue(acc + (e == Epilogue::none ? 0.0 : bias[n]), e, tanh_gelu);
          worst = std::max(worst, std::abs(ref[m * p.n + n] - expect));
        }
      EXPECT_LT(worst, 1e-12) << "epilogue " << to_string(e) << (tanh_gelu ? " (tanh)" : "");
    }
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

// A one-thread-per-output GEMM with an erf-GELU epilogue, correct or with one planted bug.
enum class Bug { none, transposed_b, dropped_last_k_slice, bias_by_row, unwritten_last_row };
constexpr int kSlice = 8;  // the dropped K slice: the narrowest BK any kernel here uses

template <Bug kBug>
__global__ void planted_gemm(const float* A, const float* B, const float* bias, float* C, int M, int N, int K) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x, m = blockIdx.y;
  if (n >= N || m >= M) return;
  if (kBug == Bug::unwritten_last_row && m == M - 1) return;
  const int k_end = kBug == Bug::dropped_last_k_slice ? ((K - 1) / kSlice) * kSlice : K;
  float acc = 0;
  for (int k = 0; k < k_end; ++k)
    acc += A[(long long)m * K + k] * (kBug == Bug::transposed_b ? B[(long long)n * K + k] : B[(long long)k * N + n]);
  const float b = kBug == Bug::bias_by_row ? bias[m] : bias[n];
  C[(long long)m * N + n] = EpilogueBiasGeluErf::apply(acc, b);
}

template <Bug kBug>
Method planted_method(Workspace& ws) {
  Method m;
  m.method = "coalesce";
  m.family = "planted";
  m.config = "planted_bug_" + std::to_string(static_cast<int>(kBug));
  m.reference_epilogue = Epilogue::bias_gelu;
  const Problem p = ws.problem();
  m.launch = [&ws, p, name = m.config](cudaStream_t s) {
    planted_gemm<kBug><<<dim3((p.n + 127) / 128, p.m), 128, 0, s>>>(ws.a(), ws.b(), ws.bias(), ws.c(), p.m, p.n, p.k);
    COALESCE_CUDA_CTX(cudaGetLastError(), name);
  };
  return m;
}

// Each bug is planted where it is hardest to see: the transposed operand in a square problem
// (where it stays in bounds), the dropped 8-wide slice out of K = 4096, the row-indexed bias
// where the products are largest (K = 8192).
TEST(Check, PassesTheCorrectKernelAndCatchesEachPlantedBug) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  Workspace square({512, 512, 512, Dtype::f32, Epilogue::bias_gelu}, 1, stream.get());
  Workspace deep({256, 256, 4096, Dtype::f32, Epilogue::bias_gelu}, 2, stream.get());
  Workspace deepest({256, 256, 8192, Dtype::f32, Epilogue::bias_gelu}, 3, stream.get());

  for (Workspace* ws : {&square, &deep, &deepest}) {
    const CheckResult ok = check_method(planted_method<Bug::none>(*ws), *ws);
    EXPECT_TRUE(ok.passed) << ok.why;
    EXPECT_LT(ok.errors.rel_frobenius, 1e-5);  // FP32 lands well inside the 1e-4 tolerance
    EXPECT_EQ(ok.errors.non_finite, 0);
  }
  const CheckResult transposed = check_method(planted_method<Bug::transposed_b>(square), square);
  EXPECT_FALSE(transposed.passed);
  EXPECT_GT(transposed.errors.rel_frobenius, 0.1);
  const CheckResult dropped = check_method(planted_method<Bug::dropped_last_k_slice>(deep), deep);
  EXPECT_FALSE(dropped.passed);
  EXPECT_GT(dropped.errors.rel_frobenius, 100 * dropped.tolerance.rel_frobenius);
  const CheckResult row_bias = check_method(planted_method<Bug::bias_by_row>(deepest), deepest);
  EXPECT_FALSE(row_bias.passed);
  EXPECT_GT(row_bias.errors.rel_frobenius, 10 * row_bias.tolerance.rel_frobenius);
  const CheckResult unwritten = check_method(planted_method<Bug::unwritten_last_row>(square), square);
  EXPECT_FALSE(unwritten.passed);
  EXPECT_EQ(unwritten.errors.non_finite, 512);
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
  EXPECT_LT(r.errors.rel_frobenius, 2e-3);  // ... yet within the tf32 tolerance
}

}  // namespace
