// The simt plug-in (kernels/simt/family.cpp): its names are the ones every stored row carries,
// and every answer it gives is SimtConfig's.
#include <gtest/gtest.h>

#include <vector>

#include "kernels/simt/builtin.hpp"
#include "kernels/simt/family.hpp"

using namespace coalesce;

namespace {
const Family& simt() { return simt_family(); }
}  // namespace

// The names of the committed database (results/coalesce.db) must come out unchanged.
TEST(SimtFamily, NamesAreTheStoredOnes) {
  SimtConfig c;
  EXPECT_EQ(config_name(from_simt(c), Dtype::f32, Epilogue::bias_gelu),
            "simt_f32_bm128_bn128_bk16_wm64_wn32_tm8_tn8_s3_v4_g8_o2_bias_gelu");
  c.group_m = 1;
  EXPECT_EQ(config_name(from_simt(c), Dtype::f32, Epilogue::none),
            "simt_f32_bm128_bn128_bk16_wm64_wn32_tm8_tn8_s3_v4_g1_o2_none");
  EXPECT_EQ(params_json(from_simt(SimtConfig{})),
            R"({"bm":128,"bn":128,"bk":16,"wm":64,"wn":32,"tm":8,"tn":8,"stages":3,"vec":4,"group_m":8,"min_blocks":2})");
}

TEST(SimtFamily, NamesRoundTrip) {
  const SimtConfig c{64, 256, 8, 32, 64, 4, 16, 4, 2, 4, 1};
  for (Epilogue e : all_epilogues()) {
    auto parsed = parse_config_name(config_name(from_simt(c), Dtype::f32, e));
    ASSERT_TRUE(parsed.has_value());
    EXPECT_EQ(parsed->epilogue, e);
    EXPECT_EQ(parsed->dtype, Dtype::f32);
    EXPECT_EQ(parsed->config, from_simt(c));
    EXPECT_EQ(to_simt(parsed->config).min_blocks, 1);
  }
}

TEST(SimtFamily, RejectsWhatIsNotAName) {
  EXPECT_FALSE(parse_config_name("simt_f32_bm128").has_value());
  EXPECT_FALSE(parse_config_name("simt_f32_bm128_bn128_bk16_wm64_wn32_tm8_tn8_s3_v4_g8_o2_swish").has_value());
  EXPECT_FALSE(parse_config_name("simt_f32_bm128_bn128_bk16_wm64_wn32_tm8_tn8_s3_v4_g8_bias_gelu").has_value());
  EXPECT_FALSE(parse_config_name("simt_f32_bm128_bn128_bk16_wm64_wn32_tm8_tn8_s3_v4_g8_o2_bias_gelu_x").has_value());
  EXPECT_FALSE(parse_config_name("simt_f32_bm0128_bn128_bk16_wm64_wn32_tm8_tn8_s3_v4_g8_o2_none").has_value());
  EXPECT_FALSE(parse_config_name("simt_f64_bm128_bn128_bk16_wm64_wn32_tm8_tn8_s3_v4_g8_o2_none").has_value());
  EXPECT_FALSE(parse_config_name("nofamily_f32_bm128_bn128_bk16_wm64_wn32_tm8_tn8_s3_v4_g8_o2_none").has_value());
}

TEST(SimtFamily, ComputesF32OnSm80AndLater) {
  EXPECT_TRUE(simt().supports(Dtype::f32).ok());
  for (Dtype d : {Dtype::tf32, Dtype::bf16, Dtype::f16}) EXPECT_EQ(simt().supports(d).violation, Violation::dtype);
  EXPECT_TRUE(simt().supports(Target{9, 0, true, {}}).ok());
  EXPECT_TRUE(simt().supports(Target{8, 0, false, {}}).ok());
  EXPECT_EQ(simt().supports(Target{7, 5, false, {}}).violation, Violation::arch);
  // The portable target: a simt cubin built on an H200 runs on every sm_90 part.
  EXPECT_EQ(simt().nvrtc_arch(Target{9, 0, true, {}}), "sm_90");
}

TEST(SimtFamily, AnswersWithSimtConfigsRule) {
  const DeviceLimits h200;
  SimtConfig bad;
  bad.bm = 96;
  EXPECT_EQ(simt().check(from_simt(bad)).violation, bad.check().violation);
  const SimtConfig c;
  const Resources r = simt().predict(from_simt(c), h200);
  EXPECT_EQ(r.threads, c.threads());
  EXPECT_EQ(r.registers, c.predicted_registers());
  EXPECT_EQ(r.register_cap, c.register_cap());
  EXPECT_EQ(r.smem_bytes, c.smem_bytes());
  EXPECT_EQ(r.blocks_per_sm, c.blocks_per_sm(h200, c.predicted_registers()));
  EXPECT_EQ(simt().resources(from_simt(c), h200, 200).blocks_per_sm, c.blocks_per_sm(h200, 200));
  const Problem odd{4096, 4097, 4096, Dtype::f32, Epilogue::bias_gelu};
  EXPECT_EQ(simt().check_problem(from_simt(c), odd).violation, Violation::divisibility);
  EXPECT_EQ(simt().check_problem(from_simt(c), {4096, 4096, 4096, Dtype::bf16, Epilogue::none}).violation,
            Violation::dtype);
}

