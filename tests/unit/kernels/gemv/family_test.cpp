// The gemv plug-in (kernels/gemv/family.cpp): its names, refusals, resources, geometry, emission,
// search space and split-K, every answer GemvConfig's.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "kernels/core/epilogues.hpp"

#include "kernels/gemv/builtin.hpp"
#include "kernels/gemv/family.hpp"

using namespace coalesce;

namespace {

const Family& gemv() { return gemv_family(); }

int legal_count(const Problem& problem, const DeviceLimits& limits) {
  int legal = 0;
  for (const Config& c : gemv().sweep_configs(problem)) {
    if (!gemv().check(c).ok()) continue;
    if (!gemv().check(c, limits, gemv().predict(c, limits).registers).ok()) continue;
    if (gemv().check_problem(c, problem).ok()) ++legal;
  }
  return legal;
}

}  // namespace

TEST(GemvFamily, IsRegisteredAfterWgmma) {
  EXPECT_EQ(find_family("gemv"), &gemv());
  ASSERT_GE(families().size(), 4u);
  EXPECT_EQ(families()[2]->name(), "wgmma");
  EXPECT_EQ(families()[3]->name(), "gemv");
  EXPECT_NE(family_names().find("gemv"), std::string::npos);
}

TEST(GemvFamily, NamesCarryEveryParameterButAnUnsplitK) {
  const GemvConfig c;
  EXPECT_EQ(config_name(from_gemv(c), Dtype::bf16, Epilogue::bias_gelu), "gemv_bf16_mr4_w8_v16_l8_u4_bias_gelu");
  EXPECT_EQ(params_json(from_gemv(c)), R"({"mr":4,"warps":8,"vec_bytes":16,"lanes":8,"unroll":4})");
  for (Dtype d : all_dtypes())
    for (Epilogue e : all_epilogues()) {
      const GemvConfig other{8, 4, 8, 32, 2, 1};
      auto parsed = parse_config_name(config_name(from_gemv(other), d, e));
      ASSERT_TRUE(parsed.has_value());
      EXPECT_EQ(parsed->dtype, d);
      EXPECT_EQ(parsed->epilogue, e);
      EXPECT_EQ(parsed->config, from_gemv(other));
    }
  EXPECT_FALSE(parse_config_name("gemv_f32_mr4_w8_v16_l8_bias_gelu").has_value());
  EXPECT_FALSE(parse_config_name("gemv_f32_mr4_w8_v16_l8_u4_sk1_none").has_value());
  EXPECT_THROW(to_gemv(Config{"simt", std::vector<int>(6, 1)}), std::invalid_argument);
  EXPECT_THROW(to_gemv(Config{"gemv", {1, 2}}), std::invalid_argument);
}

// Split-K (kernels/core/family.hpp, kSplitParam): named "sk" only above 1, in the grid's z, with
// f32 partials, one kernel for every factor.
TEST(GemvFamily, SplitSlicesKInTheGridAndIsNamedOnlyWhenItSplits) {
  GemvConfig c;
  c.split = 4;
  const Config split = from_gemv(c);
  const std::string name = config_name(split, Dtype::f16, Epilogue::bias_relu);
  EXPECT_EQ(name, "gemv_f16_mr4_w8_v16_l8_u4_sk4_bias_relu");
  auto parsed = parse_config_name(name);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->config, split);
  EXPECT_EQ(split_slices(split), 4);
  EXPECT_EQ(split_slices(kernel_config(split)), 2);
  EXPECT_EQ(gemv().tile_type(split), "coalesce::GemvTile<4, 8, 16, 8, 4, 4>");
  EXPECT_EQ(gemv().tile_type(from_gemv(GemvConfig{})), "coalesce::GemvTile<4, 8, 16, 8, 4>");
  const Problem p{3, 4096, 4096, Dtype::bf16, Epilogue::bias_gelu};
  const Geometry g = gemv().geometry(split, p, Target{});
  EXPECT_EQ(g.grid_z, 4u);
  EXPECT_EQ(workspace_bytes(split, p), 4LL * 3 * 4096 * 4);
  Target h200;
  EXPECT_TRUE(check_schedule(gemv(), split, p, h200).ok());
  // 64 rows of 4 and 4096 / 32 f32 strips: 2048 blocks fill the GPU without a split.
  EXPECT_EQ(check_schedule(gemv(), split, Problem{64, 4096, 4096, Dtype::f32}, h200).violation, Violation::schedule);
}

