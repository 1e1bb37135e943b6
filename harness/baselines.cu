// The cuBLAS / cuBLASLt baselines and their elementwise kernels (see baselines.hpp).
#include "baselines.hpp"

#include <cublasLt.h>
#include <cublas_v2.h>

#include <cstdint>
#include <stdexcept>

#include "cuda_check.hpp"
#include "dispatch.cuh"
#include "kernels/elementwise.cuh"

namespace coalesce {

namespace {

void check_cublas(cublasStatus_t status, const char* call, const std::string& context) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cuBLAS error ") + cublasGetStatusName(status) + " in " +
                             call + " while running " + context);
}
#define COALESCE_CUBLAS(call, context) check_cublas((call), #call, (context))

/// cuBLASLt's workspace: NVIDIA recommends 32 MiB on Hopper for the best algorithms.
constexpr std::size_t kLtWorkspaceBytes = 32u << 20;

/// Resident 256-thread blocks per SM (2048 threads), for the elementwise grids.
constexpr int kElementwiseBlocksPerSm = 8;

cudaDataType_t cuda_type(Element e) {
  switch (e) {
    case Element::f32: return CUDA_R_32F;
    case Element::bf16: return CUDA_R_16BF;
    case Element::f16: return CUDA_R_16F;
  }
  throw std::invalid_argument("unknown element type");
}

/// cuBLAS's compute type for a dtype: f32 accumulation everywhere, TF32 tensor-core math only
/// when asked for (the f32 tolerance would catch TF32 creeping into an f32 GEMM).
cublasComputeType_t compute_type(Dtype d) {
  return d == Dtype::tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
}

/// "f32_compute32f", "tf32" as "f32_compute32f_fast_tf32", "bf16_compute32f", ...
std::string type_suffix(Dtype d) {
  const GemmTypes t = gemm_types(d);
  return std::string(to_string(t.a)) + (d == Dtype::tf32 ? "_compute32f_fast_tf32" : "_compute32f");
}

std::string gemm_name(Dtype d) { return "cublasGemmEx_" + type_suffix(d); }

// Row-major through column-major BLAS (the same derivation as the fp64 reference in
// workspace.cu). The row-major buffers read as column-major hold Aᵀ (K×M, ld K), Bᵀ (N×K, ld N)
// and Cᵀ (N×M, ld N). Cᵀ = Bᵀ·Aᵀ, so every call below passes B first, A second, both untransposed,
// with m' = N, n' = M, k' = K. cuBLASLt's bias is indexed by the row of its column-major D = Cᵀ,
// i.e. by n, which is exactly the problem's bias[n].
/// The product goes to `out` (M×N of C's type; default ws.c()).
void gemm(cublasHandle_t handle, const Workspace& ws, cudaStream_t stream, const std::string& ctx,
          void* out = nullptr) {
  const Problem& p = ws.problem();
  const GemmTypes t = p.types();
  const float one = 1.0f, zero = 0.0f;
  COALESCE_CUBLAS(cublasSetStream(handle, stream), ctx);
  COALESCE_CUBLAS(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, p.n, p.m, p.k, &one, ws.b(), cuda_type(t.b),
                               p.n, ws.a(), cuda_type(t.a), p.k, &zero, out ? out : ws.c(), cuda_type(t.c), p.n,
                               compute_type(p.dtype), CUBLAS_GEMM_DEFAULT),
                  ctx);
}

/// C = Epi(C, bias) in the problem's storage type.
template <class Epi>
void bias_epilogue(const Workspace& ws, int max_blocks, cudaStream_t s) {
  const Problem& p = ws.problem();
  with_storage(p.types().c, [&](auto tag) {
    using T = decltype(tag);
    launch_bias_epilogue_inplace<T, Epi>(static_cast<T*>(ws.c()), static_cast<const T*>(ws.bias()), p.m, p.n,
                                         max_blocks, s);
  });
}

