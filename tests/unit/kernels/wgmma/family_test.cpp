// The wgmma plug-in (kernels/wgmma/family.cpp): names, the sweep it lists, geometry, tensor maps
// and emission, every answer WgmmaConfig's.
#include <gtest/gtest.h>

#include <set>

#include "harness/tma.hpp"
#include "kernels/wgmma/builtin.hpp"
#include "kernels/wgmma/family.hpp"

using namespace coalesce;

namespace {

const Family& wgmma() { return wgmma_family(); }

Problem problem(int m, int n, int k, Dtype d = Dtype::bf16) { return {m, n, k, d, Epilogue::bias_gelu}; }

Target h200() { return Target{9, 0, true, DeviceLimits{}, 132}; }

}  // namespace

TEST(WgmmaFamily, IsRegisteredAfterSimt) {
  ASSERT_EQ(find_family("wgmma"), &wgmma());
  EXPECT_EQ(families().front()->name(), "simt");
  EXPECT_EQ(wgmma().kernel_header(), "kernels/wgmma/gemm.cuh");
}

TEST(WgmmaFamily, NamesRoundTrip) {
  const WgmmaConfig c;
  const std::string name = config_name(from_wgmma(c), Dtype::bf16, Epilogue::bias_gelu);
  EXPECT_EQ(name, "wgmma_bf16_bm128_bn256_bk64_s4_wg2_cm1_cn1_p0_g8_ts0_bias_gelu");
  EXPECT_EQ(params_json(from_wgmma(c)),
            R"({"bm":128,"bn":256,"bk":64,"stages":4,"consumers":2,"cluster_m":1,"cluster_n":1,"persistent":0,"group_m":8,"tma_store":0})");
  for (Dtype d : {Dtype::bf16, Dtype::f16})
    for (Epilogue e : all_epilogues()) {
      const WgmmaConfig k{64, 192, 64, 6, 1, 1, 1, 1, 16, 1};
      auto parsed = parse_config_name(config_name(from_wgmma(k), d, e));
      ASSERT_TRUE(parsed.has_value());
      EXPECT_EQ(parsed->config, from_wgmma(k));
      EXPECT_EQ(parsed->dtype, d);
      EXPECT_EQ(parsed->epilogue, e);
    }
  EXPECT_THROW(to_wgmma(Config{"simt", {}}), std::invalid_argument);
}

TEST(WgmmaFamily, Computes16BitOnSm90aOnly) {
  EXPECT_TRUE(wgmma().supports(Dtype::bf16).ok());
  EXPECT_TRUE(wgmma().supports(Dtype::f16).ok());
  EXPECT_EQ(wgmma().supports(Dtype::f32).violation, Violation::dtype);
  const Verdict tf32 = wgmma().supports(Dtype::tf32);
  EXPECT_EQ(tf32.violation, Violation::dtype);
  EXPECT_NE(std::string(tf32.why).find("K-major"), std::string::npos) << tf32.why;

  EXPECT_TRUE(wgmma().supports(h200()).ok());
  EXPECT_EQ(wgmma().supports(Target{9, 0, false, {}}).violation, Violation::arch);  // sm_90
  EXPECT_EQ(wgmma().supports(Target{8, 0, false, {}}).violation, Violation::arch);
  EXPECT_EQ(wgmma().supports(Target{10, 0, true, {}}).violation, Violation::arch);
  EXPECT_EQ(wgmma().nvrtc_arch(h200()), "sm_90a");
}

// The sweep at 4096: a bit over a hundred legal configs, every listed combination either a
// config or refused by the rule, every name distinct.
TEST(WgmmaFamily, SweepAt4096) {
  const Problem p = problem(4096, 4096, 4096);
  const DeviceLimits d;
  int legal = 0, pruned = 0, non_configs = 0;
  std::set<std::string> names;
  for (const Config& c : wgmma().sweep_configs(p)) {
    EXPECT_TRUE(names.insert(config_name(c, p.dtype, p.epilogue)).second);
    if (!wgmma().check(c).ok()) {
      ++non_configs;
      continue;
    }
    const Verdict v = wgmma().check(c, d, wgmma().predict(c, d).registers);
    if (v.ok() && wgmma().check_problem(c, p).ok()) {
      ++legal;
      // Two consumers take the SM's registers (384 threads x 168); small one-consumer tiles
      // may share an SM.
      const Resources r = wgmma().predict(c, d);
      if (to_wgmma(c).consumers == 2) EXPECT_EQ(r.blocks_per_sm, 1);
      EXPECT_GE(r.blocks_per_sm, 1);
    } else {
      EXPECT_EQ(v.violation, Violation::smem) << config_name(c, p.dtype, p.epilogue);
      ++pruned;
    }
  }
  EXPECT_EQ(legal, 168);
  EXPECT_EQ(pruned, 56);
  EXPECT_EQ(non_configs, 160);
}