TEST(SimtFamily, GeometryAndTemplateNames) {
  const Config c = from_simt(SimtConfig{});
  EXPECT_EQ(simt().tile_type(c), "coalesce::SimtTile<128, 128, 16, 64, 32, 8, 8, 3, 4, 8, 2>");
  const Geometry g = simt().geometry(c, {1000, 4097, 64, Dtype::f32, Epilogue::none}, Target{});
  EXPECT_EQ(g.blocks(), 8 * 33);
  EXPECT_EQ(g.block_x, 256u);
  EXPECT_EQ(g.smem_bytes, SimtConfig{}.smem_bytes());
  EXPECT_EQ(simt().define_kernel(c, Dtype::f32, Epilogue::bias_gelu, "k"),
            "COALESCE_DEFINE_SIMT_KERNEL(k, coalesce::SimtTile<128, 128, 16, 64, 32, 8, 8, 3, 4, 8, 2>, "
            "coalesce::EpilogueFor<coalesce::Epilogue::bias_gelu>)");
  EXPECT_THROW(simt().define_kernel(c, Dtype::bf16, Epilogue::none, "k"), std::invalid_argument);
  EXPECT_EQ(simt().kernel_header(), "kernels/simt/gemm.cuh");
  // A 64-bit config spells its split (the template's positional argument before the bits) and
  // its bits; its name carries them as `ix64`, and a 32-bit one's name is unchanged.
  SimtConfig wide;
  wide.index_bits = 64;
  EXPECT_EQ(simt().tile_type(from_simt(wide)), "coalesce::SimtTile<128, 128, 16, 64, 32, 8, 8, 3, 4, 8, 2, 1, 64>");
  EXPECT_NE(config_name(from_simt(wide), Dtype::f32, Epilogue::none).find("_ix64"), std::string::npos);
  EXPECT_EQ(config_name(c, Dtype::f32, Epilogue::none).find("_ix"), std::string::npos);
}

// The space picks the index bits by the problem (issue 39): 64 only where a matrix needs them.
TEST(SimtFamily, IndexBitsChosenByTheProblem) {
  const Problem huge{131072, 131072, 8192, Dtype::f32, Epilogue::bias_gelu};
  const Problem small{4096, 4096, 4096, Dtype::f32, Epilogue::bias_gelu};
  EXPECT_EQ(simt_index_bits(huge), 64);
  EXPECT_EQ(simt_index_bits(small), 32);
  for (const Config& c : simt().sweep_configs(huge)) EXPECT_EQ(to_simt(c).index_bits, 64);
  for (const Config& c : simt().sweep_configs(small)) EXPECT_EQ(to_simt(c).index_bits, 32);
  for (const Config& c : simt().builtin_configs(huge)) {
    EXPECT_EQ(to_simt(c).index_bits, 64);
    EXPECT_TRUE(simt().check_problem(c, huge).ok()) << config_name(c, Dtype::f32, Epilogue::none);
  }
  EXPECT_EQ(simt_widest_vec(huge), 4);
}

// The sweep's list product, the widest copy per shape, and the built-in fallback list.
TEST(SimtFamily, SweepConfigsAndBuiltins) {
  const auto configs = simt().sweep_configs({4096, 4096, 4096, Dtype::f32, Epilogue::bias_gelu});
  const SimtLists& l = simt_lists();
  EXPECT_EQ(configs.size(), l.bm.size() * l.bn.size() * l.bk.size() * l.wm.size() * l.wn.size() * l.tm.size() *
                                l.tn.size() * l.stages.size() * l.group_m.size() * l.min_blocks.size());
  for (const Config& c : configs) EXPECT_EQ(to_simt(c).vec, 4);
  // 32-row block tiles only for M <= 32 (issue 12), after the lists' own; legal ones among them.
  EXPECT_EQ(simt_sweep_bm(4096), l.bm);
  EXPECT_EQ(simt_sweep_bm(33), l.bm);
  EXPECT_EQ(simt_sweep_bm(32), (std::vector<int>{64, 128, 256, 32}));
  const auto small = simt().sweep_configs({32, 4096, 4096, Dtype::f32, Epilogue::bias_gelu});
  EXPECT_EQ(small.size(), configs.size() / l.bm.size() * (l.bm.size() + 1));
  int legal_bm32 = 0;
  for (const Config& c : small)
    legal_bm32 += to_simt(c).bm == 32 && simt().check(c).ok() &&
                  simt().check(c, DeviceLimits{}, simt().predict(c, DeviceLimits{}).registers).ok();
  EXPECT_EQ(legal_bm32, 180);
  EXPECT_EQ(simt_widest_vec({4096, 4098, 4096}), 2);
  EXPECT_EQ(simt_widest_vec({4096, 4097, 4096}), 1);
  const auto builtins = simt().builtin_configs({64, 64, 64});
  ASSERT_EQ(builtins.size(), static_cast<std::size_t>(simt_builtin::kCount));
  EXPECT_EQ(to_simt(builtins.back()).vec, 1);
}

