// The verdict on error figures and the tolerance per dtype and K (harness/check.hpp). Besides the
// judge's own rules, the planted-bug tests simulate on the CPU what the GPU check does: inputs
// drawn as the harness draws them and rounded to the dtype's storage, a "kernel" computing in
// the dtype's math with f32 accumulation and one rounding of C, the fp64 reference from the
// rounded inputs, the same three figures, and the same judge. Every planted bug must fail in
// every dtype at small and large K, and the correct kernel must pass with room to spare.
#include "harness/check.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include "kernels/core/epilogue_reference.hpp"
#include "kernels/core/gelu.hpp"

namespace {

using namespace coalesce;

ErrorFigures figures(double rel, double max_scaled, long long non_finite = 0) {
  return {rel, 0.0, 100.0, max_scaled, non_finite, 1 << 20};
}

const Problem kF32{4096, 4096, 4096, Dtype::f32, Epilogue::bias_gelu};

TEST(Judge, PassesFp32ScaleErrors) {
  const CheckResult r = judge(figures(1.1e-6, 1e-6), tolerance_for(kF32));
  EXPECT_TRUE(r.passed);
  EXPECT_TRUE(r.why.empty());
}

TEST(Judge, AnyNonFiniteOutputFails) {
  const CheckResult r = judge(figures(0, 0, 1), tolerance_for(kF32));
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.why.find("NaN"), std::string::npos) << r.why;
}

TEST(Judge, EachBoundHoldsUpToItsValueAndNotBeyond) {
  const Tolerance t = tolerance_for(kF32);
  EXPECT_TRUE(judge(figures(t.rel_frobenius, t.max_scaled), t).passed);
  EXPECT_FALSE(judge(figures(std::nextafter(t.rel_frobenius, 1.0), 0), t).passed);
  EXPECT_FALSE(judge(figures(0, std::nextafter(t.max_scaled, 1.0)), t).passed);
  EXPECT_FALSE(judge(figures(NAN, 0), t).passed);
  EXPECT_FALSE(judge(figures(0, NAN), t).passed);
  const CheckResult local = judge(figures(1e-7, 1.0), t);
  EXPECT_NE(local.why.find("element is off"), std::string::npos) << local.why;
}

TEST(Judge, NothingComparedFails) {
  ErrorFigures f{};
  EXPECT_FALSE(judge(f, tolerance_for(kF32)).passed);
}

// GELU's own error is in the tolerance of a GELU epilogue and of no other: add and max are exact.
// At K = 1 in f32 the rest of the bound is 2.8e-7, below what an f32 GELU can promise (a few
// ulps: the fused one measures up to 1.3e-6 on the H200, PyTorch's erff formula 2.2e-5).
TEST(Tolerance, AllowsForTheGeluAndOnlyForIt) {
  for (const Dtype d : {Dtype::f32, Dtype::tf32, Dtype::bf16, Dtype::f16}) {
    for (const int k : {1, 4096}) {
      const Tolerance gelu = tolerance_for({64, 64, k, d, Epilogue::bias_gelu});
      for (const Epilogue exact : {Epilogue::none, Epilogue::bias, Epilogue::bias_relu}) {
        const Tolerance t = tolerance_for({64, 64, k, d, exact});
        EXPECT_NEAR(gelu.rel_frobenius - t.rel_frobenius, gelu::kMaxRelError, 1e-9 * gelu.rel_frobenius);
        EXPECT_NEAR(gelu.max_scaled - t.max_scaled, gelu::kMaxRelError, 1e-9 * gelu.max_scaled);
      }
    }
  }
  const Tolerance k1 = tolerance_for({1, 1, 1, Dtype::f32, Epilogue::bias_gelu});
  EXPECT_TRUE(judge(figures(1.3e-6, 1.3e-6), k1).passed);
  EXPECT_FALSE(judge(figures(1e-4, 0), k1).passed);
}