TEST(WgmmaFamily, BuiltinsFitEveryProblemTheFamilyTakes) {
  for (const Problem& p : {problem(4096, 4096, 4096), problem(1024, 1000, 1032, Dtype::f16), problem(1, 8, 8)}) {
    const auto builtins = wgmma().builtin_configs(p);
    ASSERT_EQ(builtins.size(), static_cast<std::size_t>(wgmma_builtin::kCount));
    for (const Config& c : builtins) {
      EXPECT_TRUE(wgmma().check(c, DeviceLimits{}, wgmma().predict(c, DeviceLimits{}).registers).ok());
      EXPECT_TRUE(wgmma().check_problem(c, p).ok());
    }
  }
  EXPECT_EQ(wgmma().check_problem(from_wgmma(WgmmaConfig{}), problem(4096, 4095, 4096)).violation,
            Violation::divisibility);
}

TEST(WgmmaFamily, GeometryIsATileGridOrOneWave) {
  WgmmaConfig c;  // 128 x 256
  const Problem p = problem(4096, 4096, 4096);
  Geometry g = wgmma().geometry(from_wgmma(c), p, h200());
  EXPECT_EQ(g.grid_x, 32u * 16u);
  EXPECT_EQ(g.block_x, 384u);
  EXPECT_EQ(g.smem_bytes, c.smem_bytes());
  EXPECT_EQ(g.cluster_x * g.cluster_y, 1u);
  c.persistent = 1;
  g = wgmma().geometry(from_wgmma(c), p, h200());
  EXPECT_EQ(g.grid_x, 132u);
  // Fewer tiles than SMs: one block per tile.
  g = wgmma().geometry(from_wgmma(c), problem(1024, 1000, 1032), h200());
  EXPECT_EQ(g.grid_x, 8u * 4u);
}

TEST(WgmmaFamily, TensorMapsMatchTheKernelsBoxes) {
  const WgmmaConfig c{256, 128, 64, 4, 2, 1, 1, 0, 8, 1};
  const Problem p = problem(1024, 1000, 1032);
  const Config cfg = from_wgmma(c);
  ASSERT_EQ(wgmma().kernel_args().size(), 8u);
  EXPECT_EQ(wgmma().kernel_args()[0], KernelArg::a_tensor_map);
  const TensorMapSpec a = wgmma().tensor_map(cfg, p, KernelArg::a_tensor_map);
  EXPECT_EQ(a, (TensorMapSpec{KernelArg::a, Element::bf16, 1024, 1032, 256, 64, 128}));
  const TensorMapSpec b = wgmma().tensor_map(cfg, p, KernelArg::b_tensor_map);
  EXPECT_EQ(b, (TensorMapSpec{KernelArg::b, Element::bf16, 1032, 1000, 64, 64, 128}));
  const TensorMapSpec cm = wgmma().tensor_map(cfg, p, KernelArg::c_tensor_map);
  EXPECT_EQ(cm, (TensorMapSpec{KernelArg::c, Element::bf16, 1024, 1000, 16, 64, 128}));
  EXPECT_THROW(wgmma().tensor_map(cfg, p, KernelArg::bias), std::invalid_argument);
  EXPECT_THROW(find_family("simt")->tensor_map(cfg, p, KernelArg::a_tensor_map), std::logic_error);
}

// Every map of every legal sweep config is one the driver takes (its documented rules, checked
// here without a GPU), at the square shape and at the edge shape; a shape the rule refuses
// would be refused by the driver too.
TEST(WgmmaFamily, EveryLegalConfigsTensorMapsAreEncodable) {
  const void* aligned = reinterpret_cast<const void*>(std::uintptr_t{1} << 20);
  for (const Problem& p : {problem(4096, 4096, 4096), problem(1024, 1000, 1032, Dtype::f16)})
    for (const Config& c : wgmma().sweep_configs(p)) {
      if (!wgmma().check(c).ok()) continue;
      for (KernelArg map : {KernelArg::a_tensor_map, KernelArg::b_tensor_map, KernelArg::c_tensor_map}) {
        const TensorMapSpec s = wgmma().tensor_map(c, p, map);
        EXPECT_EQ(tensor_map_refusal(s, aligned), "") << describe(s);
      }
    }
  const TensorMapSpec odd = wgmma().tensor_map(from_wgmma(WgmmaConfig{}), problem(4096, 4095, 4096),
                                               KernelArg::b_tensor_map);
  EXPECT_NE(tensor_map_refusal(odd, aligned), "");
  const TensorMapSpec fine = wgmma().tensor_map(from_wgmma(WgmmaConfig{}), problem(64, 64, 64), KernelArg::a_tensor_map);
  EXPECT_NE(tensor_map_refusal(fine, reinterpret_cast<const void*>(std::uintptr_t{8})), "");
}

TEST(WgmmaFamily, DefinesTheKernelThroughItsMacro) {
  const Config c = from_wgmma(WgmmaConfig{});
  EXPECT_EQ(wgmma().tile_type(c), "coalesce::WgmmaTile<128, 256, 64, 4, 2, 1, 1, 0, 8, 0>");
  EXPECT_EQ(wgmma().define_kernel(c, Dtype::f16, Epilogue::bias_relu, "k"),
            "COALESCE_DEFINE_WGMMA_KERNEL(k, coalesce::Dtype::f16, coalesce::WgmmaTile<128, 256, 64, 4, 2, 1, 1, 0, 8, "
            "0>, coalesce::EpilogueFor<coalesce::Epilogue::bias_relu>)");
  EXPECT_THROW(wgmma().define_kernel(c, Dtype::tf32, Epilogue::none, "k"), std::invalid_argument);
}
