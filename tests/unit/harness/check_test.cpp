// The verdict on error figures and the per-dtype tolerances.
#include "harness/check.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace {

using namespace coalesce;

ErrorFigures figures(double rel, double max_err, double max_ref = 100, long long non_finite = 0) {
  return {rel, max_err, max_ref, non_finite, 1 << 20};
}

TEST(Judge, PassesFp32ScaleErrors) {
  const CheckResult r = judge(figures(3e-6, 1e-3), tolerance_for(Dtype::f32));
  EXPECT_TRUE(r.passed);
  EXPECT_TRUE(r.why.empty());
}

TEST(Judge, AnyNonFiniteOutputFails) {
  const CheckResult r = judge(figures(0, 0, 100, 1), tolerance_for(Dtype::f32));
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.why.find("NaN"), std::string::npos) << r.why;
}

TEST(Judge, NormwiseErrorOverTheBoundFails) {
  EXPECT_FALSE(judge(figures(1.1e-4, 0), tolerance_for(Dtype::f32)).passed);
  EXPECT_TRUE(judge(figures(0.9e-4, 0), tolerance_for(Dtype::f32)).passed);
  EXPECT_FALSE(judge(figures(NAN, 0), tolerance_for(Dtype::f32)).passed);
}

TEST(Judge, ALocalErrorFailsThoughTheNormIsSmall) {
  // One element off by 1 in 2^20 of size ~100: normwise ~1e-5, but 1% of max|ref|.
  const CheckResult r = judge(figures(1e-5, 1.0, 100), tolerance_for(Dtype::f32));
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.why.find("max abs"), std::string::npos) << r.why;
}

TEST(Judge, NothingComparedFails) {
  ErrorFigures f{};
  EXPECT_FALSE(judge(f, tolerance_for(Dtype::f32)).passed);
}

TEST(Tolerance, WidensWithLowerPrecisionAndRejectsTf32ErrorsForF32) {
  const Tolerance f32 = tolerance_for(Dtype::f32), tf32 = tolerance_for(Dtype::tf32),
                  bf16 = tolerance_for(Dtype::bf16);
  EXPECT_LT(f32.rel_frobenius, tf32.rel_frobenius);
  EXPECT_LT(tf32.rel_frobenius, bf16.rel_frobenius);
  EXPECT_LT(f32.max_abs_over_max_ref, tf32.max_abs_over_max_ref);
  EXPECT_LT(tf32.max_abs_over_max_ref, bf16.max_abs_over_max_ref);
  // The error TF32 operands typically produce (METHOD.md: near 3e-4) fails f32, passes tf32.
  EXPECT_FALSE(judge(figures(3e-4, 0), f32).passed);
  EXPECT_TRUE(judge(figures(3e-4, 0), tf32).passed);
}

}  // namespace
