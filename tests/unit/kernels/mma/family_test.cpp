// The mma plug-in (kernels/mma/family.cpp): its names, refusals, resources, geometry, emission and
// search space, every answer MmaConfig's.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/core/epilogues.hpp"
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

// mma reads the M×N residual of an epilogue that adds one, as its last kernel parameter, in its
// unsplit kernels only: a split config's reduce adds no residual.
TEST(MmaFamily, ReadsTheResidualUnsplit) {
  const std::vector<KernelArg>& args = mma().kernel_args();
  ASSERT_FALSE(args.empty());
  EXPECT_EQ(args.back(), KernelArg::residual);
  EXPECT_EQ(std::vector<KernelArg>(args.begin(), args.end() - 1),
            (std::vector<KernelArg>{KernelArg::a, KernelArg::b, KernelArg::bias, KernelArg::c, KernelArg::m,
                                    KernelArg::n, KernelArg::k}));
  EXPECT_TRUE(supports_epilogue(mma(), Epilogue::bias_gelu_residual).ok());
  const Problem residual{4096, 4096, 4096, Dtype::bf16, Epilogue::bias_gelu_residual};
  EXPECT_TRUE(mma().check_problem(from_mma(MmaConfig{}), residual).ok());
  MmaConfig split;
  split.split = 4;
  const Verdict v = mma().check_problem(from_mma(split), residual);
  EXPECT_EQ(v.violation, Violation::epilogue);
  EXPECT_NE(std::string(v.why).find("residual"), std::string::npos);
  EXPECT_TRUE(mma().check_problem(from_mma(split), {4096, 4096, 4096, Dtype::bf16, Epilogue::bias_gelu}).ok());
}

TEST(MmaFamily, ComputesEveryDtypeOnSm80AndLater) {
  // f32 too, as 3xTF32 (MmaMath<Math::f32>).
  for (Dtype d : {Dtype::f32, Dtype::bf16, Dtype::f16, Dtype::tf32}) EXPECT_TRUE(mma().supports(d).ok());
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
  // f32's lo parts: the 64x64 warp tile has no registers for them, a 64x32 one has.
  EXPECT_EQ(mma().check_problem(from_mma(c), {4096, 4096, 4096, Dtype::f32, Epilogue::none}).violation,
            Violation::registers);
  const MmaConfig half{128, 128, 64, 64, 32, 4, 16, 1, 8, 1};
  EXPECT_TRUE(mma().check_problem(from_mma(half), {4096, 4096, 4096, Dtype::f32, Epilogue::none}).ok());
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
  EXPECT_EQ(mma().define_kernel(c, Dtype::f32, Epilogue::none, "k"),
            "COALESCE_DEFINE_MMA_KERNEL(k, coalesce::MmaTile<128, 256, 64, 64, 64, 4, 16, 1, 8, 1>, "
            "coalesce::GemmOf<coalesce::Dtype::f32>, coalesce::EpilogueFor<coalesce::Epilogue::none>)");
  EXPECT_EQ(mma().kernel_header(), "kernels/mma/gemm.cuh");
  EXPECT_EQ(mma().kernel_args().size(), 8u);  // the residual last (ReadsTheResidualUnsplit)
}

// The widest copy the problem's rows allow, as the rule decides it.
TEST(MmaFamily, WidestCopyPerShapeAndDtype) {
  EXPECT_EQ(mma_widest_vec({4096, 4096, 4096, Dtype::bf16}), 16);
  EXPECT_EQ(mma_widest_vec({1000, 1000, 1004, Dtype::bf16}), 8);   // K: 2008 bytes
  EXPECT_EQ(mma_widest_vec({1000, 1002, 998, Dtype::f16}), 4);     // 2004 and 1996 bytes
  EXPECT_EQ(mma_widest_vec({1000, 1001, 1000, Dtype::bf16}), 2);   // odd N: one element per plain load
  EXPECT_EQ(mma_widest_vec({1, 1, 1, Dtype::f16}), 2);
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
  // An odd N in bf16 takes 2-byte plain loads (issue 39): legal configs, every one with them.
  const Problem odd{1000, 1001, 1000, Dtype::bf16, Epilogue::none};
  for (const Config& c : mma().sweep_configs(odd)) EXPECT_EQ(to_mma(c).vec_bytes, 2);
  EXPECT_GT(legal_count(odd, DeviceLimits{}), 0);
  EXPECT_GT(legal_count({1000, 1002, 998, Dtype::bf16, Epilogue::none}, DeviceLimits{}), 0);
  // 2-byte copies are for 2-byte elements: f32 storage always has 4-byte ones.
  MmaConfig two;
  two.vec_bytes = 2;
  EXPECT_EQ(two.check_problem(64, 64, 64, Dtype::tf32).violation, Violation::shape);
  EXPECT_TRUE(two.check_problem(7, 9, 13, Dtype::f16).ok());
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
  // The last two copy 4 and 2 bytes: any shape in tf32 and f32, and any shape in bf16/f16.
  const Config four = builtins[builtins.size() - 2], two = builtins.back();
  EXPECT_EQ(to_mma(four).vec_bytes, 4);
  EXPECT_EQ(to_mma(two).vec_bytes, 2);
  for (const Problem& p : {Problem{1000, 1002, 998, Dtype::bf16}, Problem{1, 2, 2, Dtype::f16},
                           Problem{1000, 1001, 999, Dtype::tf32}, Problem{7, 3, 5, Dtype::tf32}})
    EXPECT_TRUE(mma().check_problem(four, p).ok()) << shape_string(p);
  for (const Problem& p : {Problem{1000, 1001, 999, Dtype::bf16}, Problem{1, 1, 1, Dtype::f16},
                           Problem{7, 9, 13, Dtype::bf16}, Problem{4095, 4097, 4100, Dtype::f16}})
    EXPECT_TRUE(mma().check_problem(two, p).ok()) << shape_string(p);
}

