// The fused kernels' exact GELU (kernels/core/epilogue.cuh, gelu_exact = x·Φ(x) from one erfc
// evaluation) against fp64, band by band over x, beside PyTorch's formula gelu_erf
// (x/2·(1 + erff(x/√2)), what the baselines compute): gelu_exact must stay within a few f32 ulps
// where GELU is not tiny, and be at least as accurate as PyTorch's formula in every band.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "gpu_test.hpp"
#include "harness/cuda_check.hpp"
#include "kernels/core/epilogue.cuh"

namespace {

__global__ void both_gelus(const float* x, float* exact, float* torch, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    exact[i] = coalesce::gelu_exact(x[i]);
    torch[i] = coalesce::gelu_erf(x[i]);
  }
}

struct Band {
  float lo, hi;
  double bound;  // the largest relative error gelu_exact may have in the band
  double exact = 0, torch = 0;
  float exact_at = 0;
};

TEST(Epilogue, ExactGeluIsWithinAFewUlpsAndNoWorseThanPyTorchsFormula) {
  COALESCE_REQUIRE_GPU();
  // Every band ends where GELU leaves f32's normal range (x ≈ -13.2).
  std::vector<Band> bands = {
      {-12.0f, -8.0f, 4e-5}, {-8.0f, -5.0f, 1.5e-5}, {-5.0f, -3.0f, 5e-6}, {-3.0f, 10.0f, coalesce::gelu::kMaxRelError}};
  const int n = 1 << 22;
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i) x[i] = -12.0f + 22.0f * static_cast<float>(i) / static_cast<float>(n - 1);
  float *dx = nullptr, *de = nullptr, *dt = nullptr;
  COALESCE_CUDA(cudaMalloc(&dx, n * sizeof(float)));
  COALESCE_CUDA(cudaMalloc(&de, n * sizeof(float)));
  COALESCE_CUDA(cudaMalloc(&dt, n * sizeof(float)));
  COALESCE_CUDA(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  both_gelus<<<(n + 255) / 256, 256>>>(dx, de, dt, n);
  COALESCE_CUDA(cudaGetLastError());
  std::vector<float> exact(n), torch(n);
  COALESCE_CUDA(cudaMemcpy(exact.data(), de, n * sizeof(float), cudaMemcpyDeviceToHost));
  COALESCE_CUDA(cudaMemcpy(torch.data(), dt, n * sizeof(float), cudaMemcpyDeviceToHost));
  COALESCE_CUDA(cudaFree(dx));
  COALESCE_CUDA(cudaFree(de));
  COALESCE_CUDA(cudaFree(dt));

  for (int i = 0; i < n; ++i) {
    const double xi = x[i];
    const double ref = 0.5 * xi * std::erfc(-xi / std::sqrt(2.0));
    if (ref == 0.0) continue;  // x = 0
    for (Band& b : bands) {
      if (x[i] < b.lo || x[i] >= b.hi) continue;
      const double e = std::fabs(exact[i] - ref) / std::fabs(ref), t = std::fabs(torch[i] - ref) / std::fabs(ref);
      if (e > b.exact) b.exact = e, b.exact_at = x[i];
      if (t > b.torch) b.torch = t;
    }
  }
  for (const Band& b : bands) {
    std::printf("  x in [%6.1f, %5.1f): gelu_exact %.3g (at %g), PyTorch's formula %.3g, bound %.3g\n", b.lo, b.hi,
                b.exact, b.exact_at, b.torch, b.bound);
    EXPECT_LE(b.exact, b.bound) << "band [" << b.lo << ", " << b.hi << ") at x = " << b.exact_at;
    EXPECT_LE(b.exact, b.torch) << "band [" << b.lo << ", " << b.hi << ")";
  }
}

// Infinities as erff's formula gives them; NaN propagates.
TEST(Epilogue, ExactGeluAtTheEdgesOfF32) {
  COALESCE_REQUIRE_GPU();
  const std::vector<float> x = {INFINITY, -INFINITY, NAN, 0.0f, 1e30f, -1e30f};
  const int n = static_cast<int>(x.size());
  float *dx = nullptr, *de = nullptr, *dt = nullptr;
  COALESCE_CUDA(cudaMalloc(&dx, n * sizeof(float)));
  COALESCE_CUDA(cudaMalloc(&de, n * sizeof(float)));
  COALESCE_CUDA(cudaMalloc(&dt, n * sizeof(float)));
  COALESCE_CUDA(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  both_gelus<<<1, 32>>>(dx, de, dt, n);
  std::vector<float> exact(n), torch(n);
  COALESCE_CUDA(cudaMemcpy(exact.data(), de, n * sizeof(float), cudaMemcpyDeviceToHost));
  COALESCE_CUDA(cudaMemcpy(torch.data(), dt, n * sizeof(float), cudaMemcpyDeviceToHost));
  COALESCE_CUDA(cudaFree(dx));
  COALESCE_CUDA(cudaFree(de));
  COALESCE_CUDA(cudaFree(dt));
  EXPECT_EQ(exact[0], INFINITY);
  EXPECT_TRUE(std::isnan(exact[1]) && std::isnan(torch[1]));  // -inf · 0, both ways
  EXPECT_TRUE(std::isnan(exact[2]));
  EXPECT_EQ(exact[3], 0.0f);
  EXPECT_EQ(exact[4], 1e30f);
  EXPECT_EQ(exact[5], torch[5]);
}

}  // namespace