// Split-K (kernels/core/family.hpp, kSplitParam): split = 1 is left out of names, params_json and
// the tile type, so every stored name still means the kernel it named; a split names itself "sk".
TEST(SimtFamily, SplitIsNamedOnlyWhenItSplits) {
  SimtConfig c;
  const Config whole = from_simt(c);
  EXPECT_EQ(split_slices(whole), 1);
  c.split = 4;
  const Config split = from_simt(c);
  EXPECT_EQ(split_slices(split), 4);
  const std::string name = config_name(split, Dtype::f32, Epilogue::bias_gelu);
  EXPECT_EQ(name, "simt_f32_bm128_bn128_bk16_wm64_wn32_tm8_tn8_s3_v4_g8_o2_sk4_bias_gelu");
  auto parsed = parse_config_name(name);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->config, split);
  auto parsed_whole = parse_config_name("simt_f32_bm128_bn128_bk16_wm64_wn32_tm8_tn8_s3_v4_g8_o2_bias_gelu");
  ASSERT_TRUE(parsed_whole.has_value());
  EXPECT_EQ(parsed_whole->config, whole);
  // "sk1" is not the canonical spelling of the unsplit config.
  EXPECT_FALSE(parse_config_name("simt_f32_bm128_bn128_bk16_wm64_wn32_tm8_tn8_s3_v4_g8_o2_sk1_bias_gelu").has_value());
  EXPECT_NE(params_json(split).find(R"("min_blocks":2,"split":4})"), std::string::npos);
  EXPECT_EQ(simt().tile_type(whole), "coalesce::SimtTile<128, 128, 16, 64, 32, 8, 8, 3, 4, 8, 2>");
  EXPECT_EQ(simt().tile_type(split), "coalesce::SimtTile<128, 128, 16, 64, 32, 8, 8, 3, 4, 8, 2, 4>");
}

TEST(SimtFamily, SplitSlicesKInTheGridAndAsksForPartials) {
  SimtConfig c;
  c.split = 8;
  const Config split = from_simt(c);
  const Problem skinny{32, 4096, 4096, Dtype::f32, Epilogue::bias_gelu};
  const Geometry g = simt().geometry(split, skinny, Target{});
  EXPECT_EQ(g.grid_z, 8u);
  EXPECT_EQ(g.grid_x, 32u);  // one row of 128-wide tiles
  EXPECT_EQ(workspace_bytes(split, skinny), 8LL * 32 * 4096 * 4);
  EXPECT_EQ(workspace_bytes(from_simt(SimtConfig{}), skinny), 0);
  // Every split factor above 1 runs the same kernel: the factor is the grid's z extent.
  EXPECT_EQ(split_slices(kernel_config(split)), 2);
  EXPECT_EQ(kernel_config(from_simt(SimtConfig{})), from_simt(SimtConfig{}));
  // A slice needs a BK-deep step of K; a split is between 1 and 32.
  EXPECT_EQ(simt().check_problem(split, Problem{32, 4096, 100, Dtype::f32, Epilogue::bias_gelu}).violation,
            Violation::shape);
  c.split = 33;
  EXPECT_EQ(simt().check(from_simt(c)).violation, Violation::shape);
}

TEST(SimtFamily, SplitIsRefusedWhereItCannotHelpOrDoesNotFit) {
  SimtConfig c;
  c.split = 4;
  const Config split = from_simt(c);
  Target h200;
  // 4096²: 1024 tiles already fill the 132 SMs.
  EXPECT_EQ(check_schedule(simt(), split, Problem{4096, 4096, 4096}, h200).violation, Violation::schedule);
  EXPECT_TRUE(check_schedule(simt(), split, Problem{64, 4096, 4096}, h200).ok());
  h200.max_workspace_bytes = 1 << 20;  // 4 x 64 x 4096 floats are 4 MiB
  EXPECT_EQ(check_schedule(simt(), split, Problem{64, 4096, 4096}, h200).violation, Violation::workspace);
}
