// Fused epilogues: what is applied to each accumulator before the one store of C. Each type is
// headed by its formula; erf and tanh GELU are different types (cuBLASLt uses tanh).
// Device-safe under nvcc and NVRTC.
#pragma once

namespace coalesce {

/// 1/sqrt(2), for the exact GELU's erf argument.
constexpr float kInvSqrt2 = 0.70710678118654752440f;
/// sqrt(2/pi), the tanh approximation's scale (Hendrycks & Gimpel 2016, eq. 2).
constexpr float kSqrt2OverPi = 0.79788456080286535588f;
/// The cubic coefficient of the tanh approximation.
constexpr float kGeluCubic = 0.044715f;

__device__ __forceinline__ float gelu_erf(float x) { return 0.5f * x * (1.0f + erff(x * kInvSqrt2)); }
__device__ __forceinline__ float gelu_tanh(float x) {
  return 0.5f * x * (1.0f + tanhf(kSqrt2OverPi * (x + kGeluCubic * x * x * x)));
}

/// C = acc
struct EpilogueNone {
  static constexpr bool kUsesBias = false;
  __device__ __forceinline__ static float apply(float acc, float) { return acc; }
};
/// C = acc + bias[n]
struct EpilogueBias {
  static constexpr bool kUsesBias = true;
  __device__ __forceinline__ static float apply(float acc, float b) { return acc + b; }
};
/// C = max(acc + bias[n], 0)
struct EpilogueBiasRelu {
  static constexpr bool kUsesBias = true;
  __device__ __forceinline__ static float apply(float acc, float b) { return fmaxf(acc + b, 0.0f); }
};
/// C = gelu_erf(acc + bias[n]) — PyTorch's default GELU
struct EpilogueBiasGeluErf {
  static constexpr bool kUsesBias = true;
  __device__ __forceinline__ static float apply(float acc, float b) { return gelu_erf(acc + b); }
};
/// C = gelu_tanh(acc + bias[n]) — cuBLASLt's CUBLASLT_EPILOGUE_GELU_BIAS
struct EpilogueBiasGeluTanh {
  static constexpr bool kUsesBias = true;
  __device__ __forceinline__ static float apply(float acc, float b) { return gelu_tanh(acc + b); }
};

}  // namespace coalesce
