// Driver of the gated MLP example: Y = (silu(X·Wg) ⊙ X·Wu)·Wd (gated_mlp_<dtype>.mlir, the
// gate/up GEMM fused with the SwiGLU gate and both GEMMs tiled, their kernels compiled ahead of
// time and linked in) in bf16 or f16 at Llama-3-8B's sizes (4096 -> 2 x 14336 -> 4096) at 4096
// tokens. Wgu holds the gate and up weights interleaved by column (gate j at column 2j, up j at
// 2j + 1), as the gated epilogue reads them. It checks Y against an fp64 reference, then times
// the program and the framework's sequence (cuBLAS's merged gate/up GEMM, one act-and-multiply
// kernel, cuBLAS's down GEMM: the harness's `unfused` baseline of swiglu and its GEMM) in this
// process, with the same cold protocol (L2 flushed before every sample), on the same workspaces,
// and prints the host time per runtime call and each one's GPU time.
// Exit status as the tools' (docs/working.md): 0 correct, 1 wrong result or CUDA error, 3 no CUDA
// device.
#include <cstdio>
#include <string>
#include <utility>

#include "compiler/examples/example_gpu.cuh"
#include "compiler/examples/example_main.hpp"
#include "compiler/runtime/coalesce_runtime.h"
#include "harness/baselines.hpp"
#include "harness/cuda_check.hpp"
#include "harness/device.hpp"
#include "harness/timing.hpp"
#include "harness/workspace.hpp"

#define COALESCE_STRINGIFY_(x) #x
#define COALESCE_STRINGIFY(x) COALESCE_STRINGIFY_(x)

// The program's C interface (gated_mlp_<dtype>.mlir's @gated_mlp_<dtype>).
extern "C" void COALESCE_GATED_MLP_ENTRY(const CoalesceMemRef2D* x, const CoalesceMemRef2D* wgu,
                                         const CoalesceMemRef2D* wd, const CoalesceMemRef2D* y);

namespace {

using namespace coalesce;
using examples::matrix;

// gated_mlp_<dtype>.mlir's shapes: Llama-3-8B's model and intermediate widths at 4096 tokens.
constexpr int kTokens = 4096;
constexpr int kModel = 4096;
constexpr int kIntermediate = 14336;
constexpr Dtype kDtype = Dtype::COALESCE_GATED_MLP_DTYPE;
constexpr const char* kName = "gated_mlp_" COALESCE_STRINGIFY(COALESCE_GATED_MLP_DTYPE);
// Runtime calls per program call: the hidden buffer's alloc and free, and the two fused GEMMs.
constexpr int kRuntimeCalls = 4;

int run() {
  const std::optional<DeviceInfo> found = examples::example_device();
  if (!found) return 3;
  const DeviceInfo& device = *found;
  // Layer 1: H = silu(X·Wg) ⊙ X·Wu, one GEMM of 4096 x 28672 x 4096 writing 4096 x 14336.
  // Layer 2: Y = H·Wd, 4096 x 4096 x 14336.
  Workspace up(Problem{kTokens, 2 * kIntermediate, kModel, kDtype, Epilogue::swiglu}, /*seed=*/1, nullptr);
  Workspace down(Problem{kTokens, kModel, kIntermediate, kDtype, Epilogue::none}, /*seed=*/2, nullptr);
  // X drawn as the check's `bend` inputs (scaled by 3/sqrt(K)): the gate and up values are of
  // order 1, so Y's sums over 14336 products stay far inside f16's range (with X in [-1, 1) they
  // reached 1.25e5, past f16's 65504, in the program and the framework alike).
  up.refill(/*seed=*/1, Inputs::bend);
  // The second layer's reference reads H as the program stores it: the first layer's fp64
  // result rounded once to the storage type, so Y is judged with two roundings (H and Y).
  examples::round_to_storage(up.reference(ReferenceKind{Epilogue::swiglu}), const_cast<void*>(down.a()),
                             static_cast<long long>(kTokens) * kIntermediate, kDtype == Dtype::bf16);
  const ReferenceKind twice{Epilogue::none, false, /*roundings=*/2};

  CoalesceMemRef2D x = matrix(up.a(), kTokens, kModel), wgu = matrix(up.b(), kModel, 2 * kIntermediate);
  CoalesceMemRef2D wd = matrix(down.b(), kIntermediate, kModel), y = matrix(down.c(), kTokens, kModel);
  auto program = [&] { COALESCE_GATED_MLP_ENTRY(&x, &wgu, &wd, &y); };

  // Every element must be written: Y starts as NaN.
  down.poison_output();
  program();
  COALESCE_CUDA(cudaDeviceSynchronize());
  const CheckResult program_check = down.check(twice);
  examples::print_check(kName, "program", program_check);

  // The framework's sequence on the same workspaces (layer 2 reads the rounded reference H in
  // down.a()): each layer checked on its own, then both timed as one.
  Baselines baselines;
  Method framework_up = baselines.unfused(up), framework_down = baselines.cublas_gemm(down);
  up.poison_output();
  down.poison_output();
  framework_up.launch(nullptr);
  framework_down.launch(nullptr);
  COALESCE_CUDA(cudaDeviceSynchronize());
  const CheckResult up_check = up.check(framework_up.reference());
  const CheckResult down_check = down.check(framework_down.reference());
  examples::print_check(kName, "framework layer 1 (merged GEMM, act-and-multiply)", up_check);
  examples::print_check(kName, "framework layer 2 (GEMM)", down_check);
  auto framework = [&](cudaStream_t stream) {
    framework_up.launch(stream);
    framework_down.launch(stream);
  };

  auto reset = [&](cudaStream_t stream) { down.poison_output(stream); };
  // Both layers' multiply-adds: 2·T·D·2I and 2·T·I·D.
  examples::time_against(kName, device, program, kRuntimeCalls, "framework", framework,
                         framework_up.kernels + framework_down.kernels, reset,
                         std::to_string(kTokens) + "x" + std::to_string(kModel) + "->2x" +
                             std::to_string(kIntermediate) + "->" + std::to_string(kModel),
                         2.0 * kTokens * kModel * kIntermediate * 3);
  return program_check.passed && up_check.passed && down_check.passed ? 0 : 1;
}

}  // namespace

int main() { return coalesce::examples::example_main(kName, run); }
