// The gemv config's one validity rule (kernels/gemv/config.hpp), category by category.
#include <gtest/gtest.h>

#include "kernels/gemv/builtin.hpp"
#include "kernels/gemv/config.hpp"

using coalesce::DeviceLimits;
using coalesce::Dtype;
using coalesce::element_bytes;
using coalesce::gemm_types;
using coalesce::GemvConfig;
using coalesce::Violation;

TEST(GemvConfig, DefaultIsValidOnH200) {
  const GemvConfig c;
  EXPECT_TRUE(c.check().ok());
  EXPECT_TRUE(c.check(DeviceLimits{}).ok());
  EXPECT_EQ(c.threads(), 256);
  EXPECT_EQ(c.rows_per_load(), 4);
  EXPECT_EQ(c.step_rows(), 16);
  // 16-byte loads: 4 f32 or 8 bf16 columns a lane, 32 or 64 a strip of 8 lanes.
  EXPECT_EQ(c.strip_columns(4), 32);
  EXPECT_EQ(c.strip_columns(2), 64);
  // 8 warps' 4 x 64 f32 partials (the 2-byte bound), 4 x 32 for f32.
  EXPECT_EQ(c.smem_bytes(), 8 * 4 * 64 * 4);
  EXPECT_EQ(c.smem_bytes(4), 8 * 4 * 32 * 4);
  static_assert(GemvConfig{}.check().ok(), "the rule is a constant expression (the kernel's static_asserts)");
}

TEST(GemvConfig, ShapeRules) {
  auto with = [](auto set) {
    GemvConfig c;
    set(c);
    return c.check().violation;
  };
  EXPECT_EQ(with([](GemvConfig& c) { c.mr = 0; }), Violation::shape);
  EXPECT_EQ(with([](GemvConfig& c) { c.mr = 16; }), Violation::none);
  EXPECT_EQ(with([](GemvConfig& c) { c.mr = 18; }), Violation::shape);  // staged A: 4 rows at a time
  EXPECT_EQ(with([](GemvConfig& c) { c.mr = 32; }), Violation::none);
  EXPECT_EQ(with([](GemvConfig& c) { c.mr = 33; }), Violation::shape);
  EXPECT_EQ(with([](GemvConfig& c) { c.warps = 0; }), Violation::shape);
  EXPECT_EQ(with([](GemvConfig& c) { c.warps = 33; }), Violation::shape);
  EXPECT_EQ(with([](GemvConfig& c) { c.vec_bytes = 2; }), Violation::none);  // one bf16/f16 (issue 39)
  EXPECT_EQ(with([](GemvConfig& c) { c.vec_bytes = 1; }), Violation::shape);
  EXPECT_EQ(with([](GemvConfig& c) { c.vec_bytes = 32; }), Violation::shape);
  EXPECT_EQ(with([](GemvConfig& c) { c.lanes = 2; }), Violation::shape);  // under a sector per row
  EXPECT_EQ(with([](GemvConfig& c) { c.lanes = 12; }), Violation::shape);
  EXPECT_EQ(with([](GemvConfig& c) { c.unroll = 0; }), Violation::shape);
  EXPECT_EQ(with([](GemvConfig& c) { c.unroll = 17; }), Violation::shape);
  EXPECT_EQ(with([](GemvConfig& c) { c.split = 0; }), Violation::shape);
  EXPECT_EQ(with([](GemvConfig& c) { c.split = 33; }), Violation::shape);
  EXPECT_EQ(with([](GemvConfig& c) { c.split = 32; }), Violation::none);
}

// Above 16 rows each warp stages its step's rows of A (MR + 4 floats a row of K) after the
// partials; at 16 and below nothing is staged.
TEST(GemvConfig, StagesAAbove16Rows) {
  GemvConfig c{32, 4, 16, 8, 4};  // steps of 4 x 4 = 16 rows of K
  EXPECT_TRUE(c.stages_a());
  EXPECT_EQ(c.stage_floats(), 16 * 36);
  EXPECT_EQ(c.smem_bytes(4), 4 * 32 * 32 * 4 + 4 * 16 * 36 * 4);
  c.mr = 16;
  EXPECT_FALSE(c.stages_a());
  EXPECT_EQ(c.smem_bytes(4), 4 * 16 * 32 * 4);
}

TEST(GemvConfig, DeviceRules) {
  const DeviceLimits h200;
  GemvConfig c;
  c.warps = 32;  // 1024 threads: a cap of 64 registers, under the model of 4 rows x 8 columns
  EXPECT_EQ(c.check(h200).violation, Violation::registers);
  c.mr = 1;
  c.unroll = 2;
  EXPECT_EQ(c.check(h200).violation, Violation::none);
  DeviceLimits small = h200;
  small.max_threads_per_block = 512;
  EXPECT_EQ(c.check(small).violation, Violation::threads);
  GemvConfig big;  // 16 warps of 8 rows x 32 lanes x 8 columns: 128 KB of partials
  big.warps = 16;
  big.mr = 8;
  big.lanes = 32;
  big.unroll = 1;
  DeviceLimits a100 = h200;
  a100.smem_per_block_optin = 100000;
  EXPECT_EQ(big.check(a100, 100).violation, Violation::smem);
  EXPECT_EQ(GemvConfig{}.check(h200, 256).violation, Violation::registers);
}