/// C = Act(C) in the problem's storage type.
template <class Act>
void activation(const Workspace& ws, int max_blocks, cudaStream_t s) {
  const Problem& p = ws.problem();
  with_storage(p.types().c, [&](auto tag) {
    using T = decltype(tag);
    launch_activation_inplace<T, Act>(static_cast<T*>(ws.c()), static_cast<long long>(p.m) * p.n, max_blocks, s);
  });
}

/// Descriptors of one cuBLASLt matmul, destroyed together.
struct LtPlan {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  cublasLtMatmulHeuristicResult_t heuristic{};
  ~LtPlan() {
    if (pref) cublasLtMatmulPreferenceDestroy(pref);
    if (c) cublasLtMatrixLayoutDestroy(c);
    if (b) cublasLtMatrixLayoutDestroy(b);
    if (a) cublasLtMatrixLayoutDestroy(a);
    if (op) cublasLtMatmulDescDestroy(op);
  }
};

/// cuBLASLt's epilogue for the registry's LtEpilogue.
cublasLtEpilogue_t lt_epilogue(LtEpilogue e) {
  switch (e) {
    case LtEpilogue::default_: return CUBLASLT_EPILOGUE_DEFAULT;
    case LtEpilogue::bias: return CUBLASLT_EPILOGUE_BIAS;
    case LtEpilogue::relu_bias: return CUBLASLT_EPILOGUE_RELU_BIAS;
    case LtEpilogue::gelu_bias: return CUBLASLT_EPILOGUE_GELU_BIAS;
    case LtEpilogue::unavailable: break;
  }
  throw std::invalid_argument("cuBLASLt has no such epilogue");
}

/// The activation's word in baseline config names ("" for none): PyTorch's erf GELU is gelu_erf.
std::string activation_word(Activation a) {
  switch (a) {
    case Activation::identity: return "";
    case Activation::relu: return "relu";
    case Activation::gelu_erf: return "gelu_erf";
    case Activation::gelu_tanh: return "gelu_tanh";
    case Activation::silu: return "silu";
  }
  throw std::invalid_argument("unknown activation");
}

/// cuBLASLt's epilogue in its config names.
std::string lt_word(LtEpilogue e) {
  switch (e) {
    case LtEpilogue::default_: return "default";
    case LtEpilogue::bias: return "bias";
    case LtEpilogue::relu_bias: return "relu_bias";
    case LtEpilogue::gelu_bias: return "gelu_bias_tanh";
    case LtEpilogue::unavailable: break;
  }
  throw std::invalid_argument("cuBLASLt has no such epilogue");
}

/// Calls f(Act{}) with the elementwise functor eager's activation kernel runs for `a`: PyTorch's
/// own erf formula for the exact GELU (ActGeluTorch), the fused kernels' functor otherwise.
template <class F>
void with_eager_activation(Activation a, F&& f) {
  switch (a) {
    case Activation::identity: return;
    case Activation::relu: return f(ActRelu{});
    case Activation::gelu_erf: return f(ActGeluTorch{});
    case Activation::gelu_tanh: return f(ActGeluTanh{});
    case Activation::silu: return f(ActSilu{});
  }
  throw std::invalid_argument("unknown activation");
}

/// Refuses an epilogue whose residual no baseline kernel adds yet.
void require_no_residual(const char* method, Epilogue e) {
  if (epilogue_spec(e).reads.residual)
    throw std::invalid_argument(std::string(method) + " has no kernel that adds the residual of " +
                                epilogue_spec(e).name);
}

/// C = Epi::gate over the pairs of the M×N product in ws.intermediate() (a gated epilogue).
template <class Epi>
void gated_act_mul(const Workspace& ws, int max_blocks, cudaStream_t s) {
  const Problem& p = ws.problem();
  with_storage(p.types().c, [&](auto tag) {
    using T = decltype(tag);
    launch_gated_act_mul<T, Epi>(static_cast<const T*>(ws.intermediate()), static_cast<T*>(ws.c()), p.m, p.n,
                                 max_blocks, s);
  });
}

}  // namespace

