// Correctness figures of one output against the fp64 reference, the per-dtype tolerances, and
// the verdict. The figures are computed on the GPU (workspace.cu); the verdict is host logic.
#pragma once

#include <string>

#include "kernels/names.hpp"

namespace coalesce {

/// How far an output is from the reference, over all M·N elements.
struct ErrorFigures {
  double rel_frobenius = 0;  ///< ||out - ref||_F / ||ref||_F over the finite outputs
  double max_abs_err = 0;    ///< max |out - ref| over the finite outputs
  double max_abs_ref = 0;    ///< max |ref|, the scale max_abs_err is judged against
  long long non_finite = 0;  ///< outputs that are NaN or ±inf (an unwritten element is NaN)
  long long count = 0;       ///< elements compared
};

/// The largest errors a correct kernel of a dtype may show; both must hold.
///
/// f32: rel_frobenius 1e-4. FP32 rounding (u = 2^-24 ≈ 6e-8) accumulated over K ≤ 8192 products
/// of inputs uniform in [-1, 1) gives a normwise error of about u·sqrt(K) ≤ 6e-6 for any
/// summation order, so 1e-4 leaves a 15× margin. It is still 3× below what TF32 operands
/// (u = 2^-11) produce (~3e-4), so a GEMM that silently uses TF32 fails, and far below what the
/// bugs it must catch produce: dropping one 8-wide K slice of 8192 gives sqrt(8/8192) ≈ 3e-2,
/// reading bias[m] for bias[n] ≈ 1e-2 at K = 8192 (the bias is O(1), the products O(sqrt(K))),
/// a transposed operand ≈ 1.4. The max-abs bound (1e-3 of max|ref|) catches a small patch of
/// wrong elements (one edge row or tile) that a normwise figure over 16M elements would average
/// away; FP32's worst element error is ~1e-5 of max|ref| at K = 8192.
///
/// tf32: 2e-3 / 1e-2 (METHOD.md: TF32 lands near 3e-4 normwise). bf16: 2e-2 / 5e-2 (bf16
/// operands land between 1e-3 and 1e-2).
struct Tolerance {
  double rel_frobenius;
  double max_abs_over_max_ref;
};

/// The tolerance of a dtype (see Tolerance).
Tolerance tolerance_for(Dtype d);

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