TEST(GemvConfig, ProblemRules) {
  const GemvConfig c;  // 16-byte loads
  EXPECT_TRUE(c.check_problem(1, 4096, 4096, Dtype::f32).ok());
  EXPECT_TRUE(c.check_problem(64, 4096, 4096, Dtype::bf16).ok());
  EXPECT_EQ(c.check_problem(65, 4096, 4096, Dtype::f32).violation, Violation::shape);
  EXPECT_EQ(c.check_problem(0, 4096, 4096, Dtype::f32).violation, Violation::shape);
  // N = 1000: 4000 bytes of f32 (16-byte rows), 2000 of bf16 (16-byte rows); 1002: neither.
  EXPECT_TRUE(c.check_problem(3, 1000, 1030, Dtype::tf32).ok());
  EXPECT_TRUE(c.check_problem(3, 1000, 1030, Dtype::f16).ok());
  EXPECT_EQ(c.check_problem(3, 1002, 1030, Dtype::f32).violation, Violation::divisibility);
  EXPECT_EQ(c.check_problem(3, 1002, 1030, Dtype::bf16).violation, Violation::divisibility);
  GemvConfig narrow = c;
  narrow.vec_bytes = 4;
  EXPECT_TRUE(narrow.check_problem(3, 1001, 7, Dtype::f32).ok());
  EXPECT_TRUE(narrow.check_problem(3, 1002, 7, Dtype::bf16).ok());
  EXPECT_EQ(narrow.check_problem(3, 1001, 7, Dtype::bf16).violation, Violation::divisibility);
  GemvConfig two = c;  // one bf16/f16 element per load: any N in 16-bit, never f32 storage
  two.vec_bytes = 2;
  EXPECT_TRUE(two.check_problem(3, 1001, 7, Dtype::bf16).ok());
  EXPECT_TRUE(two.check_problem(1, 1, 1, Dtype::f16).ok());
  EXPECT_EQ(two.check_problem(3, 1001, 7, Dtype::f32).violation, Violation::shape);
  EXPECT_EQ(two.check_problem(3, 1002, 7, Dtype::tf32).violation, Violation::shape);
  // The register model per element size: 32 rows x 4 f32 columns of accumulators fit a thread,
  // 32 x 8 bf16 columns do not; without a dtype the config is judged by f32's, the least.
  const GemvConfig tall{32, 4, 16, 8, 4};
  EXPECT_EQ(tall.model_registers(4), 32 * 4 + 4 * 4 + 32 + 32 * 16 / 16 + 32);
  EXPECT_TRUE(tall.check(DeviceLimits{}).ok());
  EXPECT_TRUE(tall.check_problem(32, 4096, 4096, Dtype::f32).ok());
  EXPECT_TRUE(tall.check_problem(32, 4096, 4096, Dtype::tf32).ok());
  EXPECT_EQ(tall.check_problem(32, 4096, 4096, Dtype::bf16).violation, Violation::registers);
  EXPECT_EQ(tall.check_problem(32, 4096, 4096, Dtype::f16).violation, Violation::registers);
  GemvConfig deep = tall;  // steps of 32 rows: 64 registers of staged A a lane
  deep.unroll = 8;
  EXPECT_EQ(deep.check(DeviceLimits{}).violation, Violation::registers);
  // A row of K per slice; 32-bit indexing.
  GemvConfig split = c;
  split.split = 8;
  EXPECT_TRUE(split.check_problem(1, 4096, 8, Dtype::f32).ok());
  EXPECT_EQ(split.check_problem(1, 4096, 7, Dtype::f32).violation, Violation::shape);
  EXPECT_EQ(c.check_problem(1, 1 << 16, 1 << 15, Dtype::f32).violation, Violation::shape);
}

// The built-ins are legal on the H200 and an A100 at every M the family takes (the 2-byte one in
// bf16/f16, whose elements it loads), the last two for every N the family takes: the 4-byte one
// in f32 and tf32 and for even N, the 2-byte one for any N in bf16/f16.
TEST(GemvConfig, BuiltinsAreLegalForEveryM) {
  DeviceLimits a100;
  a100.smem_per_block_optin = 166912;
  a100.smem_per_sm = 167936;
  for (const GemvConfig& c : coalesce::gemv_builtin::kConfigs) {
    EXPECT_TRUE(c.check(DeviceLimits{}).ok());
    EXPECT_TRUE(c.check(a100).ok());
    for (int m = 1; m <= GemvConfig::kMaxM; ++m)
      for (Dtype d : {Dtype::f32, Dtype::tf32, Dtype::bf16, Dtype::f16})
        if (c.vec_bytes >= element_bytes(gemm_types(d).b)) EXPECT_TRUE(c.check_problem(m, 4096, 4096, d).ok()) << m;
  }
  const GemvConfig& four = coalesce::gemv_builtin::kConfigs[coalesce::gemv_builtin::kCount - 2];
  const GemvConfig& two = coalesce::gemv_builtin::kConfigs[coalesce::gemv_builtin::kCount - 1];
  EXPECT_EQ(four.vec_bytes, 4);
  EXPECT_EQ(two.vec_bytes, 2);
  for (int n : {1, 2, 3, 1001, 1002}) {
    EXPECT_TRUE(four.check_problem(5, n, 1030, n % 2 ? Dtype::f32 : Dtype::bf16).ok()) << n;
    EXPECT_TRUE(two.check_problem(5, n, 1030, Dtype::bf16).ok()) << n;
    EXPECT_TRUE(two.check_problem(5, n, 1030, Dtype::f16).ok()) << n;
  }
}
