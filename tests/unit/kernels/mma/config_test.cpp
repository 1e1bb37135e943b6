// The mma config's one validity rule (kernels/mma/config.hpp), category by category.
#include <gtest/gtest.h>

#include <string>

#include "kernels/mma/config.hpp"

using coalesce::DeviceLimits;
using coalesce::Dtype;
using coalesce::MmaConfig;
using coalesce::Violation;

namespace {

// 128x256 blocks of 8 warps of 64x64, 64-byte slices in 4 stages, one block per SM.
constexpr MmaConfig kLarge{128, 256, 64, 64, 64, 4, 16, 1, 8, 1};

}  // namespace

TEST(MmaConfig, DefaultIsValidOnH200) {
  const MmaConfig c;
  EXPECT_TRUE(c.check().ok());
  EXPECT_TRUE(c.check(DeviceLimits{}).ok());
  EXPECT_EQ(c.warps(), 4);
  EXPECT_EQ(c.threads(), 128);
  EXPECT_EQ(c.k_steps(), 2);
  // A: 128 rows of 64 bytes; B: 64 bytes of K (32 bf16 rows of 256 bytes, or 16 tf32 rows of
  // 512 bytes) times 128 columns.
  EXPECT_EQ(c.smem_bytes(), 4 * (128 * 64 + 64 * 128));
  static_assert(MmaConfig{}.check().ok(), "the rule is a constant expression (the kernel's static_asserts)");
}

TEST(MmaConfig, PaddingCostsSixteenBytesPerRowOfAAndEightPerByteOfSlice) {
  MmaConfig c = kLarge;
  const int swizzled = c.stage_bytes();
  c.swizzle = 0;
  EXPECT_EQ(c.stage_bytes() - swizzled, 128 * 16 + 8 * 64);
  EXPECT_TRUE(c.check().ok());
}

TEST(MmaConfig, ShapeRules) {
  auto with = [](auto set) {
    MmaConfig c = kLarge;
    set(c);
    return c.check().violation;
  };
  EXPECT_EQ(with([](MmaConfig& c) { c.bm = 96; }), Violation::shape);  // not a power of two
  EXPECT_EQ(with([](MmaConfig& c) { c.wn = 48; }), Violation::shape);
  EXPECT_EQ(with([](MmaConfig& c) { c.bm = 0; }), Violation::shape);
  EXPECT_EQ(with([](MmaConfig& c) { c.bk_bytes = 32; }), Violation::shape);  // one k-step
  EXPECT_EQ(with([](MmaConfig& c) { c.bk_bytes = 512; }), Violation::shape);
  EXPECT_EQ(with([](MmaConfig& c) { c.stages = 1; }), Violation::shape);
  EXPECT_EQ(with([](MmaConfig& c) { c.stages = 9; }), Violation::shape);
  EXPECT_EQ(with([](MmaConfig& c) { c.vec_bytes = 32; }), Violation::shape);  // cp.async copies 4, 8, 16; plain 2
  EXPECT_EQ(with([](MmaConfig& c) { c.vec_bytes = 2; }), Violation::none);    // one bf16/f16 per plain load
  EXPECT_EQ(with([](MmaConfig& c) { c.swizzle = 2; }), Violation::shape);
  EXPECT_EQ(with([](MmaConfig& c) { c.group_m = 0; }), Violation::shape);
  EXPECT_EQ(with([](MmaConfig& c) { c.min_blocks = 0; }), Violation::shape);
  EXPECT_EQ(with([](MmaConfig& c) { c.min_blocks = 9; }), Violation::shape);
  EXPECT_EQ(with([](MmaConfig& c) { c.bn = 32; c.wn = 32; }), Violation::shape);  // B rows under 128 bytes
  EXPECT_EQ(with([](MmaConfig& c) { c.split = 0; }), Violation::shape);  // split-K: 1 to 32 K slices
  EXPECT_EQ(with([](MmaConfig& c) { c.split = 33; }), Violation::shape);
  EXPECT_EQ(with([](MmaConfig& c) { c.split = 32; }), Violation::none);
}

// Power-of-two sides of 2^30 pass the shape rules, and (BM/WM) x (BN/WN) warps then wrap in
// int: the sides are bounded first.
TEST(MmaConfig, TileSidesAreBoundedBeforeTheirProduct) {
  MmaConfig c = kLarge;
  c.bm = 1 << 30;
  c.bn = 1 << 30;
  c.wm = 16;
  c.wn = 16;
  EXPECT_EQ(c.check().violation, Violation::shape);
  EXPECT_EQ(std::string(c.check().why), "BM and BN must be at most 4096");
  c.bm = 4096;
  c.bn = 4096;
  EXPECT_EQ(c.check().violation, Violation::threads);  // 256 x 256 warps: refused, not wrapped
}

