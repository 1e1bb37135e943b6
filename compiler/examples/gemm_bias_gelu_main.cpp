// Driver of the end-to-end example: calls @gemm_bias_gelu (gemm_bias_gelu.mlir, compiled fused
// or unfused and linked in), checks C against the harness's fp64 reference on fresh random
// inputs, then times the call cold with the harness (L2 flushed before every sample).
// Exit status as the tools' (docs/working.md): 0 correct, 1 wrong result or CUDA error, 3 no CUDA
// device.
#include <cstdio>
#include <exception>

#include "compiler/runtime/coalesce_runtime.h"
#include "compiler/examples/example_main.hpp"
#include "harness/cuda_check.hpp"
#include "harness/device.hpp"
#include "harness/timing.hpp"
#include "harness/workspace.hpp"

extern "C" void _mlir_ciface_gemm_bias_gelu(const CoalesceMemRef2DF32* a,
                                            const CoalesceMemRef2DF32* b,
                                            const CoalesceMemRef1DF32* bias,
                                            const CoalesceMemRef2DF32* c);

namespace {

// The example's static shape: M = N = K in gemm_bias_gelu.mlir.
constexpr int kSize = 4096;

CoalesceMemRef2DF32 matrix(const float* data, int rows, int cols) {
  float* p = const_cast<float*>(data);
  return {p, p, 0, {rows, cols}, {cols, 1}};
}

int run() {
  using namespace coalesce;
  const std::optional<DeviceInfo> found = examples::example_device();
  if (!found) return 3;
  const DeviceInfo& device = *found;
  const Problem problem{kSize, kSize, kSize, Dtype::f32, Epilogue::bias_gelu};
  Workspace workspace(problem, /*seed=*/1, /*stream=*/nullptr);
  // The runtime's ABI is f32: the workspace's buffers are floats for an f32 problem.
  CoalesceMemRef2DF32 a = matrix(static_cast<const float*>(workspace.a()), kSize, kSize);
  CoalesceMemRef2DF32 b = matrix(static_cast<const float*>(workspace.b()), kSize, kSize);
  CoalesceMemRef2DF32 c = matrix(static_cast<float*>(workspace.c()), kSize, kSize);
  float* bias_data = const_cast<float*>(static_cast<const float*>(workspace.bias()));
  CoalesceMemRef1DF32 bias{bias_data, bias_data, 0, {kSize}, {1}};
  auto call = [&] { _mlir_ciface_gemm_bias_gelu(&a, &b, &bias, &c); };

  // Every element must be written: C starts as NaN.
  workspace.poison_output();
  call();
  COALESCE_CUDA(cudaDeviceSynchronize());
  CheckResult check = workspace.check(ReferenceKind{Epilogue::bias_gelu, /*tanh_gelu=*/false});

  // The runtime launches on the legacy default stream, so the timer samples on it too.
  ColdTimer timer(device.ordinal, TimingSettings{}, nullptr);
  Timing timing = timer.measure([&](cudaStream_t) { call(); },
                                [&](cudaStream_t stream) { workspace.poison_output(stream); },
                                "gemm_bias_gelu (" COALESCE_EXAMPLE_VARIANT ")");
  const SampleStats& s = timing.stats;
  std::printf("gemm_bias_gelu %s: %dx%dx%d f32 on %s (%s): median %.4f ms (p10 %.4f, p90 %.4f, "
              "%d samples), %.2f TFLOP/s\n",
              COALESCE_EXAMPLE_VARIANT, kSize, kSize, kSize, device.name.c_str(),
              device.arch().c_str(), s.median, s.p10, s.p90, s.count,
              problem.flops() / (s.median * 1e-3) / 1e12);
  std::printf("gemm_bias_gelu %s: vs fp64 reference: rel_frobenius %.3g, max_abs_err %.3g "
              "(max |ref| %.3g), non-finite %lld: %s%s\n",
              COALESCE_EXAMPLE_VARIANT, check.errors.rel_frobenius, check.errors.max_abs_err,
              check.errors.max_abs_ref, check.errors.non_finite,
              check.passed ? "passed" : "FAILED: ", check.why.c_str());
  return check.passed ? 0 : 1;
}

}  // namespace

int main() { return coalesce::examples::example_main("gemm_bias_gelu " COALESCE_EXAMPLE_VARIANT, run); }
