// The launch contract's plan (harness/launch.hpp) for every registered family, without a GPU: the
// arguments in the family's order, its geometry and tensor maps, the workspace and what of it is
// zeroed, split-K's reduce, stream-K's residency, and the refusals of configs, problems and
// buffers.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

#include "harness/launch.hpp"

namespace coalesce {
namespace {

// The H200 as the families see it (Target's defaults), with wgmma's sm_90a instructions.
Target h200() {
  Target t;
  t.arch_specific = true;
  return t;
}

// The first config of `family`'s sweep for `problem` (each also with split = S where the family
// splits K) that its rules accept and `wanted` picks.
std::optional<Config> first_config(const Family& family, const Problem& problem,
                                   const std::function<bool(const Config&)>& wanted) {
  for (const Config& base : family.sweep_configs(problem)) {
    std::vector<Config> variants = {base};
    const auto& params = family.params();
    if (std::any_of(params.begin(), params.end(), [](const ParamSpec& p) { return p.name == kSplitParam; }))
      for (int s : kSplitFactors) variants.push_back(family.with(base, kSplitParam, s));
    for (const Config& c : variants)
      if (family.check(c).ok() && family.check_problem(c, problem).ok() && wanted(c)) return c;
  }
  return std::nullopt;
}

TEST(LaunchPlan, EveryFamilysBuiltinPlansItsArgumentsGeometryAndTensorMaps) {
  const Target target = h200();
  int planned = 0;
  for (const Family* family : families())
    for (Dtype dtype : all_dtypes()) {
      if (!family->supports(dtype).ok()) continue;
      // A small M suits gemv; the others take a square.
      for (const Problem problem : {Problem{256, 256, 256, dtype, Epilogue::bias_gelu},
                                    Problem{4, 256, 512, dtype, Epilogue::bias_gelu}}) {
        for (const Config& config : family->builtin_configs(problem)) {
          if (!fits(config, problem, target).ok()) continue;
          SCOPED_TRACE(config_name(config, dtype, problem.epilogue));
          const LaunchPlan plan = plan_launch(config, problem, target);
          EXPECT_EQ(plan.family, family);
          EXPECT_EQ(plan.name, config_name(config, dtype, problem.epilogue));
          EXPECT_EQ(plan.args, family->kernel_args());
          const Geometry g = family->geometry(config, problem, target);
          EXPECT_EQ(plan.geometry.grid_x, g.grid_x);
          EXPECT_EQ(plan.geometry.grid_y, g.grid_y);
          EXPECT_EQ(plan.geometry.grid_z, g.grid_z);
          EXPECT_EQ(plan.geometry.block_x, g.block_x);
          EXPECT_EQ(plan.geometry.cluster_x * plan.geometry.cluster_y * plan.geometry.cluster_z,
                    g.cluster_x * g.cluster_y * g.cluster_z);
          EXPECT_EQ(plan.geometry.smem_bytes, g.smem_bytes);
          std::vector<TensorMapSpec> maps;
          for (KernelArg kind : family->kernel_args())
            if (kind == KernelArg::a_tensor_map || kind == KernelArg::b_tensor_map || kind == KernelArg::c_tensor_map)
              maps.push_back(family->tensor_map(config, problem, kind));
          EXPECT_EQ(plan.tensor_maps, maps);
          EXPECT_EQ(plan.workspace_bytes, workspace_bytes(config, problem, target));
          ++planned;
          break;  // the first legal built-in is what the runtime runs untuned
        }
      }
    }
  // simt f32 at both shapes, mma and wgmma in their dtypes, gemv at the small M at least.
  EXPECT_GE(planned, 8);
}

TEST(LaunchPlan, TheDefaultArgumentOrderIsABiasCThenSizes) {
  const Problem p{256, 256, 256, Dtype::f32, Epilogue::bias};
  const Config c = find_family("simt")->builtin_configs(p).front();
  const LaunchPlan plan = plan_launch(c, p, h200());
  const std::vector<KernelArg> expected = {KernelArg::a, KernelArg::b, KernelArg::bias, KernelArg::c,
                                           KernelArg::m, KernelArg::n, KernelArg::k};
  EXPECT_EQ(plan.args, expected);
  EXPECT_TRUE(plan.tensor_maps.empty());
  EXPECT_EQ(plan.workspace_bytes, 0);
  EXPECT_FALSE(plan.reduce_after);
}

TEST(LaunchPlan, WgmmaTakesThreeTensorMapsBeforeItsPointers) {
  const Problem p{512, 512, 512, Dtype::bf16, Epilogue::bias_gelu};
  const Family& wgmma = *find_family("wgmma");
  const LaunchPlan plan = plan_launch(wgmma.builtin_configs(p).front(), p, h200());
  ASSERT_EQ(plan.tensor_maps.size(), 3u);
  EXPECT_EQ(plan.tensor_maps[0].matrix, KernelArg::a);
  EXPECT_EQ(plan.tensor_maps[1].matrix, KernelArg::b);
  EXPECT_EQ(plan.tensor_maps[2].matrix, KernelArg::c);
  EXPECT_EQ(plan.tensor_maps[0].rows, 512);
  EXPECT_EQ(plan.tensor_maps[0].element, Element::bf16);
}

// An unaligned bf16 problem on wgmma: the kernel computes the padded problem, its maps keep the
// logical sides over the padded rows (A: K columns in rows of the padded K; B: K rows and N
// columns in rows of the padded N; C: the padded C), and the workspace holds the copies.
TEST(LaunchPlan, WgmmaStagesUnalignedRowsIntoPaddedCopies) {
  const Problem p{1000, 3001, 777, Dtype::bf16, Epilogue::bias_gelu_residual};
  const Family& wgmma = *find_family("wgmma");
  const auto c = first_config(wgmma, p, [&](const Config& c) {
    return split_slices(c) == 1 && stream_k_segments(c) == 0 && wgmma.value(c, "tma_store") == 1;
  });
  ASSERT_FALSE(c) << "a residual is not stored through TMA";
  const auto direct = first_config(wgmma, p, [](const Config& c) { return split_slices(c) == 1; });
  ASSERT_TRUE(direct);
  const LaunchPlan plan = plan_launch(*direct, p, h200());
  EXPECT_EQ(plan.problem, p);
  EXPECT_EQ(plan.staging.kernel, (Problem{1000, 3008, 784, Dtype::bf16, Epilogue::bias_gelu_residual}));
  ASSERT_EQ(plan.tensor_maps.size(), 3u);
  const TensorMapSpec& a = plan.tensor_maps[0];
  EXPECT_EQ(a.rows, 1000);
  EXPECT_EQ(a.cols, 777);
  EXPECT_EQ(a.stride(), 784);
  const TensorMapSpec& b = plan.tensor_maps[1];
  EXPECT_EQ(b.rows, 777);
  EXPECT_EQ(b.cols, 3001);
  EXPECT_EQ(b.stride(), 3008);
  const TensorMapSpec& cm = plan.tensor_maps[2];
  EXPECT_EQ(cm.rows, 1000);
  EXPECT_EQ(cm.cols, 3008);
  EXPECT_EQ(cm.stride(), 3008);
  // A, B, bias, residual and C copies after the family's own part (none here).
  EXPECT_EQ(plan.staging.family_bytes, 0);
  EXPECT_GE(plan.staging.residual_offset, plan.staging.bias_offset + 3008 * 2);
  EXPECT_EQ(plan.workspace_bytes, plan.staging.c_offset + 1000LL * 3008 * 2);
  EXPECT_FALSE(plan.workspace_as_c);
  EXPECT_EQ(plan.zero_bytes, 0);
  // Without a workspace the buffers are refused before anything is encoded.
  int x = 0;
  EXPECT_NE(buffers_refusal(plan, LaunchBuffers{&x, &x, &x, &x, nullptr, &x}).find("bytes of workspace"),
            std::string::npos);
}

// Row slices (rows further apart than their width) in a family that reads rows in place: A and
// C are copied through contiguous rows, B (contiguous) is read in place, the kernel's problem is
// the problem itself; a stride shorter than its row is refused.
TEST(LaunchPlan, RowSlicesAreCopiedThroughContiguousRows) {
  const Problem p{200, 136, 72, Dtype::f32, Epilogue::bias_gelu};
  const Family& simt = *find_family("simt");
  const Config c = simt.builtin_configs(p).front();
  const LaunchPlan plan = plan_launch(c, p, h200(), RowStrides{96, 0, 140});
  EXPECT_EQ(plan.staging.kernel, p);
  EXPECT_TRUE(plan.staging.a);
  EXPECT_FALSE(plan.staging.b);
  EXPECT_TRUE(plan.staging.c);
  EXPECT_FALSE(plan.staging.n);
  EXPECT_EQ(plan.staging.a_offset, 0);
  EXPECT_EQ(plan.staging.bias_offset, -1);
  EXPECT_EQ(plan.staging.c_offset, (200LL * 72 * 4 + 255) / 256 * 256);
  EXPECT_EQ(plan.workspace_bytes, plan.staging.c_offset + 200LL * 136 * 4);
  // A stride equal to the width is a contiguous operand: nothing staged.
  EXPECT_FALSE(plan_launch(c, p, h200(), RowStrides{72, 136, 136}).staging.any());
  try {
    plan_launch(c, p, h200(), RowStrides{0, 100, 0});
    ADD_FAILURE() << "B's rows 100 apart with 136 columns were planned";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("B's rows are 100 elements apart, fewer than its 136 columns"),
              std::string::npos)
        << e.what();
  }
}

// A gated C (N/2 columns) strided: the kernel's C is a buffer of N/2-column rows.
TEST(LaunchPlan, AGatedCStridedIsCopiedByItsOwnColumns) {
  const Problem p{64, 256, 128, Dtype::bf16, Epilogue::swiglu};
  const Family& mma = *find_family("mma");
  const auto c = first_config(mma, p, [](const Config& c) { return split_slices(c) == 1; });
  ASSERT_TRUE(c);
  const LaunchPlan plan = plan_launch(*c, p, h200(), RowStrides{0, 0, 200});
  EXPECT_TRUE(plan.staging.c);
  EXPECT_FALSE(plan.staging.a);
  EXPECT_EQ(plan.workspace_bytes, plan.staging.c_offset + 64LL * 128 * 2);
}

// A staged split-K plan: the family's partials come first (on the padded N), the copies after,
// and the kernel's workspace argument is the partials (C the padded copy).
TEST(LaunchPlan, StagedSplitKKeepsItsPartialsFirst) {
  const Problem p{64, 1001, 8192, Dtype::f16, Epilogue::bias};
  const Family& wgmma = *find_family("wgmma");
  const auto c = first_config(wgmma, p, [&](const Config& c) {
    return split_slices(c) == 4 && !reduces_in_kernel(c) && stream_k_segments(c) == 0;
  });
  ASSERT_TRUE(c);
  const LaunchPlan plan = plan_launch(*c, p, h200());
  EXPECT_EQ(plan.staging.kernel.n, 1008);
  EXPECT_FALSE(plan.staging.a);
  EXPECT_EQ(plan.staging.family_bytes, 4LL * 64 * 1008 * 4);
  EXPECT_GE(plan.staging.b_offset, plan.staging.family_bytes);
  EXPECT_TRUE(plan.reduce_after);
  EXPECT_FALSE(plan.workspace_as_c);  // wgmma takes its workspace as an argument of its own
  EXPECT_EQ(plan.tensor_maps[0].stride(), 8192);  // A read in place
}

// Split-K with the separate reduce: S·M·N floats of partials passed as the kernel's C, nothing
// zeroed (every slice stores all of its own), the reduce after.
TEST(LaunchPlan, SplitKPassesItsPartialsAsCAndReducesAfter) {
  const Problem p{64, 128, 4096, Dtype::f32, Epilogue::bias_gelu};
  const auto c = first_config(*find_family("simt"), p, [](const Config& c) { return split_slices(c) == 4; });
  ASSERT_TRUE(c);
  const LaunchPlan plan = plan_launch(*c, p, h200());
  EXPECT_EQ(plan.slices, 4);
  EXPECT_EQ(plan.geometry.grid_z, 4u);
  EXPECT_TRUE(plan.reduce_after);
  EXPECT_TRUE(plan.workspace_as_c);
  EXPECT_EQ(plan.workspace_bytes, 4LL * 64 * 128 * 4);
  EXPECT_EQ(plan.zero_bytes, 0);
}

// The reduction in wgmma's kernel: its own workspace argument, the counters after the partials
// zeroed, no reduce after.
TEST(LaunchPlan, InKernelReductionZeroesOnlyItsCounters) {
  const Problem p{128, 256, 8192, Dtype::bf16, Epilogue::bias};
  const Family& wgmma = *find_family("wgmma");
  const auto split = first_config(wgmma, p, [](const Config& c) { return split_slices(c) == 4; });
  ASSERT_TRUE(split);
  const Config counters = wgmma.with(*split, kReduceParam, 1);
  ASSERT_TRUE(wgmma.check(counters).ok()) << wgmma.check(counters).why;
  const LaunchPlan plan = plan_launch(counters, p, h200());
  EXPECT_FALSE(plan.reduce_after);
  EXPECT_FALSE(plan.workspace_as_c);
  EXPECT_EQ(plan.zero_offset, 4LL * 4 * 128 * 256);  // after the four slices' f32 partial sums
  EXPECT_EQ(plan.zero_bytes, plan.workspace_bytes - plan.zero_offset);
  EXPECT_GT(plan.zero_bytes, 0);
}

TEST(LaunchPlan, StreamKZeroesItsWholeWorkspaceAndNeedsResidency) {
  const Problem p{1024, 1024, 4096, Dtype::bf16, Epilogue::none};
  const auto c = first_config(*find_family("wgmma"), p, [](const Config& c) { return stream_k_segments(c) > 0; });
  ASSERT_TRUE(c);
  const LaunchPlan plan = plan_launch(*c, p, h200());
  EXPECT_TRUE(plan.needs_residency);
  EXPECT_GT(plan.workspace_bytes, 0);
  EXPECT_EQ(plan.zero_offset, 0);
  EXPECT_EQ(plan.zero_bytes, plan.workspace_bytes);
  EXPECT_FALSE(plan.reduce_after);
}

TEST(LaunchPlan, RefusesAnUnknownFamilyAndAProblemTheFamilyRefuses) {
  EXPECT_THROW(plan_launch(Config{"nosuch", {}}, Problem{64, 64, 64}, h200()), std::invalid_argument);
  const Problem bf16{256, 256, 256, Dtype::bf16, Epilogue::bias};
  const Config simt = find_family("simt")->builtin_configs(bf16).front();
  try {
    plan_launch(simt, bf16, h200());
    FAIL() << "simt planned a bf16 problem";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind(config_name(simt, Dtype::bf16, Epilogue::bias) + ": ", 0), 0u) << e.what();
  }
}

