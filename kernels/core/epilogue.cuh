// Fused epilogues: what is applied to each accumulator before the one store of C, written once
// for every family. Each type is headed by its formula and computes in the accumulator's type
// `Acc` (f32 in every kernel); the store rounds to C's type once. erf and tanh GELU are
// different types (cuBLASLt uses tanh). Device-safe under nvcc and NVRTC.
#pragma once

#include "kernels/core/gelu.hpp"
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
__device__ __forceinline__ float gelu_tanh(float x) {
  return 0.5f * x *
         (1.0f + tanhf(static_cast<float>(gelu::kSqrt2OverPi) * (x + static_cast<float>(gelu::kCubic) * x * x * x)));
}

/// C = acc
struct EpilogueNone {
  static constexpr bool kUsesBias = false;
  template <class Acc>
  __device__ __forceinline__ static Acc apply(Acc acc, Acc) { return acc; }
};
/// C = acc + bias[n]
struct EpilogueBias {
  static constexpr bool kUsesBias = true;
  template <class Acc>
  __device__ __forceinline__ static Acc apply(Acc acc, Acc b) { return acc + b; }
};
/// C = max(acc + bias[n], 0)
struct EpilogueBiasRelu {
  static constexpr bool kUsesBias = true;
  template <class Acc>
  __device__ __forceinline__ static Acc apply(Acc acc, Acc b) { return fmaxf(acc + b, Acc(0)); }
};
/// C = gelu_exact(acc + bias[n]) — PyTorch's default (exact, erf) GELU, as every fused kernel
/// computes it
struct EpilogueBiasGeluErf {
  static constexpr bool kUsesBias = true;
  template <class Acc>
  __device__ __forceinline__ static Acc apply(Acc acc, Acc b) { return gelu_exact(acc + b); }
};
/// C = gelu_erf(acc + bias[n]) — the same GELU in PyTorch's own formula (erff), for the unfused
/// baseline's bias+GELU kernel, which stands for what Inductor emits
struct EpilogueBiasGeluTorch {
  static constexpr bool kUsesBias = true;
  template <class Acc>
  __device__ __forceinline__ static Acc apply(Acc acc, Acc b) { return gelu_erf(acc + b); }
};
/// C = gelu_tanh(acc + bias[n]) — cuBLASLt's CUBLASLT_EPILOGUE_GELU_BIAS
struct EpilogueBiasGeluTanh {
  static constexpr bool kUsesBias = true;
  template <class Acc>
  __device__ __forceinline__ static Acc apply(Acc acc, Acc b) { return gelu_tanh(acc + b); }
};

/// x = max(x, 0), the activation alone (eager's third kernel)
struct ActivationRelu {
  template <class Acc>
  __device__ __forceinline__ static Acc apply(Acc x) { return fmaxf(x, Acc(0)); }
};
/// x = gelu_erf(x), eager's GELU kernel in PyTorch's formula
struct ActivationGeluErf {
  template <class Acc>
  __device__ __forceinline__ static Acc apply(Acc x) { return gelu_erf(x); }
};

/// The one map from the run-time Epilogue to its type: `EpilogueFor<Epilogue::bias_gelu>` is the
/// exact (erf) GELU, `EpilogueFor<Epilogue::bias_gelu, true>` cuBLASLt's tanh form. Emitted
/// kernels and the host dispatcher (harness/dispatch.cuh) both go through it.
template <Epilogue E, bool TanhGelu = false> struct EpilogueForT;
template <bool T> struct EpilogueForT<Epilogue::none, T> { using type = EpilogueNone; };
template <bool T> struct EpilogueForT<Epilogue::bias, T> { using type = EpilogueBias; };
template <bool T> struct EpilogueForT<Epilogue::bias_relu, T> { using type = EpilogueBiasRelu; };
template <> struct EpilogueForT<Epilogue::bias_gelu, false> { using type = EpilogueBiasGeluErf; };
template <> struct EpilogueForT<Epilogue::bias_gelu, true> { using type = EpilogueBiasGeluTanh; };
template <Epilogue E, bool TanhGelu = false> using EpilogueFor = typename EpilogueForT<E, TanhGelu>::type;

}  // namespace coalesce