std::string baseline_unavailable(const std::string& method, Epilogue e) {
  const EpilogueSpec& spec = epilogue_spec(e);
  if (method == "eager" && spec.reads.gated)
    return "eager has no gated sequence: the framework's path for " + std::string(spec.name) +
           " is the merged GEMM and one act-and-multiply kernel, the unfused baseline";
  if (method == "cublaslt_fused" && spec.cublaslt == LtEpilogue::unavailable)
    return "cuBLASLt has no epilogue computing " + std::string(spec.name);
  return "";
}

std::string baseline_config_name(const std::string& method, Dtype d, Epilogue e) {
  const std::string gemm = gemm_name(d);
  const EpilogueSpec& spec = epilogue_spec(e);
  const std::string act = activation_word(spec.activation);
  const std::string residual = spec.reads.residual ? "+residual_add" : "";
  if (method == "cublas_gemm") return gemm;
  if (const std::string why = baseline_unavailable(method, e); !why.empty()) throw std::invalid_argument(why);
  if (method == "unfused" && spec.reads.gated) return gemm + "+" + act + "_mul";
  if (method == "eager") {
    if (!spec.reads.column_bias) return gemm;
    return gemm + "+bias_add" + (act.empty() ? "" : "+" + act) + residual;
  }
  if (method == "unfused") {
    if (!spec.reads.column_bias) return gemm;
    return gemm + "+bias" + (act.empty() ? "" : "_" + act) + (spec.reads.residual ? "_residual" : "");
  }
  if (method == "cublaslt_fused") {
    if (spec.cublaslt == LtEpilogue::unavailable)
      throw std::invalid_argument("cuBLASLt has no epilogue computing " + std::string(spec.name));
    return "cublasLtMatmul_" + type_suffix(d) + "_epilogue_" + lt_word(spec.cublaslt);
  }
  throw std::invalid_argument("no baseline named '" + method + "'");
}

struct Baselines::Handles {
  cublasHandle_t blas = nullptr;
  cublasLtHandle_t lt = nullptr;
  DeviceBuffer<unsigned char> lt_workspace{kLtWorkspaceBytes};
  int elementwise_max_blocks = 0;

  Handles() {
    COALESCE_CUBLAS(cublasCreate(&blas), "baselines");
    // Default math mode: no TF32 tensor-op math (that needs CUBLAS_TF32_TENSOR_OP_MATH or a
    // *_FAST_TF32 compute type); with CUBLAS_COMPUTE_32F below the GEMM is pure FP32, and the
    // f32 tolerance (check.hpp) would catch TF32 if it crept in.
    COALESCE_CUBLAS(cublasSetMathMode(blas, CUBLAS_DEFAULT_MATH), "baselines");
    COALESCE_CUBLAS(cublasLtCreate(&lt), "baselines");
    int device = 0, sms = 0;
    COALESCE_CUDA(cudaGetDevice(&device));
    COALESCE_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    elementwise_max_blocks = sms * kElementwiseBlocksPerSm;
  }
  ~Handles() {
    cublasLtDestroy(lt);
    cublasDestroy(blas);
  }
};

Baselines::Baselines() : h_(std::make_unique<Handles>()) {}
Baselines::~Baselines() = default;

Method Baselines::cublas_gemm(Workspace& ws) {
  Method m;
  m.method = "cublas_gemm";
  m.family = "cublas";
  m.config = baseline_config_name(m.method, ws.problem().dtype, ws.problem().epilogue);
  m.reference_epilogue = Epilogue::none;
  m.launch = [h = h_.get(), &ws, ctx = describe(m)](cudaStream_t s) { gemm(h->blas, ws, s, ctx); };
  return m;
}