TEST(LaunchPlan, FitsRefusesWgmmaOnAPortableTarget) {
  const Problem p{512, 512, 512, Dtype::bf16, Epilogue::none};
  const Config c = find_family("wgmma")->builtin_configs(p).front();
  EXPECT_TRUE(fits(c, p, h200()).ok());
  Target portable = h200();
  portable.arch_specific = false;
  EXPECT_EQ(fits(c, p, portable).violation, Violation::arch);
}

// The runtime's untuned f32 choice is the first family's first legal built-in: simt's default
// tile at the example's 4096^3 (so the f32 example runs the kernel it always ran), not mma's.
TEST(LaunchPlan, SimtsDefaultTileFitsTheF32Example) {
  const Problem p{4096, 4096, 4096, Dtype::f32, Epilogue::bias_gelu};
  const Config c = find_family("simt")->builtin_configs(p).front();
  const Verdict v = fits(c, p, h200());
  EXPECT_TRUE(v.ok()) << v.why;
}

TEST(LaunchPlan, BuffersAreRefusedBeforeAnythingIsEncoded) {
  const Problem p{256, 256, 256, Dtype::f32, Epilogue::bias_gelu};
  const Config c = find_family("simt")->builtin_configs(p).front();
  const LaunchPlan plan = plan_launch(c, p, h200());
  int dummy[4];
  EXPECT_EQ(buffers_refusal(plan, {dummy, dummy, dummy, dummy, nullptr}), "");
  EXPECT_NE(buffers_refusal(plan, {nullptr, dummy, dummy, dummy, nullptr}), "");
  EXPECT_EQ(buffers_refusal(plan, {dummy, dummy, nullptr, dummy, nullptr}),
            "the bias_gelu epilogue needs a bias, but none was given");
  EXPECT_THROW(BoundLaunch(plan, nullptr, LaunchBuffers{dummy, dummy, nullptr, dummy, nullptr}), std::invalid_argument);

  const Problem split_p{64, 128, 4096, Dtype::f32, Epilogue::bias_gelu};
  const auto split = first_config(*find_family("simt"), split_p, [](const Config& c) { return split_slices(c) == 2; });
  ASSERT_TRUE(split);
  const LaunchPlan split_plan = plan_launch(*split, split_p, h200());
  EXPECT_NE(buffers_refusal(split_plan, {dummy, dummy, dummy, dummy, nullptr}).find("workspace"), std::string::npos);
}