// The bounds of check.hpp's derivation, value by value.
TEST(Tolerance, FollowsFromUnitRoundoffAndK) {
  const double u24 = std::ldexp(1.0, -24), u8 = std::ldexp(1.0, -8), u11 = std::ldexp(1.0, -11);
  const double gelu = gelu::kMaxRelError;
  const Tolerance f32 = tolerance_for(kF32);
  EXPECT_DOUBLE_EQ(f32.rel_frobenius, 3 * (u24 / std::sqrt(3.0) + 64 * u24) + gelu);
  EXPECT_DOUBLE_EQ(f32.max_scaled, 1.13 * (u24 + 16 * 64 * u24) + gelu);
  const Tolerance bf16 = tolerance_for({4096, 4096, 4096, Dtype::bf16, Epilogue::bias_gelu});
  EXPECT_DOUBLE_EQ(bf16.rel_frobenius, 3 * (u8 / std::sqrt(3.0) + 64 * u24) + gelu);
  const Tolerance tf32 = tolerance_for({4096, 4096, 4096, Dtype::tf32, Epilogue::bias_gelu});
  EXPECT_DOUBLE_EQ(tf32.rel_frobenius, 3 * (u24 / std::sqrt(3.0) + 2.2 * u11 + 64 * u24) + gelu);
  // More K, more accumulation error; more roundings of C (eager's three kernels), more error.
  EXPECT_LT(tolerance_for({64, 64, 256, Dtype::f32}).rel_frobenius, f32.rel_frobenius);
  EXPECT_LT(bf16.max_scaled, tolerance_for({4096, 4096, 4096, Dtype::bf16}, 3).max_scaled);
  // TF32 math on f32 data fails the f32 bound: 3e-4 is the relative error TF32 rounding gives
  // (a 10-bit mantissa, unit roundoff 2^-11 = 4.9e-4).
  EXPECT_FALSE(judge(figures(3e-4, 0), f32).passed);
  EXPECT_TRUE(judge(figures(3e-4, 0), tf32).passed);
}

// --- The CPU model of the GPU check -------------------------------------------------------

float round_bits(float x, int dropped_bits) {  // round to nearest even, dropping low mantissa bits
  std::uint32_t u;
  std::memcpy(&u, &x, 4);
  const std::uint32_t half = (1u << (dropped_bits - 1)) - 1 + ((u >> dropped_bits) & 1u);
  u = (u + half) & ~((1u << dropped_bits) - 1);
  std::memcpy(&x, &u, 4);
  return x;
}

float to_storage(float x, Element e) {
  switch (e) {
    case Element::f32: return x;
    case Element::bf16: return round_bits(x, 16);
    case Element::f16: return static_cast<float>(static_cast<_Float16>(x));
  }
  return x;
}

float to_math(float x, Math m) { return m == Math::tf32 ? round_bits(x, 13) : x; }

enum class Bug {
  none,
  transposed_b,       // B read as if column-major (square problems)
  missing_bias,
  doubled_bias,
  dropped_last_k,     // the last k of the sum is never added
  skipped_k_slice,    // an 8-wide slice of K in the middle is skipped
  relu_for_gelu,
  tile_without_bias,  // one 16 x 16 tile of C misses its bias
  wrong_edge_tile,    // the last tile column stores its neighbour's values
  residual_twice,     // the residual added twice
  missing_residual,   // the residual never added
  tanh_for_erf,       // the tanh GELU where the epilogue's is the erf GELU
  erf_for_tanh,       // and the other way round
};

// The activation as an f32 kernel computes it (standard-library f32 functions standing in for
// the device's), with the planted GELU swaps.
float kernel_activation(Activation a, float x, Bug bug) {
  if (bug == Bug::tanh_for_erf && a == Activation::gelu_erf) a = Activation::gelu_tanh;
  else if (bug == Bug::erf_for_tanh && a == Activation::gelu_tanh) a = Activation::gelu_erf;
  switch (a) {
    case Activation::identity: return x;
    case Activation::relu: return std::max(x, 0.0f);
    case Activation::gelu_erf: return 0.5f * x * (1.0f + std::erf(x * static_cast<float>(gelu::kInvSqrt2)));
    case Activation::gelu_tanh:
      return 0.5f * x *
             (1.0f + std::tanh(static_cast<float>(gelu::kSqrt2OverPi) * (x + static_cast<float>(gelu::kCubic) * x * x * x)));
    case Activation::silu: return x / (1.0f + std::exp(-x));
  }
  return x;
}

