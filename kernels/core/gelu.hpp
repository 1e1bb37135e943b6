// The constants of both GELU forms, named once for the kernels (float) and the fp64 reference
// (double): a formula written twice must not also carry its constants twice. Device-safe.
#pragma once

namespace coalesce::gelu {

/// 1/sqrt(2): the exact GELU is x/2 · (1 + erf(x/sqrt(2))) (Hendrycks & Gimpel 2016, eq. 1).
constexpr double kInvSqrt2 = 0.70710678118654752440;
/// sqrt(2/pi): the tanh approximation's scale, x/2 · (1 + tanh(sqrt(2/pi)(x + 0.044715 x^3))) (eq. 2).
constexpr double kSqrt2OverPi = 0.79788456080286535588;
/// The tanh approximation's cubic coefficient.
constexpr double kCubic = 0.044715;
/// The largest relative error the fused kernels' GELU (gelu_exact, kernels/core/epilogue.cuh) may
/// have where GELU is not tiny (x >= -3; below, |GELU(x)| < 0.005·|x| and its error is no part of
/// the check's scaled figures): tests/gpu/epilogue_test.cu enforces it on the GPU, and the
/// tolerance of a GELU epilogue allows for it (harness/check.cpp). An f32 GELU of about 20
/// instructions is a few ulps off at best: Horner's rounding, and the rounding of the exponent.
constexpr double kMaxRelError = 3e-6;

}  // namespace coalesce::gelu