// The values the kernel reads, in its order: a bound simt launch points at A, B, bias, C, M, N, K.
TEST(LaunchPlan, BoundArgumentsFollowThePlansOrder) {
  const Problem p{256, 128, 64, Dtype::f32, Epilogue::bias};
  const Config c = find_family("simt")->builtin_configs(p).front();
  const LaunchPlan plan = plan_launch(c, p, h200());
  alignas(16) float a[4], b[4], bias[4], out[4];
  const BoundLaunch bound(plan, nullptr, LaunchBuffers{a, b, bias, out, nullptr});
  const std::vector<void*> args = bound.argument_pointers();
  ASSERT_EQ(args.size(), 7u);
  EXPECT_EQ(*static_cast<const void* const*>(args[0]), a);
  EXPECT_EQ(*static_cast<const void* const*>(args[1]), b);
  EXPECT_EQ(*static_cast<const void* const*>(args[2]), bias);
  EXPECT_EQ(*static_cast<void* const*>(args[3]), out);
  EXPECT_EQ(*static_cast<const int*>(args[4]), 256);
  EXPECT_EQ(*static_cast<const int*>(args[5]), 128);
  EXPECT_EQ(*static_cast<const int*>(args[6]), 64);
}

}  // namespace
}  // namespace coalesce
