// The epilogue registry (kernels/core/epilogues.hpp) and its fp64 reference
// (kernels/core/epilogue_reference.hpp): every row in order, every name round-trips, each
// reference against independently known values, and what a family must offer to run a row.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "kernels/core/epilogue_reference.hpp"
#include "kernels/core/epilogues.hpp"
#include "kernels/core/family.hpp"
#include "kernels/core/problem.hpp"

namespace {

using namespace coalesce;

TEST(EpilogueRegistry, EveryEpilogueHasOneRowInOrderWithAUniqueName) {
  ASSERT_EQ(all_epilogues().size(), static_cast<std::size_t>(kEpilogueCount));
  std::set<std::string> names;
  for (int i = 0; i < kEpilogueCount; ++i) {
    const Epilogue e = static_cast<Epilogue>(i);
    EXPECT_EQ(all_epilogues()[static_cast<std::size_t>(i)], e);
    EXPECT_EQ(&epilogue_spec(e), &kEpilogues[i]);
    EXPECT_EQ(to_string(e), kEpilogues[i].name);
    EXPECT_EQ(parse_epilogue(kEpilogues[i].name), e) << kEpilogues[i].name;
    EXPECT_TRUE(names.insert(kEpilogues[i].name).second) << kEpilogues[i].name;
    // "C = ..." or, gated, "C[m][j] = ...".
    EXPECT_EQ(std::string(kEpilogues[i].formula).rfind("C", 0), 0u) << kEpilogues[i].name;
    EXPECT_NE(std::string(kEpilogues[i].formula).find(" = "), std::string::npos);
    EXPECT_NE(std::string(kEpilogues[i].torch).find("a @ b"), std::string::npos);
  }
  for (const char* name : {"bias_gelu_tanh", "bias_silu", "bias_gelu_residual", "swiglu", "geglu"})
    EXPECT_TRUE(parse_epilogue(name));
  EXPECT_FALSE(parse_epilogue("silu"));
  EXPECT_FALSE(parse_epilogue("bias_gelu_erf"));
}

// What each row says it reads and applies, and where cuBLASLt has the same epilogue: its
// GELU_BIAS is the tanh GELU, it has no SiLU and adds no residual after the activation.
TEST(EpilogueRegistry, RowsSayWhatTheyReadApplyAndWhatCublasLtCalls) {
  EXPECT_FALSE(epilogue_spec(Epilogue::none).reads.column_bias);
  for (Epilogue e : all_epilogues())
    if (e != Epilogue::none) EXPECT_EQ(epilogue_spec(e).reads.column_bias, !epilogue_spec(e).reads.gated) << to_string(e);
  // The gated pair, and only it, reads a second accumulator; neither has cuBLASLt's epilogue.
  for (Epilogue e : all_epilogues())
    EXPECT_EQ(epilogue_spec(e).reads.gated, e == Epilogue::swiglu || e == Epilogue::geglu) << to_string(e);
  EXPECT_EQ(epilogue_spec(Epilogue::swiglu).activation, Activation::silu);
  EXPECT_EQ(epilogue_spec(Epilogue::geglu).activation, Activation::gelu_erf);
  EXPECT_EQ(epilogue_spec(Epilogue::swiglu).cublaslt, LtEpilogue::unavailable);
  EXPECT_EQ(epilogue_spec(Epilogue::geglu).cublaslt, LtEpilogue::unavailable);
  for (Epilogue e : all_epilogues())
    EXPECT_EQ(epilogue_spec(e).reads.residual, e == Epilogue::bias_gelu_residual) << to_string(e);
  EXPECT_EQ(epilogue_spec(Epilogue::bias_gelu).activation, Activation::gelu_erf);
  EXPECT_EQ(epilogue_spec(Epilogue::bias_gelu_tanh).activation, Activation::gelu_tanh);
  EXPECT_EQ(epilogue_spec(Epilogue::bias_silu).activation, Activation::silu);
  EXPECT_EQ(epilogue_spec(Epilogue::bias_gelu_residual).activation, Activation::gelu_erf);
  EXPECT_EQ(epilogue_spec(Epilogue::bias_gelu_tanh).cublaslt, LtEpilogue::gelu_bias);
  EXPECT_EQ(epilogue_spec(Epilogue::bias_silu).cublaslt, LtEpilogue::unavailable);
  EXPECT_EQ(epilogue_spec(Epilogue::bias_gelu_residual).cublaslt, LtEpilogue::unavailable);
  // Exact activations add nothing to the tolerance; approximated ones add the functor's bound.
  for (Epilogue e : all_epilogues()) {
    const EpilogueSpec& s = epilogue_spec(e);
    const bool exact = s.activation == Activation::identity || s.activation == Activation::relu;
    EXPECT_EQ(s.activation_error, exact ? 0.0 : gelu::kMaxRelError) << s.name;
  }
}

// The references against values computed independently (Python's math module).
TEST(EpilogueReference, ActivationsMatchKnownValues) {
  EXPECT_EQ(reference_activation(Activation::identity, -1.5), -1.5);
  EXPECT_EQ(reference_activation(Activation::relu, -1.5), 0.0);
  EXPECT_EQ(reference_activation(Activation::relu, 1.5), 1.5);
  EXPECT_NEAR(reference_activation(Activation::gelu_erf, 1.0), 0.84134474606854293, 1e-15);
  EXPECT_NEAR(reference_activation(Activation::gelu_erf, -2.0), -0.045500263896358417, 1e-15);
  EXPECT_NEAR(reference_activation(Activation::gelu_tanh, 1.0), 0.84119199060827680, 1e-15);
  EXPECT_NEAR(reference_activation(Activation::gelu_tanh, -2.0), -0.045402305912224940, 1e-15);
  EXPECT_NEAR(reference_activation(Activation::silu, 1.0), 0.73105857863000488, 1e-15);
  EXPECT_NEAR(reference_activation(Activation::silu, -2.0), -0.23840584404423515, 1e-15);
  // Far in the lower tail SiLU goes to -0 without overflow trouble.
  EXPECT_NEAR(reference_activation(Activation::silu, -800.0), 0.0, 1e-300);
}

// Bias where read, activation, then the residual added once after it.
TEST(EpilogueReference, AddsBiasBeforeAndResidualAfterTheActivation) {
  EXPECT_EQ(reference_epilogue(Epilogue::none, 2.0, 5.0, 7.0), 2.0);
  EXPECT_EQ(reference_epilogue(Epilogue::bias, 2.0, 5.0, 7.0), 7.0);
  EXPECT_EQ(reference_epilogue(Epilogue::bias_relu, 2.0, -5.0, 7.0), 0.0);
  const double gelu = reference_activation(Activation::gelu_erf, 0.5);
  EXPECT_EQ(reference_epilogue(Epilogue::bias_gelu, 0.25, 0.25, 7.0), gelu);
  EXPECT_EQ(reference_epilogue(Epilogue::bias_gelu_residual, 0.25, 0.25, 7.0), gelu + 7.0);
  EXPECT_EQ(reference_epilogue(Epilogue::bias_silu, 0.25, 0.25, 7.0), reference_activation(Activation::silu, 0.5));
}

// C[m][j] = act(gate) * up: the values below from Python's math module (silu(1.5) =
// 1.5/(1 + e^-1.5), gelu(1.5) = 0.75·(1 + erf(1.5/√2))), and a gate taken from the wrong column
// of the pair, or the activation applied to the product, gives a different value.
TEST(EpilogueReference, GatedAppliesTheActivationToTheGateAndMultipliesByUp) {
  EXPECT_NEAR(reference_gated(Activation::silu, 1.5, -2.0), -2.0 * 1.2263617142904655, 1e-14);
  EXPECT_NEAR(reference_gated(Activation::gelu_erf, 1.5, -2.0), -2.0 * 1.3997891980967130, 1e-14);
  EXPECT_NEAR(reference_gated(Activation::silu, -2.0, 3.0), 3.0 * -0.23840584404423515, 1e-14);
  EXPECT_EQ(reference_gated(Activation::silu, 0.0, 5.0), 0.0);
  for (Activation a : {Activation::silu, Activation::gelu_erf}) {
    const double gate = 1.5, up = -2.0;
    const double right = reference_gated(a, gate, up);
    EXPECT_GT(std::fabs(right - reference_gated(a, up, gate)), 1.0);  // the pair swapped
    EXPECT_GT(std::fabs(right - reference_activation(a, gate * up)), 1.0);  // act(g·u)
    EXPECT_GT(std::fabs(right - gate * up), 0.1);  // no activation
  }
}

// A gated epilogue's C has N/2 columns; the others' N.
TEST(EpilogueRegistry, AGatedEpilogueWritesHalfTheColumns) {
  EXPECT_EQ(output_columns(epilogue_spec(Epilogue::swiglu).reads, 28672), 14336);
  EXPECT_EQ(output_columns(epilogue_spec(Epilogue::bias_gelu).reads, 28672), 28672);
  for (Epilogue e : all_epilogues()) {
    const Problem p{16, 28672, 4096, Dtype::bf16, e};
    EXPECT_EQ(p.c_cols(), epilogue_spec(e).reads.gated ? 14336 : 28672) << to_string(e);
    EXPECT_EQ(p.c_elements(), 16LL * p.c_cols());
    EXPECT_EQ(p.flops(), 2.0 * 16 * 28672 * 4096);  // the GEMM's N, whatever C keeps
  }
}

// A family runs an epilogue only if its kernels take every operand the row reads.
struct Reader : Family {
  std::vector<KernelArg> args;
  std::string_view name() const override { return "reader"; }
  std::string_view summary() const override { return ""; }
  const std::vector<ParamSpec>& params() const override { static const std::vector<ParamSpec> none; return none; }
  Verdict supports(Dtype) const override { return {}; }
  Verdict supports(const Target&) const override { return {}; }
  std::string nvrtc_arch(const Target&) const override { return "sm_90"; }
  std::vector<Config> sweep_configs(const Problem&) const override { return {}; }
  std::vector<Config> builtin_configs(const Problem&) const override { return {}; }
  Verdict check(const Config&) const override { return {}; }
  Verdict check(const Config&, const DeviceLimits&, int) const override { return {}; }
  Verdict check_problem(const Config&, const Problem&) const override { return {}; }
  Resources predict(const Config&, const DeviceLimits&) const override { return {}; }
  Geometry geometry(const Config&, const Problem&, const Target&) const override { return {}; }
  const std::vector<KernelArg>& kernel_args() const override { return args; }
  std::string_view kernel_header() const override { return ""; }
  std::string tile_type(const Config&) const override { return ""; }
  std::string define_kernel(const Config&, Dtype, Epilogue, std::string_view) const override { return ""; }
};

TEST(EpilogueRegistry, AResidualNeedsAFamilyWhoseKernelsTakeOne) {
  Reader plain;
  plain.args = {KernelArg::a, KernelArg::b, KernelArg::bias, KernelArg::c, KernelArg::m, KernelArg::n, KernelArg::k};
  for (Epilogue e : all_epilogues()) {
    if (epilogue_spec(e).reads.gated) continue;  // the next test's
    const Verdict v = supports_epilogue(plain, e);
    EXPECT_EQ(v.ok(), !epilogue_spec(e).reads.residual) << to_string(e);
    if (!v.ok()) {
      EXPECT_EQ(v.violation, Violation::epilogue);
      EXPECT_NE(std::string(v.why).find("residual"), std::string::npos);
    }
  }
  Reader with_residual = plain;
  with_residual.args.push_back(KernelArg::residual);
  for (Epilogue e : all_epilogues())
    if (!epilogue_spec(e).reads.gated) EXPECT_TRUE(supports_epilogue(with_residual, e).ok()) << to_string(e);
  // Of the built-in families gemv, mma and wgmma read a residual; simt refuses it with the reason.
  for (const Family* f : families()) {
    const bool reads = f->name() != "simt";
    EXPECT_EQ(supports_epilogue(*f, Epilogue::bias_gelu_residual).ok(), reads) << f->name();
    EXPECT_TRUE(supports_epilogue(*f, Epilogue::bias_silu).ok()) << f->name();
  }
}

// A gated epilogue needs a family that says its kernels store one (Family::stores_gated), and an
// even N; mma, wgmma and gemv store it, simt is refused with the reason.
struct GatedReader : Reader {
  bool stores_gated() const override { return true; }
};

TEST(EpilogueRegistry, AGatedEpilogueNeedsAFamilyThatStoresOneAndAnEvenN) {
  Reader plain;
  GatedReader gated;
  for (Epilogue e : {Epilogue::swiglu, Epilogue::geglu}) {
    const Verdict refused = supports_epilogue(plain, e);
    EXPECT_EQ(refused.violation, Violation::epilogue) << to_string(e);
    EXPECT_NE(std::string(refused.why).find("gated"), std::string::npos);
    EXPECT_TRUE(supports_epilogue(gated, e).ok()) << to_string(e);
    EXPECT_TRUE(supports_epilogue(gated, Problem{128, 256, 64, Dtype::bf16, e}).ok());
    const Verdict odd = supports_epilogue(gated, Problem{128, 255, 64, Dtype::bf16, e});
    EXPECT_EQ(odd.violation, Violation::divisibility) << to_string(e);
    EXPECT_NE(std::string(odd.why).find("even N"), std::string::npos);
    // The family's refusal comes first, whatever N is.
    EXPECT_EQ(supports_epilogue(plain, Problem{128, 255, 64, Dtype::bf16, e}).violation, Violation::epilogue);
  }
  // An odd N is fine for the other epilogues.
  EXPECT_TRUE(supports_epilogue(gated, Problem{128, 255, 64, Dtype::f32, Epilogue::bias_gelu}).ok());
  for (const Family* f : families()) {
    const bool stores = f->name() == "mma" || f->name() == "wgmma" || f->name() == "gemv";
    EXPECT_EQ(supports_epilogue(*f, Epilogue::swiglu).ok(), stores) << f->name();
    EXPECT_EQ(supports_epilogue(*f, Epilogue::geglu).ok(), stores) << f->name();
  }
}

}  // namespace
