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

}  // namespace coalesce::gelu
