// Storage types of the GEMM's elements on the device and their conversions to and from the f32
// the kernels compute in. The 16-bit types are plain bit containers converted with PTX `cvt`,
// so the kernels need no toolkit header under NVRTC (cuda_bf16.h is not one of its built-ins).
// Device-only; compiles under nvcc and NVRTC.
#pragma once

#include "kernels/core/types.hpp"

namespace coalesce {

/// bfloat16 in memory: the upper half of an f32 (8-bit exponent, 7-bit mantissa).
struct alignas(2) bf16_t {
  unsigned short bits;
};
/// IEEE binary16 in memory (5-bit exponent, 10-bit mantissa).
struct alignas(2) f16_t {
  unsigned short bits;
};

/// The C++ type of an Element.
template <Element E> struct StorageOf;
template <> struct StorageOf<Element::f32> { using type = float; };
template <> struct StorageOf<Element::bf16> { using type = bf16_t; };
template <> struct StorageOf<Element::f16> { using type = f16_t; };
template <Element E> using storage_t = typename StorageOf<E>::type;

/// A dtype's types as C++ types, for kernel templates: `typename GemmOf<Dtype::bf16>::A`.
template <Dtype D>
struct GemmOf {
  static constexpr GemmTypes types = gemm_types(D);
  using A = storage_t<types.a>;
  using B = storage_t<types.b>;
  using Bias = storage_t<types.bias>;
  using C = storage_t<types.c>;
  static constexpr Dtype dtype = D;
  static constexpr Math math = types.math;
};

__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(bf16_t x) { return __int_as_float(static_cast<int>(x.bits) << 16); }
__device__ __forceinline__ float to_float(f16_t x) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(x.bits));
  return f;
}

/// f32 to a storage type, rounding to nearest even (the one rounding of C on store).
template <class T> __device__ __forceinline__ T from_float(float x);
template <> __device__ __forceinline__ float from_float<float>(float x) { return x; }
template <> __device__ __forceinline__ bf16_t from_float<bf16_t>(float x) {
  bf16_t r;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r.bits) : "f"(x));
  return r;
}
template <> __device__ __forceinline__ f16_t from_float<f16_t>(float x) {
  f16_t r;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(r.bits) : "f"(x));
  return r;
}

}  // namespace coalesce