// Split-K (kernels/core/family.hpp, kSplitParam): split = 1 is left out of names, params_json and
// the tile type, so every stored mma name still means the kernel it named; a split names itself
// "sk", after every other parameter.
TEST(MmaFamily, SplitIsNamedOnlyWhenItSplits) {
  MmaConfig c;
  const Config whole = from_mma(c);
  EXPECT_EQ(whole.values.size(), mma().params().size());
  EXPECT_EQ(mma().params().back().name, kSplitParam);
  EXPECT_EQ(split_slices(whole), 1);
  c.split = 3;
  const Config split = from_mma(c);
  EXPECT_EQ(split_slices(split), 3);
  EXPECT_EQ(to_mma(split).split, 3);
  for (Dtype d : {Dtype::bf16, Dtype::f16, Dtype::tf32}) {
    const std::string name = config_name(split, d, Epilogue::bias_gelu);
    EXPECT_EQ(name, "mma_" + std::string(to_string(d)) + "_bm128_bn128_kb64_wm64_wn64_s4_v16_sw1_g8_o1_sk3_bias_gelu");
    auto parsed = parse_config_name(name);
    ASSERT_TRUE(parsed.has_value());
    EXPECT_EQ(parsed->config, split);
  }
  auto parsed_whole = parse_config_name("mma_bf16_bm128_bn128_kb64_wm64_wn64_s4_v16_sw1_g8_o1_bias_gelu");
  ASSERT_TRUE(parsed_whole.has_value());
  EXPECT_EQ(parsed_whole->config, whole);
  // "sk1" is not the canonical spelling of the unsplit config.
  EXPECT_FALSE(parse_config_name("mma_bf16_bm128_bn128_kb64_wm64_wn64_s4_v16_sw1_g8_o1_sk1_bias_gelu").has_value());
  EXPECT_EQ(params_json(split),
            R"({"bm":128,"bn":128,"bk_bytes":64,"wm":64,"wn":64,"stages":4,"vec_bytes":16,"swizzle":1,"group_m":8,"min_blocks":1,"split":3})");
  EXPECT_EQ(mma().tile_type(whole), "coalesce::MmaTile<128, 128, 64, 64, 64, 4, 16, 1, 8, 1>");
  EXPECT_EQ(mma().tile_type(split), "coalesce::MmaTile<128, 128, 64, 64, 64, 4, 16, 1, 8, 1, 3>");
  EXPECT_EQ(mma().define_kernel(split, Dtype::f16, Epilogue::bias, "k"),
            "COALESCE_DEFINE_MMA_KERNEL(k, coalesce::MmaTile<128, 128, 64, 64, 64, 4, 16, 1, 8, 1, 3>, "
            "coalesce::GemmOf<coalesce::Dtype::f16>, coalesce::EpilogueFor<coalesce::Epilogue::bias>)");
  // The family's own lists and its built-ins hold split = 1 only (the space adds the variants).
  for (const Config& b : mma().builtin_configs({64, 64, 64, Dtype::bf16})) EXPECT_EQ(split_slices(b), 1);
  for (const Config& s : mma().sweep_configs({4096, 4096, 4096, Dtype::bf16})) EXPECT_EQ(split_slices(s), 1);
}

