// Driver of the MLP example: Y = gelu(X·W1 + b1)·W2 + b2 (mlp_<dtype>.mlir, fused, tiled and its
// kernels compiled ahead of time, linked in) in bf16 or f16 at GPT-2 XL's sizes. It checks Y
// against an fp64 reference, then times the program and the eager sequence (per layer: cuBLAS
// GEMM, bias-add kernel, GELU kernel; the harness's `eager` baseline) in this process, with the
// same cold protocol (L2 flushed before every sample), on the same workspaces, and prints the
// host time per runtime call and each one's GPU time.
// Exit status as the tools' (docs/working.md): 0 correct, 1 wrong result or CUDA error, 3 no CUDA
// device.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <functional>
#include <utility>

#include "compiler/runtime/coalesce_runtime.h"
#include "harness/baselines.hpp"
#include "compiler/examples/example_main.hpp"
#include "harness/cuda_check.hpp"
#include "harness/device.hpp"
#include "harness/timing.hpp"
#include "harness/workspace.hpp"

#define COALESCE_STRINGIFY_(x) #x
#define COALESCE_STRINGIFY(x) COALESCE_STRINGIFY_(x)

// The program's C interface (mlp_<dtype>.mlir's @mlp_<dtype>).
extern "C" void COALESCE_MLP_ENTRY(const CoalesceMemRef2D* x, const CoalesceMemRef2D* w1,
                                   const CoalesceMemRef1D* b1, const CoalesceMemRef2D* w2,
                                   const CoalesceMemRef1D* b2, const CoalesceMemRef2D* y);

namespace {

using namespace coalesce;

// mlp_<dtype>.mlir's shapes: GPT-2 XL's model and hidden widths at 4096 tokens.
constexpr int kTokens = 4096;
constexpr int kModel = 1600;
constexpr int kHidden = 6400;
constexpr Dtype kDtype = Dtype::COALESCE_MLP_DTYPE;
constexpr const char* kName = "mlp_" COALESCE_STRINGIFY(COALESCE_MLP_DTYPE);
// Runtime calls per program call: the hidden buffer's alloc and free, and the two fused GEMMs.
constexpr int kRuntimeCalls = 4;
// Host timing: calls enqueued back to back, enough to average out the clock's granularity.
constexpr int kHostCalls = 50;

CoalesceMemRef2D matrix(const void* data, int rows, int cols) {
  void* p = const_cast<void*>(data);
  return {p, p, 0, {rows, cols}, {cols, 1}};
}

CoalesceMemRef1D vector(const void* data, int n) {
  void* p = const_cast<void*>(data);
  return {p, p, 0, {n}, {1}};
}

// out[i] = the storage type's rounding of ref[i]: the hidden activation as the program stores it.
__global__ void round_to_storage(const double* ref, void* out, long long n, bool bf16) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    if (bf16)
      static_cast<__nv_bfloat16*>(out)[i] = __double2bfloat16(ref[i]);
    else
      static_cast<__half*>(out)[i] = __double2half(ref[i]);
  }
}

double host_us_per_call(const std::function<void()>& call) {
  call();  // warm: first-call loading stays out of the figure
  COALESCE_CUDA(cudaDeviceSynchronize());
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kHostCalls; ++i) call();
  const auto stop = std::chrono::steady_clock::now();
  COALESCE_CUDA(cudaDeviceSynchronize());
  return std::chrono::duration<double, std::micro>(stop - start).count() / kHostCalls;
}

void print_check(const char* what, const CheckResult& check) {
  std::printf("%s %s: vs fp64 reference: rel_frobenius %.3g, max_abs_err %.3g (max |ref| %.3g), "
              "non-finite %lld: %s%s\n",
              kName, what, check.errors.rel_frobenius, check.errors.max_abs_err, check.errors.max_abs_ref,
              check.errors.non_finite, check.passed ? "passed" : "FAILED: ", check.why.c_str());
}