TEST(MmaConfig, DivisibilityRules) {
  MmaConfig c = kLarge;
  c.wm = 8;  // an mma tile is 16 rows
  EXPECT_EQ(c.check().violation, Violation::divisibility);
  c = kLarge;
  c.bm = 64;
  c.wm = 128;  // the warp tile must divide the block tile
  EXPECT_EQ(c.check().violation, Violation::divisibility);
  c = kLarge;
  c.wn = 512;
  EXPECT_EQ(c.check().violation, Violation::divisibility);
}

TEST(MmaConfig, ThreadRules) {
  MmaConfig c = kLarge;
  c.bm = 256;
  c.wm = 16;
  c.wn = 32;  // 16 x 8 = 128 warps
  EXPECT_EQ(c.check().violation, Violation::threads);
  // 4 warps of 16x16 on a 16x64 block: 128 threads, but A is only 16 rows x 64 bytes = 64
  // copies of 16 bytes, fewer than the threads.
  c = MmaConfig{16, 64, 64, 16, 16, 3, 16, 1, 8, 1};
  EXPECT_EQ(c.check().violation, Violation::threads);
  c.vec_bytes = 8;  // 128 copies of 8 bytes: one per thread
  EXPECT_TRUE(c.check().ok());
}

TEST(MmaConfig, SharedMemoryLimitPrunes) {
  MmaConfig c{256, 256, 256, 64, 64, 8, 16, 1, 8, 1};
  EXPECT_TRUE(c.check().ok());
  EXPECT_GT(c.smem_bytes(), DeviceLimits{}.smem_per_block_optin);
  EXPECT_EQ(c.check(DeviceLimits{}).violation, Violation::smem);
  DeviceLimits a100;
  a100.smem_per_block_optin = 166912;
  a100.smem_per_sm = 167936;
  MmaConfig d = kLarge;
  d.stages = 6;  // 6 x 24 KB = 144 KB: fits the A100's 163 KB per block
  EXPECT_TRUE(d.check(a100).ok()) << d.smem_bytes();
  d.stages = 7;  // 168 KB does not
  EXPECT_EQ(d.check(a100).violation, Violation::smem) << d.smem_bytes();
}

TEST(MmaConfig, RegisterModelAndCap) {
  MmaConfig c = kLarge;  // 256 threads, 6 copies per thread and slice
  EXPECT_EQ(c.accumulator_registers(), 128);
  EXPECT_EQ(c.fragment_registers(), 4 * 4 + 8 * 2);
  EXPECT_EQ(c.copies_per_thread(), (128 * 64 + 64 * 256) / 16 / 256);
  EXPECT_EQ(c.model_registers(), 128 + 2 * 32 + 60);
  EXPECT_EQ(c.predicted_registers(), c.model_registers());
  EXPECT_EQ(c.register_cap(), 255);
  EXPECT_EQ(c.check(DeviceLimits{}, 256).violation, Violation::registers);
  EXPECT_TRUE(c.check(DeviceLimits{}, 240).ok());
  c.min_blocks = 2;  // 128 registers cannot hold 128 accumulators and their fragments
  EXPECT_EQ(c.register_cap(), 128);
  EXPECT_EQ(c.predicted_registers(), 128);
  EXPECT_EQ(c.check(DeviceLimits{}).violation, Violation::registers);
  c.bn = 128;
  c.wm = 32;
  c.wn = 32;  // 16 warps of 32x32: 124 registers, under the cap of 65536 / 512
  c.min_blocks = 1;
  EXPECT_EQ(c.model_registers(), 32 + 2 * 16 + 60);
  EXPECT_TRUE(c.check(DeviceLimits{}).ok());
  // 4-byte copies: 32 per thread and slice for 4 warps of 64x64, whose addresses do not fit
  // beside 192 registers of accumulators and fragments (ptxas spills from about 40 copies on).
  c = MmaConfig{128, 128, 64, 64, 64, 4, 4, 1, 8, 1};
  EXPECT_EQ(c.copies_per_thread(), 32);
  EXPECT_EQ(c.model_registers(), 192 + 66 + 28);
  EXPECT_EQ(c.check(DeviceLimits{}).violation, Violation::registers);
}

