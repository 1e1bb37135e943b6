// The mma plug-in (kernels/mma/family.cpp): its names, refusals, resources, geometry, emission and
// search space, every answer MmaConfig's.
#include <gtest/gtest.h>

#include "kernels/mma/builtin.hpp"
#include "kernels/mma/family.hpp"

using namespace coalesce;

namespace {

const Family& mma() { return mma_family(); }

// The number of sweep candidates legal on `limits` for `problem` (what the tuner measures).
int legal_count(const Problem& problem, const DeviceLimits& limits) {
  int legal = 0;
  for (const Config& c : mma().sweep_configs(problem)) {
    if (!mma().check(c).ok()) continue;
    if (!mma().check(c, limits, mma().predict(c, limits).registers).ok()) continue;
    if (mma().check_problem(c, problem).ok()) ++legal;
  }
  return legal;
}

}  // namespace

TEST(MmaFamily, IsRegisteredAfterSimt) {
  EXPECT_EQ(find_family("mma"), &mma());
  ASSERT_GE(families().size(), 2u);
  EXPECT_EQ(families()[0]->name(), "simt");
  EXPECT_EQ(families()[1]->name(), "mma");
}

TEST(MmaFamily, NamesCarryEveryParameter) {
  const MmaConfig c;
  EXPECT_EQ(config_name(from_mma(c), Dtype::bf16, Epilogue::bias_gelu),
            "mma_bf16_bm128_bn128_kb64_wm64_wn64_s4_v16_sw1_g8_o1_bias_gelu");
  EXPECT_EQ(params_json(from_mma(c)),
            R"({"bm":128,"bn":128,"bk_bytes":64,"wm":64,"wn":64,"stages":4,"vec_bytes":16,"swizzle":1,"group_m":8,"min_blocks":1})");
}

TEST(MmaFamily, NamesRoundTrip) {
  const MmaConfig c{64, 256, 128, 32, 64, 3, 8, 0, 4, 2};
  for (Dtype d : {Dtype::bf16, Dtype::f16, Dtype::tf32})
    for (Epilogue e : all_epilogues()) {
      auto parsed = parse_config_name(config_name(from_mma(c), d, e));
      ASSERT_TRUE(parsed.has_value());
      EXPECT_EQ(parsed->dtype, d);
      EXPECT_EQ(parsed->epilogue, e);
      EXPECT_EQ(parsed->config, from_mma(c));
      EXPECT_EQ(to_mma(parsed->config).swizzle, 0);
    }
}

TEST(MmaFamily, RejectsWhatIsNotAName) {
  EXPECT_FALSE(parse_config_name("mma_bf16_bm128").has_value());
  EXPECT_FALSE(parse_config_name("mma_bf16_bm128_bn128_kb64_wm64_wn64_s4_v16_sw1_g8_bias_gelu").has_value());
  EXPECT_FALSE(parse_config_name("mma_bf16_bm128_bn128_kb64_wm64_wn64_s4_v16_g8_o1_bias_gelu").has_value());
  EXPECT_FALSE(parse_config_name("mma_bf32_bm128_bn128_kb64_wm64_wn64_s4_v16_sw1_g8_o1_none").has_value());
  EXPECT_FALSE(parse_config_name("mma_bf16_bm128_bn128_bk64_wm64_wn64_s4_v16_sw1_g8_o1_none").has_value());
  EXPECT_THROW(to_mma(Config{"simt", std::vector<int>(10, 1)}), std::invalid_argument);
  EXPECT_THROW(to_mma(Config{"mma", {1, 2}}), std::invalid_argument);
}

