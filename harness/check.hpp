// Correctness figures of one output against the fp64 reference, the tolerance each dtype and K
// allow, and the verdict. The figures are computed on the GPU (workspace.cu); the verdict is
// host logic, shared with `coalesce-tune record` for measurements taken outside the harness.
#pragma once

#include <string>

#include "kernels/core/problem.hpp"

namespace coalesce {

/// How far an output is from the reference, over all M·N elements (M·N/2 of a gated epilogue).
/// `pre` is the reference before the activation (A·B + bias), whose root mean square sets the
/// scale of every error; a gated output's scale is (|gate| + rms)·(|up| + rms).
struct ErrorFigures {
  double rel_frobenius = 0;   ///< ||out - ref||_F / ||ref||_F over the finite outputs
  double max_abs_err = 0;     ///< max |out - ref| over the finite outputs
  double max_abs_ref = 0;     ///< max |ref|
  double max_scaled_err = 0;  ///< max |out - ref| / (|pre| + rms(pre)): the elementwise figure
  long long non_finite = 0;   ///< outputs that are NaN or ±inf (an unwritten element is NaN)
  long long count = 0;        ///< elements compared
};

/// The largest errors a correct kernel may show: both must hold (docs/kernels.md, "Correctness",
/// has the derivation). With inputs uniform in [-1, 1) and the reference computed from the very
/// (rounded) inputs the kernel received, a correct output differs from it only by
///   - the roundings of C to its storage type (unit roundoff u_c; `roundings` of them: 1 for a
///     fused kernel, one per kernel of an unfused sequence that stores C in the dtype), each
///     at most u_c·|value|, i.e. u_c/sqrt(3) normwise;
///   - the rounding of f32 operands to the math type when it is narrower than storage (TF32:
///     u_op = 2^-11; up to 2·u_op per operand if the hardware truncates), a random-sign error of
///     about sqrt(14/3)·u_op·rms(pre) per element whatever K is;
///   - f32 accumulation, about sqrt(K)·2^-24 of the running sums.
///   - the activation's own error a (GELU: gelu::kMaxRelError = 3e-6 relative where GELU is not
///     tiny, which the GPU's epilogue test enforces; add and max are exact: a = 0), a hard bound
///     per element that f32 at small K would otherwise not cover.
/// Let e = 2.2·u_op + sqrt(K)·2^-24. Then
///   rel_frobenius  <= 3 · (sqrt(roundings)·u_c/sqrt(3) + e) + a    (normwise, 3× the expectation)
///   max_scaled_err <= 1.13 · (roundings·u_c + 16·e) + a            (every element; GELU's slope ≤ 1.13)
/// f32 with GELU at K = 4096: 1.5e-5 and 7.2e-5 (correct kernels measure 1.1e-6 normwise on the H200);
/// bf16: 6.8e-3 and 4.5e-3. A gated epilogue (act(g)·u) counts e twice, once per product. The planted bugs land far outside: a missing bias or a dropped last
/// k at K = 8192 in bf16 is 1.1e-2 to 1.9e-2 normwise and up to 3e-2 scaled; one tile without
/// bias is up to 1/rms(pre) scaled; ReLU for GELU shows on the bend inputs (harness/method.hpp).
struct Tolerance {
  double rel_frobenius;
  double max_scaled;
};

/// The tolerance of an output of `problem` that was rounded to its C type `roundings` times.
Tolerance tolerance_for(const Problem& problem, int roundings = 1);

/// A verdict on one output: passed, or why not in one sentence.
struct CheckResult {
  ErrorFigures errors;
  Tolerance tolerance{};
  bool passed = false;
  std::string why;  ///< empty when passed
};

/// Judges figures against a tolerance: any non-finite output fails, then both bounds must hold.
CheckResult judge(const ErrorFigures& errors, const Tolerance& tolerance);

}  // namespace coalesce