struct Simulation {
  ErrorFigures figures;
  Tolerance tolerance;
};

// One output of an M x N x K problem in `dtype` with `epilogue`, as the harness would check it:
// the reference is the registry's (kernels/core/epilogue_reference.hpp), the residual (where the
// epilogue reads one) drawn like the other inputs and stored in C's type.
Simulation simulate(Dtype dtype, int m, int n, int k, Bug bug, bool bend, unsigned seed,
                    Epilogue epilogue = Epilogue::bias_gelu) {
  const Problem p{m, n, k, dtype, epilogue};
  const EpilogueSpec& spec = epilogue_spec(epilogue);
  const GemmTypes t = p.types();
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  const float a_scale = bend ? static_cast<float>(3.0 / std::sqrt(static_cast<double>(k))) : 1.0f;
  std::vector<float> a(static_cast<std::size_t>(m) * k), b(static_cast<std::size_t>(k) * n), bias(n);
  for (float& v : a) v = to_storage(uniform(rng) * a_scale, t.a);
  for (float& v : b) v = to_storage(uniform(rng), t.b);
  for (float& v : bias) v = to_storage(uniform(rng), t.bias);
  std::vector<float> residual(spec.reads.residual ? static_cast<std::size_t>(m) * n : 0);
  for (float& v : residual) v = to_storage(uniform(rng), t.c);

  std::vector<double> pre(static_cast<std::size_t>(m) * n), ref(pre.size());
  std::vector<float> out(pre.size());
  double sum_sq_pre = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double exact = 0;
      float acc = 0;
      for (int kk = 0; kk < k; ++kk) {
        exact += static_cast<double>(a[i * k + kk]) * b[kk * n + j];
        if (bug == Bug::dropped_last_k && kk == k - 1) continue;
        if (bug == Bug::skipped_k_slice && kk >= k / 2 && kk < k / 2 + 8) continue;
        const float bv = bug == Bug::transposed_b ? b[j * k + kk] : b[kk * n + j];
        acc = std::fma(to_math(a[i * k + kk], t.math), to_math(bv, t.math), acc);
      }
      const std::size_t at = static_cast<std::size_t>(i) * n + j;
      const double r = spec.reads.residual ? residual[at] : 0.0;
      pre[at] = exact + bias[j];
      ref[at] = reference_epilogue(epilogue, exact, bias[j], r);
      sum_sq_pre += pre[at] * pre[at];
      float bias_used = bias[j];
      if (bug == Bug::missing_bias || (bug == Bug::tile_without_bias && i < 16 && j < 16)) bias_used = 0;
      if (bug == Bug::doubled_bias) bias_used = 2 * bias[j];
      const float x = acc + bias_used;
      float y = bug == Bug::relu_for_gelu ? std::max(x, 0.0f) : kernel_activation(spec.activation, x, bug);
      const int residual_adds = bug == Bug::residual_twice ? 2 : bug == Bug::missing_residual ? 0 : 1;
      if (spec.reads.residual) y += static_cast<float>(residual_adds) * residual[at];
      out[at] = to_storage(y, t.c);
    }
  if (bug == Bug::wrong_edge_tile)
    for (int i = 0; i < m; ++i)
      for (int j = n - 16; j < n; ++j) out[static_cast<std::size_t>(i) * n + j] = out[static_cast<std::size_t>(i) * n + j - 16];

  const double rms = std::sqrt(sum_sq_pre / static_cast<double>(pre.size()));
  double sq_err = 0, sq_ref = 0;
  ErrorFigures f;
  f.count = static_cast<long long>(out.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    const double e = std::fabs(static_cast<double>(out[i]) - ref[i]);
    sq_err += e * e;
    sq_ref += ref[i] * ref[i];
    f.max_abs_err = std::max(f.max_abs_err, e);
    f.max_abs_ref = std::max(f.max_abs_ref, std::fabs(ref[i]));
    const double r = residual.empty() ? 0.0 : std::fabs(static_cast<double>(residual[i]));
    f.max_scaled_err = std::max(f.max_scaled_err, e / (std::fabs(pre[i]) + r + rms));
  }
  f.rel_frobenius = std::sqrt(sq_err / sq_ref);
  return {f, tolerance_for(p)};
}

