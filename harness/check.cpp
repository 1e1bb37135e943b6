// Tolerances and the verdict on error figures (see check.hpp).
#include "check.hpp"

#include <cmath>
#include <cstdio>

namespace coalesce {

Tolerance tolerance_for(Dtype d) {
  switch (d) {
    case Dtype::f32: return {1e-4, 1e-3};
    case Dtype::tf32: return {2e-3, 1e-2};
    case Dtype::bf16: return {2e-2, 5e-2};
  }
  return {0, 0};
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
  } else if (!(errors.max_abs_err <= tolerance.max_abs_over_max_ref * errors.max_abs_ref)) {
    std::snprintf(buf, sizeof buf, "max abs error %.3g exceeds %.3g x max|ref| (%.3g)",
                  errors.max_abs_err, tolerance.max_abs_over_max_ref, errors.max_abs_ref);
    r.why = buf;
  } else {
    r.passed = true;
  }
  return r;
}

}  // namespace coalesce
