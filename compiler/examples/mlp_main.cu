// Driver of the MLP example: Y = gelu(X·W1 + b1)·W2 + b2 (mlp_<dtype>.mlir, fused, tiled and its
// kernels compiled ahead of time, linked in) in bf16 or f16 at GPT-2 XL's sizes. It checks Y
// against an fp64 reference, then times the program and the eager sequence (per layer: cuBLAS
// GEMM, bias-add kernel, GELU kernel; the harness's `eager` baseline) in this process, with the
// same cold protocol (L2 flushed before every sample), on the same workspaces, and prints the
// host time per runtime call and each one's GPU time.
// Exit status as the tools' (docs/working.md): 0 correct, 1 wrong result or CUDA error, 3 no CUDA
// device.
#include <string>

#include "compiler/runtime/coalesce_runtime.h"
#include "harness/baselines.hpp"
#include "compiler/examples/example_gpu.cuh"
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
using examples::matrix;
using examples::vector;

// mlp_<dtype>.mlir's shapes: GPT-2 XL's model and hidden widths at 4096 tokens.
constexpr int kTokens = 4096;
constexpr int kModel = 1600;
constexpr int kHidden = 6400;
constexpr Dtype kDtype = Dtype::COALESCE_MLP_DTYPE;
constexpr const char* kName = "mlp_" COALESCE_STRINGIFY(COALESCE_MLP_DTYPE);
// Runtime calls per program call: the hidden buffer's alloc and free, and the two fused GEMMs.
constexpr int kRuntimeCalls = 4;

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
  examples::round_to_storage(hidden, const_cast<void*>(down.a()), static_cast<long long>(kTokens) * kHidden,
                             kDtype == Dtype::bf16);
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
  examples::print_check(kName, "program", program_check);

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
  examples::print_check(kName, "eager layer 1", eager_up_check);
  examples::print_check(kName, "eager layer 2", eager_down_check);
  auto eager = [&](cudaStream_t stream) {
    eager_up.launch(stream);
    eager_down.launch(stream);
  };

  auto reset = [&](cudaStream_t stream) { down.poison_output(stream); };
  examples::time_against(kName, device, program, kRuntimeCalls, "eager", eager,
                         eager_up.kernels + eager_down.kernels, reset,
                         std::to_string(kTokens) + "x" + std::to_string(kModel) + "->" + std::to_string(kHidden) +
                             "->" + std::to_string(kModel),
                         2.0 * kTokens * kModel * kHidden * 2);
  return program_check.passed && eager_up_check.passed && eager_down_check.passed ? 0 : 1;
}

}  // namespace

int main() { return coalesce::examples::example_main(kName, run); }