struct Case {
  Dtype dtype;
  int k;
};

class PlantedBugs : public ::testing::TestWithParam<Case> {};

// A correct kernel passes both bounds with room, on normal and bend inputs: a factor 2 below the
// normwise bound (a statistical one), 0.7 of the elementwise one (whose rounding term is a hard
// bound, |fl(x) - x| <= u|x|, that a single element may approach).
TEST_P(PlantedBugs, TheCorrectKernelPassesWithRoom) {
  const Case c = GetParam();
  for (bool bend : {false, true}) {
    const Simulation s = simulate(c.dtype, 64, 64, c.k, Bug::none, bend, 11);
    const CheckResult r = judge(s.figures, s.tolerance);
    EXPECT_TRUE(r.passed) << r.why;
    EXPECT_LT(s.figures.rel_frobenius, 0.5 * s.tolerance.rel_frobenius) << "bend " << bend;
    EXPECT_LT(s.figures.max_scaled_err, 0.7 * s.tolerance.max_scaled) << "bend " << bend;
  }
}

TEST_P(PlantedBugs, EveryBugFails) {
  const Case c = GetParam();
  const Bug on_normal[] = {Bug::transposed_b,   Bug::missing_bias,      Bug::doubled_bias,
                           Bug::dropped_last_k, Bug::skipped_k_slice,   Bug::tile_without_bias,
                           Bug::wrong_edge_tile};
  for (Bug bug : on_normal) {
    // Square where B is read transposed, so the bug stays in bounds.
    const int m = 64, n = bug == Bug::transposed_b ? c.k : 64;
    if (bug == Bug::transposed_b && c.k > 256) continue;
    const Simulation s = simulate(c.dtype, m, n, c.k, bug, false, 12);
    EXPECT_FALSE(judge(s.figures, s.tolerance).passed)
        << "bug " << static_cast<int>(bug) << ": rel " << s.figures.rel_frobenius << " (tol "
        << s.tolerance.rel_frobenius << "), scaled " << s.figures.max_scaled_err << " (tol " << s.tolerance.max_scaled
        << ")";
  }
  // ReLU for GELU shows where the activation bends: on the bend inputs the check adds.
  const Simulation relu = simulate(c.dtype, 64, 64, c.k, Bug::relu_for_gelu, true, 13);
  EXPECT_FALSE(judge(relu.figures, relu.tolerance).passed) << "scaled " << relu.figures.max_scaled_err;
}

// The registry's newer epilogues: a correct kernel passes with the same room; a residual added
// twice or not at all fails in every dtype.
TEST_P(PlantedBugs, NewEpiloguesPassAndTheirResidualBugsFail) {
  const Case c = GetParam();
  for (Epilogue e : {Epilogue::bias_gelu_tanh, Epilogue::bias_silu, Epilogue::bias_gelu_residual})
    for (bool bend : {false, true}) {
      const Simulation s = simulate(c.dtype, 64, 64, c.k, Bug::none, bend, 21, e);
      const CheckResult r = judge(s.figures, s.tolerance);
      EXPECT_TRUE(r.passed) << to_string(e) << ": " << r.why;
      EXPECT_LT(s.figures.rel_frobenius, 0.5 * s.tolerance.rel_frobenius) << to_string(e) << " bend " << bend;
      EXPECT_LT(s.figures.max_scaled_err, 0.7 * s.tolerance.max_scaled) << to_string(e) << " bend " << bend;
    }
  for (Bug bug : {Bug::residual_twice, Bug::missing_residual}) {
    const Simulation s = simulate(c.dtype, 64, 64, c.k, bug, false, 22, Epilogue::bias_gelu_residual);
    EXPECT_FALSE(judge(s.figures, s.tolerance).passed)
        << "bug " << static_cast<int>(bug) << ": rel " << s.figures.rel_frobenius << ", scaled "
        << s.figures.max_scaled_err;
  }
}

