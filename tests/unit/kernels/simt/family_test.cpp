// The simt plug-in (kernels/simt/family.cpp): its names are the ones every stored row carries,
// and every answer it gives is SimtConfig's.
#include <gtest/gtest.h>

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
}

// The sweep's list product, the widest copy per shape, and the built-in fallback list.
TEST(SimtFamily, SweepConfigsAndBuiltins) {
  const auto configs = simt().sweep_configs({4096, 4096, 4096, Dtype::f32, Epilogue::bias_gelu});
  const SimtLists& l = simt_lists();
  EXPECT_EQ(configs.size(), l.bm.size() * l.bn.size() * l.bk.size() * l.wm.size() * l.wn.size() * l.tm.size() *
                                l.tn.size() * l.stages.size() * l.group_m.size() * l.min_blocks.size());
  for (const Config& c : configs) EXPECT_EQ(to_simt(c).vec, 4);
  EXPECT_EQ(simt_widest_vec({4096, 4098, 4096}), 2);
  EXPECT_EQ(simt_widest_vec({4096, 4097, 4096}), 1);
  const auto builtins = simt().builtin_configs({64, 64, 64});
  ASSERT_EQ(builtins.size(), static_cast<std::size_t>(simt_builtin::kCount));
  EXPECT_EQ(to_simt(builtins.back()).vec, 1);
}