// gemv reads the M×N residual of an epilogue that adds one, as its last kernel parameter, in its
// unsplit kernels only: a split config's reduce adds no residual.
TEST(GemvFamily, ReadsTheResidualUnsplit) {
  const std::vector<KernelArg>& args = gemv().kernel_args();
  ASSERT_FALSE(args.empty());
  EXPECT_EQ(args.back(), KernelArg::residual);
  EXPECT_EQ(std::vector<KernelArg>(args.begin(), args.end() - 1),
            (std::vector<KernelArg>{KernelArg::a, KernelArg::b, KernelArg::bias, KernelArg::c, KernelArg::m,
                                    KernelArg::n, KernelArg::k}));
  EXPECT_TRUE(supports_epilogue(gemv(), Epilogue::bias_gelu_residual).ok());
  const Problem residual{8, 4096, 4096, Dtype::bf16, Epilogue::bias_gelu_residual};
  EXPECT_TRUE(gemv().check_problem(from_gemv(GemvConfig{}), residual).ok());
  GemvConfig split;
  split.split = 4;
  const Verdict v = gemv().check_problem(from_gemv(split), residual);
  EXPECT_EQ(v.violation, Violation::epilogue);
  EXPECT_NE(std::string(v.why).find("residual"), std::string::npos);
  EXPECT_TRUE(gemv().check_problem(from_gemv(split), {8, 4096, 4096, Dtype::bf16, Epilogue::bias_gelu}).ok());
}

TEST(GemvFamily, ComputesEveryDtypeOnSm80AndLater) {
  for (Dtype d : all_dtypes()) EXPECT_TRUE(gemv().supports(d).ok());
  EXPECT_TRUE(gemv().supports(Target{8, 0, false, {}}).ok());
  EXPECT_TRUE(gemv().supports(Target{9, 0, true, {}}).ok());
  EXPECT_EQ(gemv().supports(Target{7, 5, false, {}}).violation, Violation::arch);
  EXPECT_EQ(gemv().nvrtc_arch(Target{9, 0, true, {}}), "sm_90");
  EXPECT_EQ(gemv().nvrtc_arch(Target{8, 0, false, {}}), "sm_80");
}

TEST(GemvFamily, AnswersWithGemvConfigsRule) {
  const DeviceLimits h200;
  GemvConfig bad;
  bad.lanes = 2;
  EXPECT_EQ(gemv().check(from_gemv(bad)).violation, Violation::shape);
  const GemvConfig c;
  const Resources r = gemv().predict(from_gemv(c), h200);
  EXPECT_EQ(r.threads, 256);
  EXPECT_EQ(r.registers, c.predicted_registers());
  EXPECT_EQ(r.register_cap, 255);
  EXPECT_EQ(r.smem_bytes, c.smem_bytes());
  EXPECT_EQ(r.blocks_per_sm, c.blocks_per_sm(h200, c.predicted_registers()));
  // On a problem the model and shared memory are the dtype's: bf16 has twice f32's columns.
  const Resources f32 = gemv().predict(from_gemv(c), h200, {1, 4096, 4096, Dtype::f32});
  const Resources bf16 = gemv().predict(from_gemv(c), h200, {1, 4096, 4096, Dtype::bf16});
  EXPECT_EQ(f32.registers, c.model_registers(4));
  EXPECT_EQ(bf16.registers, c.model_registers(2));
  EXPECT_EQ(bf16.registers - f32.registers, c.mr * 4);
  EXPECT_EQ(f32.smem_bytes, c.smem_bytes(4));
  EXPECT_EQ(bf16.smem_bytes, c.smem_bytes(2));
  EXPECT_EQ(gemv().check_problem(from_gemv(c), {65, 4096, 4096, Dtype::f32, Epilogue::none}).violation,
            Violation::shape);
  EXPECT_NE(std::string(gemv().check_problem(from_gemv(c), {4096, 4096, 4096, Dtype::f32}).why).find("M <= 64"),
            std::string::npos);
  EXPECT_EQ(gemv().check_problem(from_gemv(c), {1, 1002, 4096, Dtype::f16, Epilogue::none}).violation,
            Violation::divisibility);
}

TEST(GemvFamily, GeometryAndTemplateNames) {
  const Config c = from_gemv(GemvConfig{});
  // f32: strips of 32 columns; 17 rows in groups of 4.
  Geometry g = gemv().geometry(c, {17, 1000, 1030, Dtype::f32, Epilogue::none}, Target{});
  EXPECT_EQ(g.grid_x, 32u);  // ceil(1000 / 32)
  EXPECT_EQ(g.grid_y, 5u);
  EXPECT_EQ(g.grid_z, 1u);
  EXPECT_EQ(g.block_x, 256u);
  EXPECT_EQ(g.smem_bytes, 8 * 4 * 32 * 4);
  // bf16: strips of 64 columns.
  g = gemv().geometry(c, {1, 4096, 4096, Dtype::bf16, Epilogue::none}, Target{});
  EXPECT_EQ(g.grid_x, 64u);
  EXPECT_EQ(g.grid_y, 1u);
  EXPECT_EQ(g.smem_bytes, 8 * 4 * 64 * 4);
  EXPECT_EQ(gemv().define_kernel(c, Dtype::tf32, Epilogue::bias_gelu, "k"),
            "COALESCE_DEFINE_GEMV_KERNEL(k, coalesce::GemvTile<4, 8, 16, 8, 4>, "
            "coalesce::GemmOf<coalesce::Dtype::tf32>, coalesce::EpilogueFor<coalesce::Epilogue::bias_gelu>)");
  EXPECT_EQ(gemv().kernel_header(), "kernels/gemv/gemm.cuh");
  EXPECT_EQ(gemv().kernel_args().size(), 8u);  // A, B, bias, C, M, N, K and the residual (ReadsTheResidualUnsplit)
}

