// The four baselines of every comparison, run in the same process on the same buffers as the
// fused kernels: cuBLAS GEMM alone (the ceiling), eager (GEMM, bias add, activation), unfused
// (GEMM, one bias+activation kernel) and cuBLASLt's own fused epilogue.
#pragma once

#include <cuda_runtime.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "method.hpp"
#include "workspace.hpp"

namespace coalesce {

/// cuBLAS and cuBLASLt handles plus cuBLASLt's workspace. Methods it returns point at it: keep
/// it alive while they are used.
class Baselines {
 public:
  /// Creates the handles on the current device.
  Baselines();
  ~Baselines();
  Baselines(const Baselines&) = delete;
  Baselines& operator=(const Baselines&) = delete;

  /// `cublas_gemm`: cublasGemmEx in the dtype's storage types with f32 accumulation
  /// (CUBLAS_COMPUTE_32F; CUBLAS_COMPUTE_32F_FAST_TF32 for tf32, and no TF32 otherwise), no
  /// epilogue; judged against the epilogue-none reference whatever the problem's.
  Method cublas_gemm(Workspace& ws);
  /// `eager`: the GEMM, a bias-add kernel, then the activation (ReLU or erf GELU) kernel, as
  /// PyTorch eager runs `act(x @ w + b)`, each storing C in the dtype; fewer kernels for the
  /// epilogues none and bias.
  Method eager(Workspace& ws);
  /// `unfused`: the GEMM, then one kernel applying bias and activation; for a gated epilogue
  /// the merged gate/up GEMM into Workspace::intermediate(), then one act-and-multiply kernel
  /// into C (what vLLM's SiluAndMul and torch.compile run).
  Method unfused(Workspace& ws);
  /// `cublaslt_fused`: cublasLtMatmul with the matching epilogue (DEFAULT, BIAS, RELU_BIAS,
  /// GELU_BIAS; GELU is tanh there, so it is judged against the tanh reference), in the dtype's
  /// types with the GEMM's compute type.
  /// nullopt, with the reason in `why_not`, when cuBLASLt's heuristic offers no algorithm.
  std::optional<Method> cublaslt_fused(Workspace& ws, std::string* why_not);
  /// All four, in that order (cublaslt_fused omitted when unavailable, reason in `why_not`;
  /// eager omitted where baseline_unavailable() says so).
  std::vector<Method> all(Workspace& ws, std::string* why_not);

 private:
  struct Handles;  // cublasHandle_t, cublasLtHandle_t, the workspace; defined in baselines.cu
  std::unique_ptr<Handles> h_;
};

/// Why baseline `method` has no sequence for epilogue `e` (eager for a gated epilogue,
/// cuBLASLt without the epilogue); empty when it has one.
std::string baseline_unavailable(const std::string& method, Epilogue e);

/// The derived config names of the baselines, e.g. `cublasGemmEx_f32_compute32f+bias_gelu_erf`,
/// `cublasGemmEx_bf16_compute32f`, `cublasLtMatmul_f32_compute32f_fast_tf32_epilogue_gelu_bias_tanh`.
std::string baseline_config_name(const std::string& method, Dtype d, Epilogue e);

}  // namespace coalesce
