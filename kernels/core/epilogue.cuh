// Fused epilogues: what is applied to each accumulator before the one store of C, written once
// for every family. Each type is headed by its formula and computes in the accumulator's type
// `Acc` (f32 in every kernel); the store rounds to C's type once. erf and tanh GELU are
// different types (cuBLASLt uses tanh). Device-safe under nvcc and NVRTC.
#pragma once

#include "kernels/core/gelu.hpp"
#include "kernels/core/types.hpp"

namespace coalesce {

__device__ __forceinline__ float gelu_erf(float x) {
  return 0.5f * x * (1.0f + erff(x * static_cast<float>(gelu::kInvSqrt2)));
}
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
/// C = gelu_erf(acc + bias[n]) — PyTorch's default GELU
struct EpilogueBiasGeluErf {
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
/// x = gelu_erf(x)
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
