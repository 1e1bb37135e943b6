// The family registry and the generic config names (kernels/core/family.hpp), with the built-in
// simt family and the stand-in second family registered by this test.
#include <gtest/gtest.h>

#include <iterator>

#include "kernels/core/family.hpp"
#include "standin_family/standin_family.hpp"

using namespace coalesce;

namespace {

// Parsed while this executable's static objects are constructed, before those of the library's
// units (linked after this one) have run: what an emitted program's ahead-of-time cubins do when
// they register (compiler/runtime/mlir_entry.h). Every built-in family's names must parse then.
const char* const kLoadTimeNames[] = {
    "simt_f32_bm128_bn128_bk16_wm64_wn32_tm8_tn8_s3_v4_g8_o2_bias_gelu",
    "mma_bf16_bm128_bn128_kb64_wm64_wn64_s4_v16_sw1_g8_o2_bias_gelu",
    "wgmma_bf16_bm128_bn128_bk64_s6_wg2_cm1_cn1_p1_g8_ts1_bias_gelu",
    "gemv_bf16_mr4_w8_v16_l8_u4_bias",
};
const int kParsedAtLoad = [] {
  int parsed = 0;
  for (const char* name : kLoadTimeNames) parsed += parse_config_name(name).has_value() ? 1 : 0;
  return parsed;
}();

}  // namespace

TEST(ConfigName, ParsesWhileStaticObjectsAreConstructed) {
  EXPECT_EQ(kParsedAtLoad, static_cast<int>(std::size(kLoadTimeNames)));
  for (const char* name : kLoadTimeNames) EXPECT_TRUE(parse_config_name(name).has_value()) << name;
}

TEST(Registry, ListsTheBuiltInFamiliesFirst) {
  ASSERT_FALSE(families().empty());
  EXPECT_EQ(families().front()->name(), "simt");
  EXPECT_NE(find_family("simt"), nullptr);
  EXPECT_EQ(find_family("nope"), nullptr);
}

TEST(Registry, TakesANewFamilyOnceAndOnlyOnce) {
  const Family& stub = coalesce::testing::standin_family();
  EXPECT_EQ(find_family("stub"), &stub);
  EXPECT_NE(family_names().find("stub"), std::string::npos);
  EXPECT_THROW(register_family(stub), std::logic_error);
}

TEST(ConfigName, IsTheFamilyTheDtypeEveryParameterAndTheEpilogue) {
  coalesce::testing::standin_family();
  const Config c{"stub", {64, 32, 128}};
  EXPECT_EQ(config_name(c, Dtype::f32, Epilogue::bias_relu), "stub_f32_bm64_bn32_t128_bias_relu");
  EXPECT_EQ(params_json(c), R"({"bm":64,"bn":32,"threads":128})");
  auto parsed = parse_config_name("stub_f32_bm64_bn32_t128_bias_relu");
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->config, c);
  EXPECT_EQ(parsed->dtype, Dtype::f32);
  EXPECT_EQ(parsed->epilogue, Epilogue::bias_relu);
}

TEST(ConfigName, ParsesOnlyTheCanonicalSpelling) {
  coalesce::testing::standin_family();
  EXPECT_FALSE(parse_config_name("stub_f32_bm064_bn32_t128_none").has_value());
  EXPECT_FALSE(parse_config_name("stub_f32_bm+64_bn32_t128_none").has_value());
  EXPECT_FALSE(parse_config_name("stub_f32_bn32_bm64_t128_none").has_value());
  EXPECT_FALSE(parse_config_name("stub_f32_bm64_bn32_none").has_value());
  EXPECT_FALSE(parse_config_name("stub_bm64_bn32_t128_none").has_value());
  EXPECT_FALSE(parse_config_name("").has_value());
  EXPECT_THROW(config_name(Config{"stub", {64}}, Dtype::f32, Epilogue::none), std::invalid_argument);
  EXPECT_THROW(config_name(Config{"nofamily", {}}, Dtype::f32, Epilogue::none), std::invalid_argument);
}

TEST(Family, ParametersByNameAndGenericResources) {
  const Family& stub = coalesce::testing::standin_family();
  const Config c{"stub", {64, 32, 128}};
  EXPECT_EQ(stub.value(c, "threads"), 128);
  EXPECT_EQ(stub.with(c, "bm", 32), (Config{"stub", {32, 32, 128}}));
  EXPECT_THROW(stub.value(c, "stages"), std::invalid_argument);
  const DeviceLimits h200;
  // 128 threads at 64 registers: 8 KB of registers per block, 8 blocks per 64 K-register SM.
  EXPECT_EQ(stub.resources(c, h200, 64).blocks_per_sm, resident_blocks(h200, 128, (64 + 32) * 64, 64));
  EXPECT_EQ(resident_blocks(h200, 128, 0, 64), 8);
  EXPECT_EQ(stub.kernel_args().size(), 7u);
}

TEST(Target, NamesItsArchitecture) {
  EXPECT_EQ((Target{9, 0, true, {}}).arch(), "sm_90a");
  EXPECT_EQ((Target{9, 0, true, {}}).base_arch(), "sm_90");
  EXPECT_EQ((Target{8, 6, false, {}}).arch(), "sm_86");
}

// The families enumerate their lists in this order (the last list fastest): the seeded random
// draws of committed sweeps depend on it.
TEST(Combinations, EveryCombinationWithTheLastListVaryingFastest) {
  const std::vector<int> a{1, 2}, b{10, 20, 30}, c{7};
  const std::vector<std::vector<int>> expected = {{1, 10, 7}, {1, 20, 7}, {1, 30, 7},
                                                  {2, 10, 7}, {2, 20, 7}, {2, 30, 7}};
  EXPECT_EQ(combinations({&a, &b, &c}), expected);
  const std::vector<int> none;
  EXPECT_TRUE(combinations({&a, &none}).empty());
}