Method Baselines::eager(Workspace& ws) {
  const Problem& p = ws.problem();
  Method m;
  m.method = "eager";
  m.family = "cublas";
  m.config = baseline_config_name(m.method, p.dtype, p.epilogue);
  m.reference_epilogue = p.epilogue;
  require_no_residual("eager", p.epilogue);  // and baseline_config_name refused a gated one
  const EpilogueSpec& spec = epilogue_spec(p.epilogue);
  m.kernels = 1 + spec.reads.column_bias + (spec.activation != Activation::identity);
  m.launch = [h = h_.get(), &ws, ctx = describe(m)](cudaStream_t s) {
    const Problem& p = ws.problem();
    const EpilogueSpec& spec = epilogue_spec(p.epilogue);
    gemm(h->blas, ws, s, ctx);
    if (!spec.reads.column_bias) return;
    bias_epilogue<EpilogueBias>(ws, h->elementwise_max_blocks, s);
    COALESCE_CUDA_CTX(cudaGetLastError(), ctx + " (bias add)");
    with_eager_activation(spec.activation,
                          [&](auto act) { activation<decltype(act)>(ws, h->elementwise_max_blocks, s); });
    COALESCE_CUDA_CTX(cudaGetLastError(), ctx + " (activation)");
  };
  return m;
}

Method Baselines::unfused(Workspace& ws) {
  const Problem& p = ws.problem();
  Method m;
  m.method = "unfused";
  m.family = "cublas";
  m.config = baseline_config_name(m.method, p.dtype, p.epilogue);
  m.reference_epilogue = p.epilogue;
  require_no_residual("unfused", p.epilogue);
  m.kernels = p.epilogue == Epilogue::none ? 1 : 2;
  if (epilogue_spec(p.epilogue).reads.gated) {
    // The gated MLP as frameworks run it: the merged gate/up GEMM (N = 2I) into an M×N
    // intermediate, then one kernel reading it and writing act(gate) * up (M×N/2).
    m.launch = [h = h_.get(), &ws, ctx = describe(m)](cudaStream_t s) {
      gemm(h->blas, ws, s, ctx, ws.intermediate());
      with_epilogue</*kGated=*/true>(ws.problem().epilogue, [&](auto epi) {
        gated_act_mul<decltype(epi)>(ws, h->elementwise_max_blocks, s);
      });
      COALESCE_CUDA_CTX(cudaGetLastError(), ctx + " (act-and-multiply)");
    };
    return m;
  }
  m.launch = [h = h_.get(), &ws, ctx = describe(m)](cudaStream_t s) {
    const Problem& p = ws.problem();
    gemm(h->blas, ws, s, ctx);
    if (p.epilogue == Epilogue::none) return;
    // The GELU in PyTorch's formula (erff), as Inductor's kernel computes it; the fused kernels'
    // gelu_exact is the same function evaluated differently (kernels/core/epilogue.cuh).
    if (p.epilogue == Epilogue::bias_gelu)
      bias_epilogue<EpilogueBiasGeluTorch>(ws, h->elementwise_max_blocks, s);
    else
      with_epilogue(p.epilogue, [&](auto epi) { bias_epilogue<decltype(epi)>(ws, h->elementwise_max_blocks, s); });
    COALESCE_CUDA_CTX(cudaGetLastError(), ctx + " (bias+activation)");
  };
  return m;
}

