// Config names are derived by one function and parse back to the same config.
#include <gtest/gtest.h>

#include "kernels/names.hpp"

using namespace coalesce;

TEST(ConfigName, DerivedFromEveryField) {
  SimtConfig c;
  EXPECT_EQ(config_name(c, Dtype::f32, Epilogue::bias_gelu),
            "simt_f32_bm128_bn128_bk16_wm64_wn32_tm8_tn8_s3_v4_g8_o2_bias_gelu");
  c.group_m = 1;
  EXPECT_EQ(config_name(c, Dtype::f32, Epilogue::none),
            "simt_f32_bm128_bn128_bk16_wm64_wn32_tm8_tn8_s3_v4_g1_o2_none");
}

TEST(ConfigName, RoundTrips) {
  SimtConfig c{64, 256, 8, 32, 64, 4, 16, 4, 2, 4, 1};
  for (Epilogue e : {Epilogue::none, Epilogue::bias, Epilogue::bias_relu, Epilogue::bias_gelu}) {
    auto parsed = parse_config_name(config_name(c, Dtype::f32, e));
    ASSERT_TRUE(parsed.has_value());
    EXPECT_EQ(parsed->epilogue, e);
    EXPECT_EQ(config_name(parsed->config, parsed->dtype, parsed->epilogue), config_name(c, Dtype::f32, e));
  }
}

TEST(ConfigName, RejectsWhatIsNotAName) {
  EXPECT_FALSE(parse_config_name("simt_f32_bm128").has_value());
  EXPECT_FALSE(parse_config_name("simt_f32_bm128_bn128_bk16_wm64_wn32_tm8_tn8_s3_v4_g8_o2_swish").has_value());
  EXPECT_FALSE(parse_config_name("simt_f32_bm128_bn128_bk16_wm64_wn32_tm8_tn8_s3_v4_g8_bias_gelu").has_value());
  EXPECT_FALSE(parse_config_name("simt_f32_bm128_bn128_bk16_wm64_wn32_tm8_tn8_s3_v4_g8_o2_bias_gelu_x").has_value());
  EXPECT_FALSE(parse_config_name("mma_f32_bm128_bn128_bk16_wm64_wn32_tm8_tn8_s3_v4_g8_o2_none").has_value());
}

TEST(Vocabulary, ParsesDtypesAndEpilogues) {
  EXPECT_EQ(parse_dtype("f32"), Dtype::f32);
  EXPECT_FALSE(parse_dtype("f16").has_value());
  EXPECT_EQ(parse_epilogue("bias_relu"), Epilogue::bias_relu);
  EXPECT_FALSE(parse_epilogue("gelu").has_value());
}

TEST(TemplateNames, NameTheKernelTemplateTypes) {
  SimtConfig c;
  EXPECT_EQ(simt_tile_type(c), "coalesce::SimtTile<128, 128, 16, 64, 32, 8, 8, 3, 4, 8, 2>");
  EXPECT_EQ(epilogue_type(Epilogue::bias_gelu), "coalesce::EpilogueBiasGeluErf");
  EXPECT_EQ(epilogue_type(Epilogue::none), "coalesce::EpilogueNone");
  EXPECT_EQ(simt_grid_blocks(c, 4096, 4096), 32 * 32);
  EXPECT_EQ(simt_grid_blocks(c, 1000, 4097), 8 * 33);
}