TEST(MmaFamily, ComputesTensorCoreDtypesOnSm80AndLater) {
  for (Dtype d : {Dtype::bf16, Dtype::f16, Dtype::tf32}) EXPECT_TRUE(mma().supports(d).ok());
  const Verdict f32 = mma().supports(Dtype::f32);
  EXPECT_EQ(f32.violation, Violation::dtype);
  EXPECT_NE(std::string(f32.why).find("simt"), std::string::npos);
  EXPECT_TRUE(mma().supports(Target{8, 0, false, {}}).ok());
  EXPECT_TRUE(mma().supports(Target{9, 0, true, {}}).ok());
  EXPECT_EQ(mma().supports(Target{7, 5, false, {}}).violation, Violation::arch);
  // The portable target: an mma cubin built on an H200 runs on every sm_90 part.
  EXPECT_EQ(mma().nvrtc_arch(Target{9, 0, true, {}}), "sm_90");
  EXPECT_EQ(mma().nvrtc_arch(Target{8, 0, false, {}}), "sm_80");
}

TEST(MmaFamily, AnswersWithMmaConfigsRule) {
  const DeviceLimits h200;
  MmaConfig bad;
  bad.bm = 96;
  EXPECT_EQ(mma().check(from_mma(bad)).violation, bad.check().violation);
  const MmaConfig c{128, 256, 64, 64, 64, 4, 16, 1, 8, 1};
  const Resources r = mma().predict(from_mma(c), h200);
  EXPECT_EQ(r.threads, 256);
  EXPECT_EQ(r.registers, c.predicted_registers());
  EXPECT_EQ(r.register_cap, 255);
  EXPECT_EQ(r.smem_bytes, c.smem_bytes());
  EXPECT_EQ(r.blocks_per_sm, c.blocks_per_sm(h200, c.predicted_registers()));
  EXPECT_EQ(mma().resources(from_mma(c), h200, 240).blocks_per_sm, 1);
  EXPECT_EQ(mma().check(from_mma(c), h200, 240).violation, Violation::none);
  EXPECT_EQ(mma().check_problem(from_mma(c), {1000, 1002, 1000, Dtype::bf16, Epilogue::none}).violation,
            Violation::divisibility);
  EXPECT_EQ(mma().check_problem(from_mma(c), {4096, 4096, 4096, Dtype::f32, Epilogue::none}).violation,
            Violation::dtype);
}

TEST(MmaFamily, GeometryAndTemplateNames) {
  const Config c = from_mma(MmaConfig{128, 256, 64, 64, 64, 4, 16, 1, 8, 1});
  EXPECT_EQ(mma().tile_type(c), "coalesce::MmaTile<128, 256, 64, 64, 64, 4, 16, 1, 8, 1>");
  const Geometry g = mma().geometry(c, {1000, 1002, 998, Dtype::bf16, Epilogue::none}, Target{});
  EXPECT_EQ(g.blocks(), 8 * 4);
  EXPECT_EQ(g.block_x, 256u);
  EXPECT_EQ(g.cluster_x * g.cluster_y, 1u);
  EXPECT_EQ(g.smem_bytes, 4 * (128 * 64 + 64 * 256));
  EXPECT_EQ(mma().define_kernel(c, Dtype::tf32, Epilogue::bias_gelu, "k"),
            "COALESCE_DEFINE_MMA_KERNEL(k, coalesce::MmaTile<128, 256, 64, 64, 64, 4, 16, 1, 8, 1>, "
            "coalesce::GemmOf<coalesce::Dtype::tf32>, coalesce::EpilogueFor<coalesce::Epilogue::bias_gelu>)");
  EXPECT_THROW(mma().define_kernel(c, Dtype::f32, Epilogue::none, "k"), std::invalid_argument);
  EXPECT_EQ(mma().kernel_header(), "kernels/mma/gemm.cuh");
  EXPECT_EQ(mma().kernel_args().size(), 7u);
}

