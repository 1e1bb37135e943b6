// The simt config's one validity rule (kernels/simt/config.hpp).
#include <gtest/gtest.h>

#include <string>

#include "kernels/simt/config.hpp"

using coalesce::DeviceLimits;
using coalesce::SimtConfig;
using coalesce::needs_64bit_offsets;
using coalesce::Violation;

TEST(SimtConfig, DefaultIsValidOnH200) {
  SimtConfig c;
  EXPECT_TRUE(c.check().ok());
  EXPECT_TRUE(c.check(DeviceLimits{}).ok());
  EXPECT_EQ(c.threads(), 256);
  EXPECT_EQ(c.smem_bytes(), 3 * (16 * 132 + 16 * 132) * 4);
}

TEST(SimtConfig, WarpMustHoldThirtyTwoThreadTiles) {
  SimtConfig c;
  c.tm = 4;  // 64/4 * 32/8 = 64 thread tiles
  EXPECT_EQ(c.check().violation, Violation::threads);
}

// A side of 2^30 (from a config name the fuzzer built, tests/fuzz) once made threads() wrap to
// INT_MIN and the copy rule divide by zero (SIGFPE); it is refused before any product is formed.
TEST(SimtConfig, HugeTileSideIsRefusedNotOverflowed) {
  SimtConfig c;
  c.bm = 1 << 30;
  EXPECT_EQ(c.check().violation, Violation::shape);
  EXPECT_EQ(std::string(c.check().why), "every tile side must be at most 4096");
  c.bm = 4096;  // the bound itself is judged by the ordinary rules
  EXPECT_NE(std::string(c.check().why), "every tile side must be at most 4096");
}

TEST(SimtConfig, WarpTileMustDivideBlockTile) {
  SimtConfig c;
  c.bm = 96;
  EXPECT_EQ(c.check().violation, Violation::divisibility);
}

TEST(SimtConfig, ThreadTileColumnsAreVectors) {
  SimtConfig c;
  c.wm = 32;
  c.tm = 4;
  c.wn = 8;
  c.tn = 2;  // 8 x 4 thread tiles: a full warp, but columns are not 16-byte vectors
  EXPECT_EQ(c.check().violation, Violation::divisibility);
  c = SimtConfig{};
  c.wm = 16;
  c.tm = 2;
  c.wn = 64;
  c.tn = 16;  // 8 x 4 thread tiles, but rows are not 16-byte vectors of the transposed A
  EXPECT_EQ(c.check().violation, Violation::divisibility);
}

TEST(SimtConfig, SharedMemoryLimitPrunes) {
  SimtConfig c;
  c.stages = 8;
  c.bk = 64;
  EXPECT_GT(c.smem_bytes(), DeviceLimits{}.smem_per_block_optin);
  EXPECT_TRUE(c.check().ok());
  EXPECT_EQ(c.check(DeviceLimits{}).violation, Violation::smem);
  DeviceLimits small;
  small.smem_per_block_optin = 48 * 1024;
  SimtConfig d;
  EXPECT_EQ(d.check(small).violation, Violation::smem) << d.smem_bytes();
}

TEST(SimtConfig, RegisterLimitPrunes) {
  SimtConfig c;
  EXPECT_EQ(c.check(DeviceLimits{}, 256).violation, Violation::registers);
  EXPECT_TRUE(c.check(DeviceLimits{}, 128).ok());
}

TEST(SimtConfig, MinBlocksCapsRegisters) {
  SimtConfig c;  // 256 threads
  c.min_blocks = 2;
  EXPECT_EQ(c.register_cap(), 128);
  EXPECT_LE(c.predicted_registers(), 128);
  c.min_blocks = 4;  // 64 registers cannot hold 64 accumulators and a row of B
  EXPECT_EQ(c.register_cap(), 64);
  EXPECT_EQ(c.check(DeviceLimits{}).violation, Violation::registers);
  c.min_blocks = 1;
  EXPECT_EQ(c.register_cap(), 255);
  c.min_blocks = 9;
  EXPECT_EQ(c.check().violation, Violation::shape);
}

TEST(SimtConfig, OccupancyNeedsOneBlock) {
  SimtConfig c;  // 256 threads
  DeviceLimits d;
  d.regs_per_sm = 32768;  // 255 regs x 256 threads does not fit
  c.min_blocks = 1;
  EXPECT_EQ(c.check(d, 255).violation, Violation::occupancy);
  EXPECT_EQ(c.blocks_per_sm(DeviceLimits{}, 128), 2);  // registers: 2 x 256 x 128 = 64K
  EXPECT_EQ(c.blocks_per_sm(DeviceLimits{}, 64), 4);   // shared memory: 4 x (50.7 KB + 1 KB)
  c.stages = 4;
  c.bk = 64;  // 4 x (64x132 + 64x132) x 4 B = 270 KB... over the per-SM budget
  EXPECT_EQ(c.blocks_per_sm(DeviceLimits{}, 64), 0);
  c.bk = 32;  // 4 x (32x132 + 32x132) x 4 B = 135 KB
  EXPECT_EQ(c.blocks_per_sm(DeviceLimits{}, 64), 1);
}

TEST(SimtConfig, VectorCopiesNeedAlignedRows) {
  SimtConfig c;
  EXPECT_TRUE(c.check_problem(4096, 4096, 4096).ok());
  EXPECT_EQ(c.check_problem(1000, 4097, 4096).violation, Violation::divisibility);
  EXPECT_TRUE(c.check_problem(1000, 4096, 4097).ok());  // A is copied element by element
  c.vec = 1;
  EXPECT_TRUE(c.check_problem(1000, 4097, 4097).ok());
  EXPECT_EQ(c.check_problem(0, 1, 1).violation, Violation::shape);
  EXPECT_EQ(c.check_problem(65536, 65536, 1024).violation, Violation::shape);  // C has 2^32 elements
}

// Offsets are 32-bit unless the config says 64 (issue 39): a problem with a matrix of 2^31
// elements or more needs index_bits = 64, which runs it, and which any problem may take.
TEST(SimtConfig, IndexBitsFollowTheMatrices) {
  EXPECT_FALSE(needs_64bit_offsets(46340, 46340, 46340));            // 2^31 - 1.9e5 elements each
  EXPECT_TRUE(needs_64bit_offsets(65536, 32768, 1));                 // C: 2^31 elements
  EXPECT_FALSE(needs_64bit_offsets(1, 1, 1 << 20));
  EXPECT_TRUE(needs_64bit_offsets(1 << 20, 1, 1 << 11));             // A: 2^31 elements
  EXPECT_TRUE(needs_64bit_offsets(1, 1 << 11, 1 << 20));             // B: 2^31 elements
  SimtConfig c;
  EXPECT_EQ(c.check_problem(131072, 131072, 8192).violation, Violation::shape);
  c.index_bits = 64;
  EXPECT_TRUE(c.check().ok());
  EXPECT_TRUE(c.check_problem(131072, 131072, 8192).ok());
  EXPECT_TRUE(c.check_problem(64, 64, 64).ok());
  c.index_bits = 16;
  EXPECT_EQ(c.check().violation, Violation::shape);
}

TEST(SimtConfig, EveryRefusalHasASentence) {
  SimtConfig c;
  c.vec = 3;
  auto v = c.check();
  ASSERT_FALSE(v.ok());
  ASSERT_NE(v.why, nullptr);
  EXPECT_NE(std::string(v.why).find("vec"), std::string::npos);
  EXPECT_STREQ(coalesce::violation_name(v.violation), "shape");
}