int run() {
  const std::optional<DeviceInfo> found = examples::example_device();
  if (!found) return 3;
  const DeviceInfo& device = *found;
  // Layer 1: H = gelu(X·W1 + b1), 4096 x 6400 x 1600. Layer 2: Y = H·W2 + b2, 4096 x 1600 x 6400.
  Workspace up(Problem{kTokens, kHidden, kModel, kDtype, Epilogue::bias_gelu}, /*seed=*/1, nullptr);
  Workspace down(Problem{kTokens, kModel, kHidden, kDtype, Epilogue::bias}, /*seed=*/2, nullptr);
  // The second layer's reference reads H as the program stores it: the first layer's fp64
  // result rounded once to the storage type. The program's own H is that within one rounding
  // plus its kernel's error, so Y is judged with two roundings (H and Y).
  const double* hidden = up.reference(ReferenceKind{Epilogue::bias_gelu});
  round_to_storage<<<1024, 256>>>(hidden, const_cast<void*>(down.a()),
                                  static_cast<long long>(kTokens) * kHidden, kDtype == Dtype::bf16);
  COALESCE_CUDA(cudaGetLastError());
  COALESCE_CUDA(cudaDeviceSynchronize());
  const ReferenceKind twice{Epilogue::bias, false, /*roundings=*/2};

  CoalesceMemRef2D x = matrix(up.a(), kTokens, kModel), w1 = matrix(up.b(), kModel, kHidden);
  CoalesceMemRef1D b1 = vector(up.bias(), kHidden);
  CoalesceMemRef2D w2 = matrix(down.b(), kHidden, kModel), y = matrix(down.c(), kTokens, kModel);
  CoalesceMemRef1D b2 = vector(down.bias(), kModel);
  auto program = [&] { COALESCE_MLP_ENTRY(&x, &w1, &b1, &w2, &b2, &y); };

  // Every element must be written: Y starts as NaN.
  down.poison_output();
  program();
  COALESCE_CUDA(cudaDeviceSynchronize());
  const CheckResult program_check = down.check(twice);
  print_check("program", program_check);

  // The eager sequence on the same workspaces (layer 2 reads the rounded reference H in down.a()):
  // each layer checked on its own, then both timed as one.
  Baselines baselines;
  Method eager_up = baselines.eager(up), eager_down = baselines.eager(down);
  up.poison_output();
  down.poison_output();
  eager_up.launch(nullptr);
  eager_down.launch(nullptr);
  COALESCE_CUDA(cudaDeviceSynchronize());
  const CheckResult eager_up_check = up.check(eager_up.reference());
  const CheckResult eager_down_check = down.check(ReferenceKind{Epilogue::bias, false, eager_down.kernels});
  print_check("eager layer 1", eager_up_check);
  print_check("eager layer 2", eager_down_check);
  auto eager = [&](cudaStream_t stream) {
    eager_up.launch(stream);
    eager_down.launch(stream);
  };

  const double program_host_us = host_us_per_call(program);
  const double eager_host_us = host_us_per_call([&] { eager(nullptr); });
  std::printf("%s host time: program %.1f us per call (%d runtime calls: %.2f us each); eager "
              "sequence %.1f us per call (%d launches)\n",
              kName, program_host_us, kRuntimeCalls, program_host_us / kRuntimeCalls, eager_host_us,
              eager_up.kernels + eager_down.kernels);

  // The runtime launches on the legacy default stream, so the timer samples on it too.
  ColdTimer timer(device.ordinal, TimingSettings{}, nullptr);
  auto reset = [&](cudaStream_t stream) { down.poison_output(stream); };
  const Timing program_time = timer.measure([&](cudaStream_t) { program(); }, reset, kName);
  const Timing eager_time = timer.measure(eager, reset, std::string(kName) + " eager");
  const double flops = 2.0 * kTokens * kModel * kHidden * 2;
  for (auto [what, timing] : {std::pair{"program", &program_time}, std::pair{"eager", &eager_time}}) {
    const SampleStats& s = timing->stats;
    std::printf("%s GPU time %s: %dx%d->%d->%d on %s (%s): median %.4f ms (p10 %.4f, p90 %.4f, %d "
                "samples), %.1f TFLOP/s\n",
                kName, what, kTokens, kModel, kHidden, kModel, device.name.c_str(), device.arch().c_str(),
                s.median, s.p10, s.p90, s.count, flops / (s.median * 1e-3) / 1e12);
  }
  std::printf("%s speedup over eager: %.3fx (median against median, same protocol)\n", kName,
              eager_time.stats.median / program_time.stats.median);
  return program_check.passed && eager_up_check.passed && eager_down_check.passed ? 0 : 1;
}

}  // namespace

int main() { return coalesce::examples::example_main(kName, run); }