INSTANTIATE_TEST_SUITE_P(EachDtypeAtSmallAndLargeK, PlantedBugs,
                         ::testing::Values(Case{Dtype::f32, 256}, Case{Dtype::f32, 8192}, Case{Dtype::tf32, 256},
                                           Case{Dtype::tf32, 8192}, Case{Dtype::bf16, 256}, Case{Dtype::bf16, 8192},
                                           Case{Dtype::f16, 256}, Case{Dtype::f16, 8192}),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return std::string(to_string(info.param.dtype)) + "_k" + std::to_string(info.param.k);
                         });

// A gated epilogue (swiglu, geglu) as the GPU check judges it (harness/workspace.cu): the kernel
// multiplies the interleaved gate/up B in the dtype's math, stores C[m][j] = act(g) * u rounded
// once; the reference is reference_gated() of the exact products; the elementwise figure divides
// by (|g| + rms)(|u| + rms), rms over all M x N products. The planted bugs: the activation on the
// wrong column of the pair (act(u) * g), the two halves of a merged [Wg | Wu] read as if
// interleaved (gate column j, up column j + N/2), and no activation at all.
enum class GatedBug { none, gate_on_up, halves_not_pairs, no_activation };

Simulation simulate_gated(Dtype dtype, int m, int n, int k, GatedBug bug, bool bend, unsigned seed, Epilogue epilogue) {
  const Problem p{m, n, k, dtype, epilogue};
  const EpilogueSpec& spec = epilogue_spec(epilogue);
  const GemmTypes t = p.types();
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  const float a_scale = bend ? static_cast<float>(3.0 / std::sqrt(static_cast<double>(k))) : 1.0f;
  std::vector<float> a(static_cast<std::size_t>(m) * k), b(static_cast<std::size_t>(k) * n);
  for (float& v : a) v = to_storage(uniform(rng) * a_scale, t.a);
  for (float& v : b) v = to_storage(uniform(rng), t.b);
  std::vector<double> exact(static_cast<std::size_t>(m) * n);
  std::vector<float> acc(exact.size());
  double sum_sq = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double e = 0;
      float s = 0;
      for (int kk = 0; kk < k; ++kk) {
        e += static_cast<double>(a[i * k + kk]) * b[kk * n + j];
        s = std::fma(to_math(a[i * k + kk], t.math), to_math(b[kk * n + j], t.math), s);
      }
      exact[static_cast<std::size_t>(i) * n + j] = e;
      acc[static_cast<std::size_t>(i) * n + j] = s;
      sum_sq += e * e;
    }
  const double rms = std::sqrt(sum_sq / static_cast<double>(exact.size()));
  const int half = p.c_cols();
  double sq_err = 0, sq_ref = 0;
  ErrorFigures f;
  f.count = p.c_elements();
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < half; ++j) {
      const std::size_t g = static_cast<std::size_t>(i) * n + 2 * j;
      const double ref = reference_gated(spec.activation, exact[g], exact[g + 1]);
      float gate = acc[g], up = acc[g + 1];
      if (bug == GatedBug::gate_on_up) std::swap(gate, up);
      if (bug == GatedBug::halves_not_pairs) {
        gate = acc[static_cast<std::size_t>(i) * n + j];
        up = acc[static_cast<std::size_t>(i) * n + j + half];
      }
      const float y = bug == GatedBug::no_activation ? gate * up : kernel_activation(spec.activation, gate, Bug::none) * up;
      const double e = std::fabs(static_cast<double>(to_storage(y, t.c)) - ref);
      sq_err += e * e;
      sq_ref += ref * ref;
      f.max_abs_err = std::max(f.max_abs_err, e);
      f.max_abs_ref = std::max(f.max_abs_ref, std::fabs(ref));
      f.max_scaled_err = std::max(f.max_scaled_err, e / ((std::fabs(exact[g]) + rms) * (std::fabs(exact[g + 1]) + rms)));
    }
  f.rel_frobenius = std::sqrt(sq_err / sq_ref);
  return {f, tolerance_for(p)};
}