TEST(GemvFamily, WidestLoadPerShapeAndDtype) {
  EXPECT_EQ(gemv_widest_vec({1, 4096, 4096, Dtype::bf16}), 16);
  EXPECT_EQ(gemv_widest_vec({1, 1000, 1030, Dtype::f32}), 16);
  EXPECT_EQ(gemv_widest_vec({1, 1004, 1030, Dtype::bf16}), 8);
  EXPECT_EQ(gemv_widest_vec({1, 1002, 1030, Dtype::f16}), 4);
  EXPECT_EQ(gemv_widest_vec({1, 1001, 1030, Dtype::f16}), 2);  // one element per load (issue 39)
  EXPECT_EQ(gemv_widest_vec({1, 1001, 1030, Dtype::f32}), 4);
  // M above the family's range is no divisibility matter: the widest load is still named.
  EXPECT_EQ(gemv_widest_vec({4096, 4096, 4096, Dtype::f32}), 16);
}

// Tens of configs, most of them legal, all refused above M = 64. MR above 8 rows only where
// more than half of a block's rows are rows of C: 48 combinations at M = 1 (MR 1 to 8, as
// measured in runs 51 to 67), 60 at M = 9 (MR 16 too), all 72 at M = 32.
TEST(GemvFamily, SweepIsTensOfConfigsAndRefusesLargeM) {
  const GemvLists& l = gemv_lists();
  const std::size_t per_mr = l.warps.size() * l.lanes.size() * l.unroll.size();
  const std::size_t product = l.mr.size() * per_mr;
  EXPECT_EQ(product, 72u);
  EXPECT_EQ(gemv().sweep_configs({8, 4096, 4096, Dtype::f32}).size(), 4 * per_mr);
  EXPECT_EQ(gemv().sweep_configs({9, 4096, 4096, Dtype::f32}).size(), 5 * per_mr);
  EXPECT_EQ(gemv().sweep_configs({32, 4096, 4096, Dtype::f32}).size(), product);
  for (Dtype d : all_dtypes()) {
    const Problem p{1, 4096, 4096, d, Epilogue::bias_gelu};
    const auto configs = gemv().sweep_configs(p);
    EXPECT_EQ(configs.size(), 4 * per_mr);
    std::set<std::vector<int>> distinct;
    for (const Config& c : configs) {
      EXPECT_EQ(to_gemv(c).vec_bytes, 16);
      EXPECT_EQ(to_gemv(c).split, 1);
      distinct.insert(c.values);
    }
    EXPECT_EQ(distinct.size(), configs.size());
    EXPECT_GE(legal_count(p, DeviceLimits{}), static_cast<int>(configs.size()) * 3 / 4) << to_string(d);
  }
  EXPECT_EQ(legal_count({4096, 4096, 4096, Dtype::f32}, DeviceLimits{}), 0);
  // An odd N in bf16 takes 2-byte loads (issue 39).
  EXPECT_GT(legal_count({1, 1001, 4096, Dtype::bf16}, DeviceLimits{}), 0);
  for (const Config& c : gemv().sweep_configs({1, 1001, 4096, Dtype::bf16})) EXPECT_EQ(to_gemv(c).vec_bytes, 2);
}

TEST(GemvFamily, BuiltinsAreTheListsAndLegal) {
  const auto builtins = gemv().builtin_configs({1, 4096, 4096, Dtype::f32});
  ASSERT_EQ(builtins.size(), static_cast<std::size_t>(gemv_builtin::kCount));
  for (const Config& c : builtins) {
    EXPECT_TRUE(gemv().check(c, DeviceLimits{}, gemv().predict(c, DeviceLimits{}).registers).ok());
    for (Dtype d : all_dtypes())
      if (to_gemv(c).vec_bytes >= element_bytes(gemm_types(d).b))
        for (int m : {1, 3, 8, 17, 64}) EXPECT_TRUE(gemv().check_problem(c, {m, 4096, 4096, d}).ok());
  }
  EXPECT_EQ(to_gemv(builtins[builtins.size() - 2]).vec_bytes, 4);
  EXPECT_EQ(to_gemv(builtins.back()).vec_bytes, 2);
}