TEST(MmaConfig, OccupancyNeedsTheMinBlocksAndOneBlock) {
  MmaConfig c{128, 128, 128, 64, 64, 5, 16, 1, 8, 2};  // 5 x 32 KB = 160 KB per block
  EXPECT_EQ(c.check(DeviceLimits{}).violation, Violation::occupancy);
  c.min_blocks = 1;
  EXPECT_TRUE(c.check(DeviceLimits{}).ok());
  DeviceLimits d;
  d.max_threads_per_sm = 64;  // not one block of 128 threads
  EXPECT_EQ(c.check(d, 232).violation, Violation::occupancy);
  EXPECT_EQ(MmaConfig{}.blocks_per_sm(DeviceLimits{}, 232), 2);  // registers: 2 x 128 x 232 < 64K
}

TEST(MmaConfig, ProblemRulesDependOnTheDtype) {
  const MmaConfig c;  // 16-byte copies
  for (Dtype d : {Dtype::bf16, Dtype::f16, Dtype::tf32}) EXPECT_TRUE(c.check_problem(4096, 4096, 4096, d).ok());
  // f32 is 3xTF32: its K slices' sums are a second set of accumulators. The 64x64 warp tile's
  // model (252 registers in tf32) has no room for them (380); a 64x32 one (172 + 64 = 236) has,
  // at one block of 256 threads.
  EXPECT_EQ(c.model_registers(), 252);
  EXPECT_EQ(c.model_registers_3xtf32(), 380);
  EXPECT_EQ(c.check_problem(4096, 4096, 4096, Dtype::f32).violation, Violation::registers);
  MmaConfig half = c;
  half.wn = 32;
  EXPECT_EQ(half.model_registers_3xtf32(), 236);
  EXPECT_TRUE(half.check_problem(4096, 4096, 4096, Dtype::f32).ok());
  half.min_blocks = 2;  // a cap of 128
  EXPECT_EQ(half.check_problem(4096, 4096, 4096, Dtype::f32).violation, Violation::registers);
  half.min_blocks = 1;
  half.bk_bytes = 256;  // every K slice: the sums are a slice's, whatever its length
  EXPECT_TRUE(half.check_problem(4096, 4096, 4096, Dtype::f32).ok());
  EXPECT_EQ(c.check_problem(0, 64, 64, Dtype::bf16).violation, Violation::shape);
  // 16-byte rows: K and N multiples of 8 (bf16) or 4 (tf32). M is free.
  EXPECT_TRUE(c.check_problem(1001, 1000, 1000, Dtype::bf16).ok());
  EXPECT_EQ(c.check_problem(1000, 1000, 1002, Dtype::bf16).violation, Violation::divisibility);  // K: 2004 B
  EXPECT_EQ(c.check_problem(1000, 1002, 1000, Dtype::bf16).violation, Violation::divisibility);  // N
  EXPECT_TRUE(c.check_problem(1000, 1000, 1004, Dtype::tf32).ok());
  MmaConfig narrow = c;
  narrow.vec_bytes = 4;  // any even K and N in bf16/f16, any K and N in tf32
  EXPECT_TRUE(narrow.check_problem(1000, 1002, 998, Dtype::bf16).ok());
  EXPECT_EQ(narrow.check_problem(1000, 1001, 1000, Dtype::f16).violation, Violation::divisibility);
  EXPECT_EQ(narrow.check_problem(1000, 1000, 999, Dtype::bf16).violation, Violation::divisibility);
  EXPECT_TRUE(narrow.check_problem(1000, 1001, 999, Dtype::tf32).ok());
  // No size rule: the kernel's offsets are 64-bit, so matrices of 2^31 elements or more run
  // (issue 39), in every dtype.
  EXPECT_TRUE(c.check_problem(32768, 32768, 64, Dtype::bf16).ok());
  EXPECT_TRUE(c.check_problem(32767, 32768, 64, Dtype::tf32).ok());
  EXPECT_TRUE(c.check_problem(131072, 131072, 8192, Dtype::tf32).ok());
  // Unsplit, that is; split-K's f32 partials stay under 2^31 elements (the reduce's indexing).
  MmaConfig split = c;
  split.split = 2;
  EXPECT_EQ(split.check_problem(32768, 32768, 64, Dtype::bf16).violation, Violation::shape);
}

TEST(MmaConfig, EveryRefusalHasASentence) {
  MmaConfig c;
  c.vec_bytes = 3;
  auto v = c.check();
  ASSERT_FALSE(v.ok());
  ASSERT_NE(v.why, nullptr);
  EXPECT_NE(std::string(v.why).find("vec_bytes"), std::string::npos);
  EXPECT_STREQ(coalesce::violation_name(v.violation), "shape");
  auto f32 = MmaConfig{}.check_problem(64, 64, 64, Dtype::f32);
  ASSERT_NE(f32.why, nullptr);
  EXPECT_NE(std::string(f32.why).find("3xTF32"), std::string::npos);
}