// The correct gated kernel passes with the room of the other epilogues; each planted bug fails
// in every dtype at small and large K, on normal and bend inputs.
TEST_P(PlantedBugs, GatedEpiloguesPassAndAGateOnTheWrongColumnFails) {
  const Case c = GetParam();
  for (Epilogue e : {Epilogue::swiglu, Epilogue::geglu})
    for (bool bend : {false, true}) {
      const Simulation s = simulate_gated(c.dtype, 32, 64, c.k, GatedBug::none, bend, 41, e);
      const CheckResult r = judge(s.figures, s.tolerance);
      EXPECT_TRUE(r.passed) << to_string(e) << ": " << r.why;
      EXPECT_LT(s.figures.rel_frobenius, 0.5 * s.tolerance.rel_frobenius) << to_string(e) << " bend " << bend;
      EXPECT_LT(s.figures.max_scaled_err, 0.7 * s.tolerance.max_scaled) << to_string(e) << " bend " << bend;
      for (GatedBug bug : {GatedBug::gate_on_up, GatedBug::halves_not_pairs, GatedBug::no_activation}) {
        const Simulation wrong = simulate_gated(c.dtype, 32, 64, c.k, bug, bend, 42, e);
        EXPECT_FALSE(judge(wrong.figures, wrong.tolerance).passed)
            << to_string(e) << " bug " << static_cast<int>(bug) << " bend " << bend << ": rel "
            << wrong.figures.rel_frobenius << " (tol " << wrong.tolerance.rel_frobenius << "), scaled "
            << wrong.figures.max_scaled_err << " (tol " << wrong.tolerance.max_scaled << ")";
      }
    }
}

// A gated epilogue's bound counts the accumulation error of both products (check.cpp).
TEST(Tolerance, AGatedEpilogueCountsBothProducts) {
  const double u24 = std::ldexp(1.0, -24), u8 = std::ldexp(1.0, -8);
  const Tolerance t = tolerance_for({4096, 28672, 4096, Dtype::bf16, Epilogue::swiglu});
  EXPECT_DOUBLE_EQ(t.rel_frobenius, 3 * (u8 / std::sqrt(3.0) + 2 * 64 * u24) + gelu::kMaxRelError);
  EXPECT_DOUBLE_EQ(t.max_scaled, 1.13 * (u8 + 16 * 2 * 64 * u24) + gelu::kMaxRelError);
}

// The erf and tanh GELU differ by up to 4.7e-4 (at x = -2.7), 1.2e-4 of the check's scale on
// bend inputs: f32's bounds (a few 1e-5 with the activation's 3e-6) tell them apart both ways,
// at small and large K. The 16-bit and TF32 bounds (1e-3 and more) cannot, so a GPU test of the
// swap runs in f32 (tests/gpu/epilogue_families_test.cu).
TEST(PlantedGeluSwap, TanhAndErfAreToldApartInF32) {
  for (int k : {256, 8192}) {
    const Simulation tanh_for_erf = simulate(Dtype::f32, 64, 64, k, Bug::tanh_for_erf, true, 31, Epilogue::bias_gelu);
    EXPECT_FALSE(judge(tanh_for_erf.figures, tanh_for_erf.tolerance).passed)
        << "k " << k << ": rel " << tanh_for_erf.figures.rel_frobenius << " (tol "
        << tanh_for_erf.tolerance.rel_frobenius << ")";
    const Simulation erf_for_tanh =
        simulate(Dtype::f32, 64, 64, k, Bug::erf_for_tanh, true, 32, Epilogue::bias_gelu_tanh);
    EXPECT_FALSE(judge(erf_for_tanh.figures, erf_for_tanh.tolerance).passed)
        << "k " << k << ": rel " << erf_for_tanh.figures.rel_frobenius;
    // The same GELU residual epilogue with the wrong form fails as well.
    const Simulation residual =
        simulate(Dtype::f32, 64, 64, k, Bug::tanh_for_erf, true, 33, Epilogue::bias_gelu_residual);
    EXPECT_FALSE(judge(residual.figures, residual.tolerance).passed) << "k " << k;
  }
}

}  // namespace
