// Tolerances and the verdict on error figures (see check.hpp).
#include "check.hpp"

#include <cmath>
#include <cstdio>

#include "kernels/core/epilogues.hpp"

namespace coalesce {

Tolerance tolerance_for(const Problem& problem, int roundings) {
  const GemmTypes t = problem.types();
  const double u_c = unit_roundoff(t.c);
  // Operand rounding in the math only counts where the math is narrower than the storage
  // (TF32 math on f32 inputs); 16-bit inputs reach the tensor cores exactly.
  const double u_op = unit_roundoff(t.math) > unit_roundoff(t.a) ? unit_roundoff(t.math) : 0.0;
  const double u_acc = unit_roundoff(t.accumulator);
  const double r = roundings < 1 ? 1.0 : static_cast<double>(roundings);
  // A gated output act(g)·u carries the errors of both products, each bounded as one product's
  // relative to its own scale (|g| + rms)·(|u| + rms) (docs/kernels.md, "Correctness"): twice e.
  const double products = epilogue_spec(problem.epilogue).reads.gated ? 2.0 : 1.0;
  const double e = products * (2.2 * u_op + std::sqrt(static_cast<double>(problem.k)) * u_acc);
  // The activation's own error, a hard bound per element (0 for the exact ones: add, max).
  const double act = epilogue_spec(problem.epilogue).activation_error;
  return {3.0 * (std::sqrt(r) * u_c / std::sqrt(3.0) + e) + act, 1.13 * (r * u_c + 16.0 * e) + act};
}

CheckResult judge(const ErrorFigures& errors, const Tolerance& tolerance) {
  CheckResult r;
  r.errors = errors;
  r.tolerance = tolerance;
  char buf[200];
  if (errors.count <= 0) {
    r.why = "no elements were compared";
  } else if (errors.non_finite > 0) {
    std::snprintf(buf, sizeof buf, "%lld of %lld outputs are NaN or infinite (unwritten or overflowed)",
                  errors.non_finite, errors.count);
    r.why = buf;
  } else if (!std::isfinite(errors.rel_frobenius) || errors.rel_frobenius > tolerance.rel_frobenius) {
    std::snprintf(buf, sizeof buf, "relative Frobenius error %.3g exceeds %.3g", errors.rel_frobenius,
                  tolerance.rel_frobenius);
    r.why = buf;
  } else if (!(errors.max_scaled_err <= tolerance.max_scaled)) {
    std::snprintf(buf, sizeof buf,
                  "an element is off by %.3g of its scale (|pre-activation| + rms), more than %.3g "
                  "(max abs error %.3g)",
                  errors.max_scaled_err, tolerance.max_scaled, errors.max_abs_err);
    r.why = buf;
  } else {
    r.passed = true;
  }
  return r;
}

}  // namespace coalesce
