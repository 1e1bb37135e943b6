// Rung 0: vector add against a host reference on random inputs, with a poisoned output.
#include <cmath>
#include <random>
#include <vector>

#include "gpu_test.hpp"
#include "harness/cuda_check.hpp"
#include "kernels/rungs/vector_add.cuh"

TEST(VectorAdd, MatchesHostOnRandomInput) {
  COALESCE_REQUIRE_GPU();
  const long long n = (1 << 22) + 17;  // not a multiple of the block
  std::mt19937 rng(1234);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> a(n), b(n), c(n);
  for (long long i = 0; i < n; ++i) { a[i] = dist(rng); b[i] = dist(rng); }
  float *da, *db, *dc;
  COALESCE_CUDA(cudaMalloc(&da, n * 4));
  COALESCE_CUDA(cudaMalloc(&db, n * 4));
  COALESCE_CUDA(cudaMalloc(&dc, n * 4));
  COALESCE_CUDA(cudaMemcpy(da, a.data(), n * 4, cudaMemcpyHostToDevice));
  COALESCE_CUDA(cudaMemcpy(db, b.data(), n * 4, cudaMemcpyHostToDevice));
  COALESCE_CUDA(cudaMemset(dc, 0xff, n * 4));  // NaN: an unwritten element fails
  coalesce::vector_add<<<1024, 256>>>(da, db, dc, n);
  COALESCE_CUDA(cudaGetLastError());
  COALESCE_CUDA(cudaMemcpy(c.data(), dc, n * 4, cudaMemcpyDeviceToHost));
  long long bad = 0;
  for (long long i = 0; i < n; ++i)
    if (!(c[i] == a[i] + b[i])) ++bad;
  EXPECT_EQ(bad, 0);
  cudaFree(da); cudaFree(db); cudaFree(dc);
}
