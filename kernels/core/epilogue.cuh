// Fused epilogues: what is applied to each accumulator before the one store of C, written once
// for every family. Each type is headed by its formula and computes in the accumulator's type
// `Acc` (f32 in every kernel); the store rounds to C's type once. erf and tanh GELU are
// different types (cuBLASLt uses tanh). Device-safe under nvcc and NVRTC.
#pragma once

#include "kernels/core/epilogues.hpp"
#include "kernels/core/gelu.hpp"
#include "kernels/core/numeric.cuh"
#include "kernels/core/types.hpp"

namespace coalesce {

/// The exact GELU as PyTorch (and Inductor) write it, x/2 · (1 + erff(x/√2)): what the library
/// baselines compute (eager's GELU kernel, the unfused pair's bias+GELU kernel). erff selects
/// between two polynomials per element (about 25 instructions on sm_90) and 1 + erff cancels in
/// the lower tail: below x ≈ -5.7 it returns -0.
__device__ __forceinline__ float gelu_erf(float x) {
  return 0.5f * x * (1.0f + erff(x * static_cast<float>(gelu::kInvSqrt2)));
}

/// 2^x by the SFU (`ex2.approx.ftz.f32`: relative error about 2^-22; results below f32's
/// normal range flush to 0).
__device__ __forceinline__ float exp2f_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
/// 1/x by the SFU (`rcp.approx.ftz.f32`: one MUFU.RCP, within 1 ulp for normal x; __fdividef
/// adds a range test and two multiplies for denominators above 2^126, which normal_cdf's never are).
__device__ __forceinline__ float rcp_approx(float x) {
  float y;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

/// Φ(x), the standard normal CDF, as erfc(-x/√2)/2 from one branch-free evaluation of
/// h = erfc(z)/2 at z = |x|/√2 ≥ 0 (erfc(-z) = 2 - erfc(z)), so the lower tail keeps its relative
/// accuracy:
///   h = t · 2^(P(t) - w²),  t = 1/(1 + 0.3·z),  w = z·√log2(e),
/// P of degree 7 fitted (minimax, scripts/fit_gelu.py) to log2(erfcx(z)/2t) on z ∈ [0, 10]:
/// within 7.5e-7 there, i.e. h within 5.2e-7 relative before f32 rounding. Folding log2(e) into w
/// makes the exponent one FMA, -w·w + P, whose product is exact; the halving is in P's constant.
/// About 17 instructions with the select, against 26 for Numerical Recipes' erfcc of degree 9
/// with z² split exactly and __fdividef, which this replaced (same accuracy band by band; run
/// FA, docs/results.md). Measured against fp64 on the H200 by tests/gpu/epilogue_test.cu.
__device__ __forceinline__ float normal_cdf(float x) {
  constexpr float kW = 0.849321800288019f;  // √(log2(e)/2): w = |x|·kW
  constexpr float kT = 0.249766383347309f;  // 0.3/√log2(e): 1 + 0.3·z = 1 + kT·w
  // z = 10 (erfc(10) = 2e-45, below f32's range): clamping there keeps w² finite for any input
  // (GELU(+inf) = +inf as with erff) and changes no finite result. w = z·kW/(1/√2).
  constexpr float kWMax = 10.0f * kW / static_cast<float>(gelu::kInvSqrt2);
  const float w = fminf(fabsf(x) * kW, kWMax);
  const float t = rcp_approx(fmaf(kT, w, 1.0f));
  float p = 6.887498918e-01f;
  p = fmaf(p, t, -2.810837639e+00f);
  p = fmaf(p, t, 4.097010205e+00f);
  p = fmaf(p, t, -2.961826964e+00f);
  p = fmaf(p, t, 1.782545041e+00f);
  p = fmaf(p, t, 2.714603231e-01f);
  p = fmaf(p, t, 1.499075255e+00f);
  p = fmaf(p, t, -3.566176858e+00f);
  const float half_erfc = t * exp2f_approx(fmaf(-w, w, p));
  return x >= 0.0f ? 1.0f - half_erfc : half_erfc;
}

/// The exact GELU, x · Φ(x), as the fused kernels compute it: the same function as gelu_erf,
/// without erff's per-element polynomial selection and branch (so several elements' chains
/// interleave), and accurate in the lower tail where 1 + erff(x/√2) cancels.
__device__ __forceinline__ float gelu_exact(float x) { return x * normal_cdf(x); }
/// The tanh GELU, x/2 · (1 + tanhf(√(2/π)(x + 0.044715 x³))): cuBLASLt's GELU_BIAS and
/// PyTorch's approximate='tanh'.
__device__ __forceinline__ float gelu_tanh(float x) {
  return 0.5f * x *
         (1.0f + tanhf(static_cast<float>(gelu::kSqrt2OverPi) * (x + static_cast<float>(gelu::kCubic) * x * x * x)));
}

/// x = 1/(1 + e^-x) · x, SiLU (swish), through the SFU's 2^x and 1/x: for x below about -88,
/// e^-x overflows to +inf, whose reciprocal is 0, so the result is -0 as the limit is.
__device__ __forceinline__ float silu(float x) {
  constexpr float kLog2e = 1.4426950408889634f;  // e^-x = 2^(-x·log2(e))
  return x * rcp_approx(1.0f + exp2f_approx(-x * kLog2e));
}

// The activations, one functor each, computing in the accumulator's type.
/// x
struct ActIdentity {
  template <class Acc>
  __device__ __forceinline__ static Acc apply(Acc x) { return x; }
};
/// max(x, 0)
struct ActRelu {
  template <class Acc>
  __device__ __forceinline__ static Acc apply(Acc x) { return fmaxf(x, Acc(0)); }
};
/// gelu_exact(x): the exact (erf) GELU as every fused kernel computes it
struct ActGeluErf {
  template <class Acc>
  __device__ __forceinline__ static Acc apply(Acc x) { return gelu_exact(x); }
};
/// gelu_tanh(x): the tanh approximation, cuBLASLt's GELU and PyTorch's approximate='tanh'
struct ActGeluTanh {
  template <class Acc>
  __device__ __forceinline__ static Acc apply(Acc x) { return gelu_tanh(x); }
};
/// silu(x) = x · sigmoid(x)
struct ActSilu {
  template <class Acc>
  __device__ __forceinline__ static Acc apply(Acc x) { return silu(x); }
};
/// gelu_erf(x), the exact GELU in PyTorch's own formula (erff): the baselines' elementwise
/// kernels, which stand for what eager and Inductor run; no epilogue row names it
struct ActGeluTorch {
  template <class Acc>
  __device__ __forceinline__ static Acc apply(Acc x) { return gelu_erf(x); }
};

/// The functor of each Activation of the registry (kernels/core/epilogues.hpp).
template <Activation A> struct ActivationFunctorT;
template <> struct ActivationFunctorT<Activation::identity> { using type = ActIdentity; };
template <> struct ActivationFunctorT<Activation::relu> { using type = ActRelu; };
template <> struct ActivationFunctorT<Activation::gelu_erf> { using type = ActGeluErf; };
template <> struct ActivationFunctorT<Activation::gelu_tanh> { using type = ActGeluTanh; };
template <> struct ActivationFunctorT<Activation::silu> { using type = ActSilu; };
template <Activation A> using ActivationFunctor = typename ActivationFunctorT<A>::type;

/// C = Act(acc [+ bias[n]]) [+ residual[m][n]]: the one epilogue type every kernel applies,
/// made from a registry row by EpilogueFor. apply() is the value before the residual, which a
/// store adds (kUsesResidual) from C's type. A gated one (kGated: no bias, no residual) takes the
/// accumulators of columns 2j and 2j+1 and stores gate() at column j of a C of N/2 columns; a
/// store path branches on kGated with `if constexpr`, so the other epilogues' code is unchanged.
template <class Act, bool kBias, bool kResidual = false, bool kGatedPair = false>
struct FusedEpilogue {
  static_assert(!kGatedPair || (!kBias && !kResidual), "a gated epilogue reads no bias and no residual");
  static constexpr bool kUsesBias = kBias;
  static constexpr bool kUsesResidual = kResidual;
  static constexpr bool kGated = kGatedPair;
  template <class Acc>
  __device__ __forceinline__ static Acc apply(Acc acc, Acc b) { return Act::apply(kBias ? acc + b : acc); }
  /// C[m][j] = act(gate) · up, from gate = acc[m][2j] and up = acc[m][2j+1].
  template <class Acc>
  __device__ __forceinline__ static Acc gate(Acc gate_acc, Acc up_acc) { return Act::apply(gate_acc) * up_acc; }
};

/// The value a store path writes at C[at] (row-major, as `residual`): the epilogue of the
/// accumulator and the column's bias (which the path has loaded, often once for several rows),
/// plus residual[at] where the epilogue adds one. The one place a residual is added; for the other
/// epilogues it is Epi::apply and nothing else (`residual` is not read).
template <class Epi, class RT>
__device__ __forceinline__ float epilogue_value(float acc, float bias, const RT* __restrict__ residual, long long at) {
  const float v = Epi::apply(acc, bias);
  if constexpr (Epi::kUsesResidual) return v + to_float(residual[at]);
  return v;
}

/// The unfused baseline's bias+GELU kernel: the GELU in PyTorch's formula (see ActGeluTorch).
using EpilogueBiasGeluTorch = FusedEpilogue<ActGeluTorch, true>;

/// Names of registry epilogues and activations that kernels and baselines spell out.
using EpilogueNone = FusedEpilogue<ActIdentity, false>;  // split-K partials: the raw sums
using EpilogueBias = FusedEpilogue<ActIdentity, true>;   // eager's bias add
using ActivationRelu = ActRelu;                          // eager's third kernel
using ActivationGeluErf = ActGeluTorch;                  // eager's GELU kernel

/// The one map from the run-time Epilogue to its type, read off the registry's row:
/// `EpilogueFor<Epilogue::bias_gelu>` is the exact (erf) GELU with a column bias. Emitted kernels
/// and the host dispatcher (harness/dispatch.cuh) both go through it.
template <Epilogue E>
using EpilogueFor = FusedEpilogue<ActivationFunctor<epilogue_spec(E).activation>, epilogue_spec(E).reads.column_bias,
                                  epilogue_spec(E).reads.residual, epilogue_spec(E).reads.gated>;

}  // namespace coalesce
