// Throwaway probe (not committed): correctness + timing of simt configs vs cuBLAS at 4096.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <random>
#include <algorithm>
#include <cmath>
#include <cublas_v2.h>
#include "kernels/simt_gemm.cuh"
#define CK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { printf("CUDA %s at %d: %s\n", #x, __LINE__, cudaGetErrorString(err_)); exit(1);} } while (0)
using namespace coalesce;
using K_t = void(*)(const float*, const float*, const float*, float*, int, int, int);
struct Entry { const char* name; K_t k; SimtConfig c; };
#define E(BM,BN,BK,WM,WN,TM,TN,S,V,G,O) { #BM "x" #BN "x" #BK " w" #WM "x" #WN " t" #TM "x" #TN " s" #S " v" #V " g" #G " o" #O, simt_gemm_kernel<SimtTile<BM,BN,BK,WM,WN,TM,TN,S,V,G,O>, EpilogueBiasGeluErf>, SimtTile<BM,BN,BK,WM,WN,TM,TN,S,V,G,O>::config }
Entry entries[] = {
  E(128,256,16,64,64,16,8,4,4,8,1),
  E(64,128,16,32,64,8,8,3,4,8,3),
};
static float gelu(double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }
int main(int argc, char** argv) {
  int S = argc > 1 ? atoi(argv[1]) : 4096;
  int M = S, N = S, K = S;
  size_t nA = (size_t)M*K, nB = (size_t)K*N, nC = (size_t)M*N;
  std::vector<float> A(nA), B(nB), bias(N), C(nC);
  std::mt19937 rng(7); std::uniform_real_distribution<float> d(-1, 1);
  for (auto& x : A) x = d(rng); for (auto& x : B) x = d(rng); for (auto& x : bias) x = d(rng);
  float *dA, *dB, *dbias, *dC, *flush; CK(cudaMalloc(&dA, nA*4)); CK(cudaMalloc(&dB, nB*4)); CK(cudaMalloc(&dbias, N*4)); CK(cudaMalloc(&dC, nC*4));
  size_t fl = 256u<<20; CK(cudaMalloc(&flush, fl));
  CK(cudaMemcpy(dA, A.data(), nA*4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(dB, B.data(), nB*4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(dbias, bias.data(), N*4, cudaMemcpyHostToDevice));
  // reference at 512 sampled points
  std::vector<int> ri(512), ci(512); for (int i = 0; i < 512; ++i) { ri[i] = rng() % M; ci[i] = rng() % N; }
  std::vector<double> ref(512);
  for (int s = 0; s < 512; ++s) { double acc = 0; for (int k = 0; k < K; ++k) acc += (double)A[(size_t)ri[s]*K+k] * B[(size_t)k*N+ci[s]]; ref[s] = gelu(acc + bias[ci[s]]); }
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  auto timeit = [&](auto launch) {
    for (int i = 0; i < 5; ++i) launch();
    std::vector<float> t;
    for (int i = 0; i < 30; ++i) { CK(cudaMemsetAsync(flush, i, fl)); CK(cudaEventRecord(e0)); launch(); CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1)); float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); t.push_back(ms); }
    std::sort(t.begin(), t.end()); return t[t.size()/2];
  };
  double flops = 2.0*M*N*K;
  cublasHandle_t h; cublasCreate(&h);
  float one = 1, zero = 0;
  auto cub = [&] { cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, dB, CUDA_R_32F, N, dA, CUDA_R_32F, K, &zero, dC, CUDA_R_32F, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT); };
  // warm-up 1 s
  if (argc <= 2) { auto t0 = clock(); while ((clock() - t0) < CLOCKS_PER_SEC) { cub(); CK(cudaDeviceSynchronize()); } }
  float tc = argc > 2 ? 1.f : timeit(cub);
  printf("%-50s %8.3f ms %7.2f TFLOP/s\n", "cublas sgemm (FP32, no TF32)", tc, flops/tc/1e9);
  int only = argc > 2 ? atoi(argv[2]) : -1; int idx = -1;
  for (auto& e : entries) {
    if (only >= 0 && ++idx != only) continue;
    int smem = e.c.smem_bytes();
    CK(cudaFuncSetAttribute(e.k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    cudaFuncAttributes fa; CK(cudaFuncGetAttributes(&fa, e.k));
    dim3 grid((unsigned)(((M + e.c.bm - 1) / e.c.bm) * ((N + e.c.bn - 1) / e.c.bn))), block(e.c.threads());
    auto run = [&] { e.k<<<grid, block, smem>>>(dA, dB, dbias, dC, M, N, K); };
    CK(cudaMemset(dC, 0xff, nC*4)); run(); CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(C.data(), dC, nC*4, cudaMemcpyDeviceToHost));
    double maxerr = 0; for (int s = 0; s < 512; ++s) { double v = C[(size_t)ri[s]*N+ci[s]]; double err = std::fabs(v - ref[s]); if (!(err <= 1e30)) err = 1e30; maxerr = std::max(maxerr, err); }
    size_t nans = 0; for (size_t i = 0; i < nC; i += 97) if (std::isnan(C[i])) ++nans;
    float t = timeit(run);
    printf("%-50s %8.3f ms %7.2f TFLOP/s  %5.1f%% of cublas  regs %3d  maxerr %.2e nans %zu\n", e.name, t, flops/t/1e9, 100*tc/t, fa.numRegs, maxerr, nans);
  }
  return 0;
}
