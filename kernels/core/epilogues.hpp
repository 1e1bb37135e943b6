// The epilogue registry: one row per epilogue says what it reads, which activation it applies and
// how exact the kernels' activation is, and what cuBLASLt and PyTorch call it. The kernels' types
// (kernels/core/epilogue.cuh EpilogueFor), the fp64 reference (epilogue_reference.hpp), the names
// the CLI, config names, database and reports use (problem.hpp), the baselines and the compiler's
// attribute all derive from these rows, as families derive from their registry (family.hpp).
// Device-safe (no standard headers): kernels read the rows in constant expressions.
#pragma once

#include "kernels/core/gelu.hpp"
#include "kernels/core/types.hpp"

namespace coalesce {

/// The activation an epilogue applies after adding its bias: its device functor is
/// ActivationFunctor<...> (kernels/core/epilogue.cuh), its fp64 reference reference_activation()
/// (kernels/core/epilogue_reference.hpp).
enum class Activation : int { identity, relu, gelu_erf, gelu_tanh, silu };

/// The operands an epilogue reads besides the accumulator. Row bias and per-row and per-column
/// scales (issue 40) join here with the first kernel that reads them.
struct EpilogueReads {
  bool column_bias;  ///< bias[n]: N entries of the bias type, added to the accumulator
  bool residual;     ///< R[m][n]: an M×N matrix of C's type, added after the activation
  /// A second accumulator, the gated MLP's `up` product: B is the gate and up weights
  /// interleaved (column 2j of B is gate column j, column 2j+1 up column j), the GEMM's N is
  /// 2·I, and C[m][j] = act(acc[m][2j]) · acc[m][2j+1] has N/2 columns (output_columns()). Every
  /// family's accumulator fragment holds such an adjacent pair in one thread, so the gate is
  /// applied per thread, in the store.
  bool gated;
};

/// The cuBLASLt epilogue (cublasLtEpilogue_t) that computes an epilogue, where one does.
enum class LtEpilogue : int { unavailable, default_, bias, relu_bias, gelu_bias };

/// One row of the registry.
struct EpilogueSpec {
  Epilogue id;
  const char* name;  ///< the CLI's, config names', the database's and the MLIR attribute's word
  EpilogueReads reads;
  Activation activation;
  /// The largest error the kernels' activation functor may add, relative to the element's
  /// scale (|pre-activation| + rms, harness/check.hpp): 0 for exact ones (add, max). Measured
  /// on the GPU by tests/gpu/epilogue_test.cu; harness/check.cpp adds it to the tolerance.
  double activation_error;
  /// cuBLASLt's epilogue computing it; its GELU_BIAS is the tanh GELU, so it is exact for
  /// bias_gelu_tanh and judged against a tanh reference when it stands in for bias_gelu.
  LtEpilogue cublaslt;
  const char* formula;  ///< C as a formula of acc = A·B, for help texts and docs
  const char* torch;    ///< the same as a PyTorch user writes it (`F` is torch.nn.functional)
};

/// The columns of C for a GEMM of N columns under an epilogue that reads `reads`: N, or N/2 for a
/// gated one (whose N must be even: problem rules refuse an odd one).
COALESCE_HD constexpr long long output_columns(EpilogueReads reads, long long n) { return reads.gated ? n / 2 : n; }

/// The largest relative error of the kernels' GELU and SiLU functors where the value is not tiny:
/// kernels/core/gelu.hpp kMaxRelError has the argument for the exact GELU; tanhf and the SFU's
/// 2^x and 1/x are a few ulps each, inside the same bound, which is 40 times below the largest
/// gap between the erf and the tanh GELU (4.7e-4 at x = -2.7; 1.2e-4 of the check's scale on bend inputs),
/// so the check still tells the two apart in f32.
inline constexpr double kActivationError = gelu::kMaxRelError;

/// The registry, in Epilogue's order (epilogue_spec() indexes it; tests check the order).
/// Adding an epilogue: one value in Epilogue, one row here; adding an activation: one value in
/// Activation, its functor in epilogue.cuh and its reference in epilogue_reference.hpp.
inline constexpr EpilogueSpec kEpilogues[] = {
    {Epilogue::none, "none", {false, false, false}, Activation::identity, 0.0, LtEpilogue::default_, "C = acc", "a @ b"},
    {Epilogue::bias, "bias", {true, false, false}, Activation::identity, 0.0, LtEpilogue::bias, "C = acc + bias[n]",
     "a @ b + bias"},
    {Epilogue::bias_relu, "bias_relu", {true, false, false}, Activation::relu, 0.0, LtEpilogue::relu_bias,
     "C = max(acc + bias[n], 0)", "F.relu(a @ b + bias)"},
    {Epilogue::bias_gelu, "bias_gelu", {true, false, false}, Activation::gelu_erf, kActivationError, LtEpilogue::gelu_bias,
     "C = gelu_erf(acc + bias[n])", "F.gelu(a @ b + bias)"},
    {Epilogue::bias_gelu_tanh, "bias_gelu_tanh", {true, false, false}, Activation::gelu_tanh, kActivationError,
     LtEpilogue::gelu_bias, "C = gelu_tanh(acc + bias[n])", "F.gelu(a @ b + bias, approximate='tanh')"},
    {Epilogue::bias_silu, "bias_silu", {true, false, false}, Activation::silu, kActivationError, LtEpilogue::unavailable,
     "C = silu(acc + bias[n])", "F.silu(a @ b + bias)"},
    {Epilogue::bias_gelu_residual, "bias_gelu_residual", {true, true, false}, Activation::gelu_erf, kActivationError,
     LtEpilogue::unavailable, "C = residual[m][n] + gelu_erf(acc + bias[n])", "residual + F.gelu(a @ b + bias)"},
    // The gated MLP of Llama, Mistral and Qwen (SwiGLU) and Gemma (GeGLU, exact GELU), without
    // bias as those models have none; b is gate and up interleaved by column (EpilogueReads::gated).
    {Epilogue::swiglu, "swiglu", {false, false, true}, Activation::silu, kActivationError, LtEpilogue::unavailable,
     "C[m][j] = silu(acc[m][2j]) * acc[m][2j+1]", "F.silu((a @ b)[:, 0::2]) * (a @ b)[:, 1::2]"},
    {Epilogue::geglu, "geglu", {false, false, true}, Activation::gelu_erf, kActivationError, LtEpilogue::unavailable,
     "C[m][j] = gelu_erf(acc[m][2j]) * acc[m][2j+1]", "F.gelu((a @ b)[:, 0::2]) * (a @ b)[:, 1::2]"},
};
inline constexpr int kEpilogueCount = sizeof(kEpilogues) / sizeof(kEpilogues[0]);

/// The registry's row of `e`.
constexpr const EpilogueSpec& epilogue_spec(Epilogue e) { return kEpilogues[static_cast<int>(e)]; }

/// Whether every row sits at its Epilogue's index (checked at compile time below).
constexpr bool registry_in_order() {
  for (int i = 0; i < kEpilogueCount; ++i)
    if (static_cast<int>(kEpilogues[i].id) != i) return false;
  return true;
}
static_assert(registry_in_order(), "kEpilogues lists the epilogues in Epilogue's order");
static_assert(static_cast<int>(Epilogue::geglu) + 1 == kEpilogueCount,
              "every Epilogue value has a row in kEpilogues");

}  // namespace coalesce