TEST(MmaFamily, SplitSlicesKInTheGridAndAsksForPartials) {
  MmaConfig c{128, 256, 64, 64, 64, 4, 16, 1, 8, 1};
  c.split = 8;
  const Config split = from_mma(c);
  const Problem skinny{8, 4096, 4096, Dtype::bf16, Epilogue::bias_gelu};
  const Geometry g = mma().geometry(split, skinny, Target{});
  EXPECT_EQ(g.grid_z, 8u);
  EXPECT_EQ(g.grid_x, 16u);  // one row of 256-wide tiles
  EXPECT_EQ(g.blocks(), 8 * 16);
  EXPECT_EQ(g.smem_bytes, c.smem_bytes());
  EXPECT_EQ(mma().geometry(from_mma(MmaConfig{}), skinny, Target{}).grid_z, 1u);
  // The partials are f32 whatever the dtype.
  for (Dtype d : {Dtype::bf16, Dtype::f16, Dtype::tf32})
    EXPECT_EQ(workspace_bytes(split, Problem{8, 4096, 4096, d}), 8LL * 8 * 4096 * 4);
  EXPECT_EQ(workspace_bytes(from_mma(MmaConfig{}), skinny), 0);
  // Every split factor above 1 runs the same kernel: the factor is the grid's z extent.
  EXPECT_EQ(split_slices(kernel_config(split)), 2);
  EXPECT_EQ(mma().tile_type(kernel_config(split)), "coalesce::MmaTile<128, 256, 64, 64, 64, 4, 16, 1, 8, 1, 2>");
  EXPECT_EQ(kernel_config(from_mma(MmaConfig{})), from_mma(MmaConfig{}));
  // The split changes no resource of the block.
  const Resources whole_r = mma().predict(from_mma(MmaConfig{128, 256, 64, 64, 64, 4, 16, 1, 8, 1}), DeviceLimits{});
  const Resources split_r = mma().predict(split, DeviceLimits{});
  EXPECT_EQ(split_r.registers, whole_r.registers);
  EXPECT_EQ(split_r.smem_bytes, whole_r.smem_bytes);
}

// The rule: 1 to 32 slices; at least one bk_bytes-deep step of K per slice (counted in bytes, so
// a tf32 slice holds half the elements of a bf16 one); partial sums under 2^31 elements.
TEST(MmaFamily, SplitRules) {
  MmaConfig c;  // 64-byte slices: 32 bf16/f16 or 16 tf32 elements of K
  for (int bad : {0, -1, kMaxSplitSlices + 1}) {
    c.split = bad;
    EXPECT_EQ(mma().check(from_mma(c)).violation, Violation::shape) << bad;
    EXPECT_EQ(c.check().violation, Violation::shape) << bad;
  }
  c.split = kMaxSplitSlices;
  EXPECT_TRUE(mma().check(from_mma(c)).ok());
  EXPECT_TRUE(mma().check(from_mma(c), DeviceLimits{}, c.predicted_registers()).ok());

  c.split = 4;
  const Config four = from_mma(c);
  EXPECT_TRUE(mma().check_problem(four, {1, 4096, 128, Dtype::bf16}).ok());     // 4 steps of 32
  EXPECT_EQ(mma().check_problem(four, {1, 4096, 96, Dtype::bf16}).violation, Violation::shape);  // 3 steps
  EXPECT_TRUE(mma().check_problem(four, {1, 4096, 104, Dtype::bf16}).ok());     // 3 whole steps and a part
  EXPECT_TRUE(mma().check_problem(four, {1, 4096, 64, Dtype::tf32}).ok());      // 4 steps of 16
  EXPECT_EQ(mma().check_problem(four, {1, 4096, 48, Dtype::tf32}).violation, Violation::shape);
  EXPECT_EQ(mma().check_problem(four, {1, 4096, 96, Dtype::f16}).violation, Violation::shape);
  // The unsplit config takes any K its copies allow.
  EXPECT_TRUE(mma().check_problem(from_mma(MmaConfig{}), {1, 4096, 8, Dtype::bf16}).ok());

  // 4 x 2^15 x 2^14 partials reach 2^31; the unsplit C of that shape is under 2^31 bytes.
  const Problem big{1 << 15, 1 << 14, 4096, Dtype::bf16};
  EXPECT_TRUE(mma().check_problem(from_mma(MmaConfig{}), {1 << 15, (1 << 14) - 64, 4096, Dtype::bf16}).ok());
  EXPECT_EQ(mma().check_problem(four, big).violation, Violation::shape);
  c.split = 2;
  EXPECT_TRUE(mma().check_problem(from_mma(c), {(1 << 15) - 64, (1 << 14) - 64, 4096, Dtype::bf16}).ok());
  // The problem's other rules come first.
  EXPECT_EQ(mma().check_problem(four, {1, 4096, 998, Dtype::bf16}).violation, Violation::divisibility);
}

// The core's schedule rule for an mma split (kernels/core/family.hpp, check_schedule).
TEST(MmaFamily, SplitIsRefusedWhereItCannotHelpOrDoesNotFit) {
  MmaConfig c{128, 256, 64, 64, 64, 4, 16, 1, 8, 1};
  c.split = 4;
  const Config split = from_mma(c);
  Target h200;
  // 4096²: 512 tiles of 128x256 already fill the 132 SMs.
  EXPECT_EQ(check_schedule(mma(), split, Problem{4096, 4096, 4096, Dtype::bf16}, h200).violation,
            Violation::schedule);
  EXPECT_TRUE(check_schedule(mma(), split, Problem{128, 4096, 4096, Dtype::bf16}, h200).ok());
  h200.max_workspace_bytes = 1 << 20;  // 4 x 128 x 4096 floats are 8 MiB
  EXPECT_EQ(check_schedule(mma(), split, Problem{128, 4096, 4096, Dtype::bf16}, h200).violation,
            Violation::workspace);
}
