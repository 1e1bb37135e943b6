// The types of a GEMM as data (CUTLASS separates ElementA, ElementB, ElementAccumulator,
// ElementC and the math operation the same way): a dtype is one value of GemmTypes, not a code
// path. Device-safe (no standard headers), so kernels and host code read the same table.
#pragma once

#include "kernels/core/limits.hpp"

namespace coalesce {

/// A storage type of a matrix or vector in memory.
enum class Element : int { f32, bf16, f16 };

/// How the multiply-adds are computed: plain FP32 FMAs, or tensor-core math on TF32 (FP32
/// operands rounded to a 10-bit mantissa), BF16 or FP16 operands.
enum class Math : int { f32, tf32, bf16, f16 };

/// The CLI's short name for a GEMM's types; gemm_types() says what each one stores and computes in.
enum class Dtype : int { f32, tf32, bf16, f16 };

/// What is applied to each accumulator before the one store of C: an index into the epilogue
/// registry (kernels/core/epilogues.hpp, kEpilogues), whose rows say everything else about it.
enum class Epilogue : int { none, bias, bias_relu, bias_gelu, bias_gelu_tanh, bias_silu, bias_gelu_residual, swiglu, geglu };

/// The types of one GEMM: A (M×K), B (K×N), bias (N), C (M×N), the accumulator, and the math.
/// The epilogue computes in the accumulator's type and rounds once, on the store of C.
struct GemmTypes {
  Element a, b, bias, c;
  Element accumulator;
  Math math;
};

/// f32: f32 everywhere. tf32: f32 storage, TF32 tensor-core math, f32 accumulation. bf16 and f16:
/// 16-bit A, B, bias and C, f32 accumulation and epilogue (what PyTorch's 16-bit `linear`
/// followed by `gelu` returns, up to rounding).
COALESCE_HD constexpr GemmTypes gemm_types(Dtype d) {
  switch (d) {
    case Dtype::f32: return {Element::f32, Element::f32, Element::f32, Element::f32, Element::f32, Math::f32};
    case Dtype::tf32: return {Element::f32, Element::f32, Element::f32, Element::f32, Element::f32, Math::tf32};
    case Dtype::bf16: return {Element::bf16, Element::bf16, Element::bf16, Element::bf16, Element::f32, Math::bf16};
    case Dtype::f16: return {Element::f16, Element::f16, Element::f16, Element::f16, Element::f32, Math::f16};
  }
  return {Element::f32, Element::f32, Element::f32, Element::f32, Element::f32, Math::f32};
}

/// Bytes of one element in memory.
COALESCE_HD constexpr int element_bytes(Element e) { return e == Element::f32 ? 4 : 2; }

/// Unit roundoff u = 2^-(p) of a floating-point format with p significand bits (counting the
/// implicit one): f32 2^-24, TF32 2^-11, bf16 2^-8, f16 2^-11. Tolerances are derived from it.
COALESCE_HD constexpr double unit_roundoff(Element e) {
  return e == Element::f32 ? 5.9604644775390625e-08 : (e == Element::bf16 ? 3.90625e-03 : 4.8828125e-04);
}
COALESCE_HD constexpr double unit_roundoff(Math m) {
  switch (m) {
    case Math::f32: return 5.9604644775390625e-08;
    case Math::tf32: return 4.8828125e-04;
    case Math::bf16: return 3.90625e-03;
    case Math::f16: return 4.8828125e-04;
  }
  return 1.0;
}

}  // namespace coalesce