// The widest copy the problem's rows allow, as the rule decides it.
TEST(MmaFamily, WidestCopyPerShapeAndDtype) {
  EXPECT_EQ(mma_widest_vec({4096, 4096, 4096, Dtype::bf16}), 16);
  EXPECT_EQ(mma_widest_vec({1000, 1000, 1004, Dtype::bf16}), 8);   // K: 2008 bytes
  EXPECT_EQ(mma_widest_vec({1000, 1002, 998, Dtype::f16}), 4);     // 2004 and 1996 bytes
  EXPECT_EQ(mma_widest_vec({1000, 1001, 1000, Dtype::bf16}), 0);   // odd N: no copy width
  EXPECT_EQ(mma_widest_vec({1000, 1002, 998, Dtype::tf32}), 8);    // 4008 and 3992 bytes
  EXPECT_EQ(mma_widest_vec({1000, 1001, 999, Dtype::tf32}), 4);
}

// The sweep is the product of the lists with the widest copy; at 4096 it holds a few hundred
// legal configs for every dtype (docs/tuner.md has the counts).
TEST(MmaFamily, SweepConfigsAreSizedForATenMinuteSweep) {
  const MmaLists& l = mma_lists();
  const std::size_t product = l.bm.size() * l.bn.size() * l.bk_bytes.size() * l.wm.size() * l.wn.size() *
                              l.stages.size() * l.swizzle.size() * l.group_m.size() * l.min_blocks.size();
  for (Dtype d : {Dtype::bf16, Dtype::f16, Dtype::tf32}) {
    const Problem p{4096, 4096, 4096, d, Epilogue::bias_gelu};
    const auto configs = mma().sweep_configs(p);
    EXPECT_EQ(configs.size(), product);
    for (const Config& c : configs) EXPECT_EQ(to_mma(c).vec_bytes, 16);
    const int legal = legal_count(p, DeviceLimits{});
    EXPECT_GE(legal, 150) << to_string(d);
    EXPECT_LE(legal, 400) << to_string(d);
  }
  // An odd N in bf16 has no legal config, each refused by the problem rule.
  const Problem odd{1000, 1001, 1000, Dtype::bf16, Epilogue::none};
  for (const Config& c : mma().sweep_configs(odd))
    if (mma().check(c).ok()) EXPECT_EQ(mma().check_problem(c, odd).violation, Violation::divisibility);
  EXPECT_EQ(legal_count(odd, DeviceLimits{}), 0);
  EXPECT_GT(legal_count({1000, 1002, 998, Dtype::bf16, Epilogue::none}, DeviceLimits{}), 0);
}

// Every built-in config is legal on the H200 and on an A100, and the list ends with copies
// narrow enough for every shape the family computes.
TEST(MmaFamily, BuiltinsAreLegalAndCoverEveryAcceptedShape) {
  DeviceLimits a100;
  a100.smem_per_block_optin = 166912;
  a100.smem_per_sm = 167936;
  const auto builtins = mma().builtin_configs({64, 64, 64, Dtype::bf16});
  ASSERT_EQ(builtins.size(), static_cast<std::size_t>(mma_builtin::kCount));
  for (const Config& c : builtins) {
    SCOPED_TRACE(config_name(c, Dtype::bf16, Epilogue::none));
    EXPECT_TRUE(mma().check(c, DeviceLimits{}, mma().predict(c, DeviceLimits{}).registers).ok());
    EXPECT_TRUE(mma().check(c, a100, mma().predict(c, a100).registers).ok());
  }
  EXPECT_TRUE(mma().check_problem(builtins.front(), {4096, 4096, 4096, Dtype::bf16}).ok());
  EXPECT_EQ(to_mma(builtins.back()).vec_bytes, 4);
  for (const Problem& p : {Problem{1000, 1002, 998, Dtype::bf16}, Problem{1, 2, 2, Dtype::f16},
                           Problem{1000, 1001, 999, Dtype::tf32}, Problem{7, 3, 5, Dtype::tf32}})
    EXPECT_TRUE(mma().check_problem(builtins.back(), p).ok()) << shape_string(p);
}