std::optional<Method> Baselines::cublaslt_fused(Workspace& ws, std::string* why_not) {
  const Problem& p = ws.problem();
  Method m;
  m.method = "cublaslt_fused";
  m.family = "cublaslt";
  const EpilogueSpec& spec = epilogue_spec(p.epilogue);
  if (spec.cublaslt == LtEpilogue::unavailable) {
    if (why_not) *why_not = "cuBLASLt has no epilogue computing " + std::string(spec.name);
    return std::nullopt;
  }
  m.config = baseline_config_name(m.method, p.dtype, p.epilogue);
  m.reference_epilogue = p.epilogue;
  // Its GELU_BIAS is the tanh GELU: judged against a tanh reference where it stands in for the
  // erf GELU.
  m.tanh_reference = spec.activation == Activation::gelu_erf;
  const std::string ctx = describe(m);

  auto plan = std::make_shared<LtPlan>();
  const GemmTypes t = p.types();
  COALESCE_CUBLAS(cublasLtMatmulDescCreate(&plan->op, compute_type(p.dtype), CUDA_R_32F), ctx);
  const cublasOperation_t no_transpose = CUBLAS_OP_N;
  COALESCE_CUBLAS(cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_TRANSA, &no_transpose, sizeof no_transpose), ctx);
  COALESCE_CUBLAS(cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_TRANSB, &no_transpose, sizeof no_transpose), ctx);
  const cublasLtEpilogue_t epilogue = lt_epilogue(spec.cublaslt);
  COALESCE_CUBLAS(cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue), ctx);
  if (spec.reads.column_bias) {
    // Set before the heuristic: it reads the pointer's alignment.
    const void* bias = ws.bias();
    const cudaDataType_t bias_type = cuda_type(t.bias);
    COALESCE_CUBLAS(cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias), ctx);
    COALESCE_CUBLAS(cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type, sizeof bias_type), ctx);
  }
  // Column-major views (see gemm above): first operand Bᵀ (N×K), second Aᵀ (K×M), D = Cᵀ (N×M).
  COALESCE_CUBLAS(cublasLtMatrixLayoutCreate(&plan->a, cuda_type(t.b), p.n, p.k, p.n), ctx);
  COALESCE_CUBLAS(cublasLtMatrixLayoutCreate(&plan->b, cuda_type(t.a), p.k, p.m, p.k), ctx);
  COALESCE_CUBLAS(cublasLtMatrixLayoutCreate(&plan->c, cuda_type(t.c), p.n, p.m, p.n), ctx);
  COALESCE_CUBLAS(cublasLtMatmulPreferenceCreate(&plan->pref), ctx);
  const std::uint64_t workspace_bytes = kLtWorkspaceBytes;
  COALESCE_CUBLAS(cublasLtMatmulPreferenceSetAttribute(plan->pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                       &workspace_bytes, sizeof workspace_bytes), ctx);
  int found = 0;
  const cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(
      h_->lt, plan->op, plan->a, plan->b, plan->c, plan->c, plan->pref, 1, &plan->heuristic, &found);
  if (status != CUBLAS_STATUS_SUCCESS || found == 0) {
    if (why_not)
      *why_not = "cuBLASLt offers no algorithm for " + m.config + " (" +
                 (status != CUBLAS_STATUS_SUCCESS ? cublasGetStatusName(status) : "none found") + ")";
    return std::nullopt;
  }
  m.launch = [h = h_.get(), plan, &ws, ctx](cudaStream_t s) {
    const float one = 1.0f, zero = 0.0f;
    COALESCE_CUBLAS(cublasLtMatmul(h->lt, plan->op, &one, ws.b(), plan->a, ws.a(), plan->b, &zero,
                                   ws.c(), plan->c, ws.c(), plan->c, &plan->heuristic.algo,
                                   h->lt_workspace.get(), h->lt_workspace.bytes(), s),
                    ctx);
  };
  return m;
}

std::vector<Method> Baselines::all(Workspace& ws, std::string* why_not) {
  std::vector<Method> methods{cublas_gemm(ws)};
  if (baseline_unavailable("eager", ws.problem().epilogue).empty()) methods.push_back(eager(ws));
  methods.push_back(unfused(ws));
  if (auto lt = cublaslt_fused(ws, why_not)) methods.push_back(std::move(*lt));
  return methods;
}

}  // namespace coalesce
