// The wgmma config's one validity rule (kernels/wgmma/config.hpp).
#include <gtest/gtest.h>

#include <string>

#include "kernels/wgmma/builtin.hpp"
#include "kernels/wgmma/config.hpp"

using coalesce::DeviceLimits;
using coalesce::Dtype;
using coalesce::Violation;
using coalesce::WgmmaConfig;

// The rule is constexpr: the kernel's static_asserts evaluate it at compile time.
static_assert(WgmmaConfig{}.check().ok());
static_assert(WgmmaConfig{}.check(DeviceLimits{}).ok());

TEST(WgmmaConfig, DefaultIsTwoConsumersOf64RowsBy256) {
  const WgmmaConfig c;
  EXPECT_TRUE(c.check().ok());
  EXPECT_EQ(c.threads(), 384);
  EXPECT_EQ(c.rows_per_consumer(), 64);
  EXPECT_EQ(c.m_iters(), 1);
  EXPECT_EQ(c.accumulators(), 128);
  // 4 slots of A (128 x 64) and B (64 x 256) in bf16, 8 barriers, 1 KB of alignment slack.
  EXPECT_EQ(c.stage_bytes(), 128 * 128 + 256 * 128);
  EXPECT_EQ(c.smem_bytes(), 4 * 49152 + 64 + 1024);
  EXPECT_TRUE(c.check(DeviceLimits{}).ok());
}

TEST(WgmmaConfig, ConsumersOwn64Or128Rows) {
  WgmmaConfig c;
  c.bm = 192;  // 96 rows per consumer: not a whole number of m64 wgmmas
  EXPECT_EQ(c.check().violation, Violation::divisibility);
  c.bm = 512;  // 256 rows per consumer: more than two m64 wgmmas
  EXPECT_EQ(c.check().violation, Violation::divisibility);
  c.consumers = 3;
  EXPECT_EQ(c.check().violation, Violation::threads);
  c = WgmmaConfig{};
  c.bm = 256;
  c.bn = 128;  // 2 consumers x 128 rows (two m64 wgmmas each), 128 accumulators
  EXPECT_TRUE(c.check().ok());
  EXPECT_EQ(c.m_iters(), 2);
  c.consumers = 1;  // one consumer of 256 rows
  EXPECT_EQ(c.check().violation, Violation::divisibility);
}

TEST(WgmmaConfig, BnIsWholeSwizzleRowsUpTo256OrTheNarrow32) {
  WgmmaConfig c;
  for (int bn : {32, 64, 128, 192, 256}) {
    c.bn = bn;
    EXPECT_TRUE(c.check().ok()) << bn;
  }
  for (int bn : {16, 48, 96, 320}) {
    c.bn = bn;
    EXPECT_EQ(c.check().violation, Violation::divisibility) << bn;
  }
}

TEST(WgmmaConfig, BkIsOneSwizzleRow) {
  WgmmaConfig c;
  EXPECT_FALSE(c.transposed());
  EXPECT_EQ(c.element_bytes(), 2);
  c.bk = 32;  // one row of f32: the tf32 kernel
  EXPECT_TRUE(c.check().ok()) << c.check().why;
  EXPECT_TRUE(c.transposed());
  EXPECT_EQ(c.element_bytes(), 4);
  EXPECT_EQ(c.row_elements(), 32);
  for (int bk : {16, 48, 128}) {
    c.bk = bk;
    EXPECT_EQ(c.check().violation, Violation::shape) << bk;
  }
}

// The tf32 kernel multiplies the transposed tile (config.hpp): its consumers split BN, wgmma's N
// is BM, and each thread holds its A fragments (B^T) beside the accumulators.
TEST(WgmmaConfig, Tf32TransposesTheTile) {
  WgmmaConfig c{128, 256, 32, 4, 2, 1, 1, 1, 8, 0};
  ASSERT_TRUE(c.check().ok()) << c.check().why;
  EXPECT_EQ(c.mma_rows(), 256);
  EXPECT_EQ(c.mma_cols(), 128);
  EXPECT_EQ(c.rows_per_consumer(), 128);  // 128 columns of the tile each, two m64 blocks of C^T
  EXPECT_EQ(c.consumer_row(1), 128);
  EXPECT_EQ(c.m_iters(), 2);
  EXPECT_EQ(c.accumulators(), 128);
  EXPECT_EQ(c.fragment_registers(), 32);  // 4 registers x 2 blocks x 4 k8 steps
  EXPECT_EQ(c.wgmma_k(), 8);
  // A slot: 128 rows of 32 f32; B slot: 32 k-rows of 256 f32 (eight 32-column chunks).
  EXPECT_EQ(c.a_stage_bytes(), 128 * 128);
  EXPECT_EQ(c.b_stage_bytes(), 256 * 128);
  EXPECT_EQ(c.smem_bytes(), 4 * 49152 + 64 + 1024);
  EXPECT_TRUE(c.check(DeviceLimits{}).ok());

  c = WgmmaConfig{256, 128, 32, 3, 2, 1, 1, 1, 8, 0};  // 64 columns each, wgmma N = 256
  EXPECT_TRUE(c.check().ok()) << c.check().why;
  EXPECT_EQ(c.m_iters(), 1);
  EXPECT_EQ(c.accumulators(), 128);
  c.bm = 192;  // wgmma N = 192
  EXPECT_TRUE(c.check().ok()) << c.check().why;
  c.bm = 96;
  EXPECT_EQ(c.check().violation, Violation::divisibility);
  c.bm = 320;
  EXPECT_EQ(c.check().violation, Violation::divisibility);
  c = WgmmaConfig{256, 192, 32, 3, 2, 1, 1, 1, 8, 0};  // 96 columns per consumer
  EXPECT_EQ(c.check().violation, Violation::divisibility);
  c = WgmmaConfig{256, 256, 32, 3, 2, 1, 1, 1, 8, 0};  // 128 x 256 accumulators per consumer
  EXPECT_EQ(c.check().violation, Violation::registers);

  // What the tf32 kernel does not have.
  //                          bm   bn  bk  s wg cm cn  p  g ts sk pp rd ew
  for (const WgmmaConfig& no : {WgmmaConfig{128, 256, 32, 4, 2, 1, 1, 1, 8, 1},
                                WgmmaConfig{128, 256, 32, 4, 2, 2, 1, 0, 8, 0},
                                WgmmaConfig{128, 256, 32, 4, 2, 1, 2, 0, 8, 0},
                                WgmmaConfig{128, 128, 32, 4, 2, 1, 1, 1, 8, 0, 1, 1},
                                WgmmaConfig{64, 128, 32, 4, 1, 1, 1, 0, 8, 0, 2},
                                WgmmaConfig{128, 256, 32, 4, 2, 1, 1, 1, 8, 1, 1, 0, 0, 2}}) {
    EXPECT_EQ(no.check().violation, Violation::shape);
    EXPECT_NE(std::string(no.check().why).find("tf32"), std::string::npos) << no.check().why;
  }

  // The dtype decides the kernel, and f32's 16-byte strides allow N and K in fours.
  c = WgmmaConfig{128, 256, 32, 4, 2, 1, 1, 1, 8, 0};
  EXPECT_TRUE(c.check_problem(4096, 4096, 4096, Dtype::tf32).ok());
  EXPECT_TRUE(c.check_problem(1000, 1004, 1028, Dtype::tf32).ok());
  EXPECT_EQ(c.check_problem(4096, 4096, 4096, Dtype::bf16).violation, Violation::dtype);
  EXPECT_EQ(c.check_problem(4096, 4096, 4096, Dtype::f32).violation, Violation::dtype);
  EXPECT_EQ(c.check_problem(4096, 4098, 4096, Dtype::tf32).violation, Violation::divisibility);
  EXPECT_EQ(c.check_problem(4096, 4096, 4098, Dtype::tf32).violation, Violation::divisibility);
  EXPECT_EQ(WgmmaConfig{}.check_problem(4096, 4096, 4096, Dtype::tf32).violation, Violation::dtype);
  EXPECT_EQ(WgmmaConfig::bk_for(Dtype::tf32), 32);
  EXPECT_EQ(WgmmaConfig::bk_for(Dtype::bf16), 64);
}

TEST(WgmmaConfig, AccumulatorsMustFitAConsumer) {
  WgmmaConfig c;
  c.bm = 256;
  c.bn = 256;  // 128 rows x 256 per consumer: 256 accumulators
  EXPECT_EQ(c.check().violation, Violation::registers);
  c.bn = 192;  // 192 accumulators + 40 fit the 232 setmaxnreg gives a consumer
  EXPECT_TRUE(c.check().ok());
  c = WgmmaConfig{};
  c.consumers = 1;
  c.bm = 128;
  c.bn = 256;  // one consumer of 128 rows x 256: 256 accumulators
  EXPECT_EQ(c.check().violation, Violation::registers);
  c.bn = 192;  // 192 + 40 within the 255 a 256-thread block allows
  EXPECT_TRUE(c.check().ok());
  EXPECT_EQ(c.consumer_register_budget(), 255);
}

// Clusters of two: 2x1 shares B (its chunks split between the blocks, so BN 128 or 256), 1x2
// shares A (half its rows each); not 2x2 or larger, and not with split-K or ping-pong. A
// cluster changes no block's shared memory or threads.
// A cluster side whose product with the other wraps in int (2 x 1444444444, from a config name
// the fuzzer built, tests/fuzz) was once read as a cluster of at most two and accepted.
TEST(WgmmaConfig, ClusterSideThatWrapsIsRefused) {
  WgmmaConfig c;
  c.cluster_m = 2;
  c.cluster_n = 1444444444;
  EXPECT_EQ(c.check().violation, Violation::shape);
  EXPECT_EQ(std::string(c.check().why), "the cluster must be 1x1, 2x1 or 1x2 (two blocks at most)");
}

// Tile sides whose product wraps in int (257 x 21282856, from a config name the fuzzer built):
// the accumulator count was formed before any rule bounded BN, a signed overflow.
TEST(WgmmaConfig, TileSidesAreBoundedBeforeTheirProduct) {
  WgmmaConfig c;
  c.bm = 257;
  c.bn = 21282856;
  c.consumers = 1;
  c.stream_k = 4;
  c.persistent = 1;
  EXPECT_EQ(c.check().violation, Violation::shape);
  EXPECT_EQ(std::string(c.check().why), "BM and BN must be at most 4096");
  c.bm = 128;
  c.bn = 4097;
  EXPECT_EQ(std::string(c.check().why), "BM and BN must be at most 4096");
}

TEST(WgmmaConfig, ClustersOfTwoShareOneOperand) {
  WgmmaConfig c;  // 128 x 256
  const WgmmaConfig alone = c;
  c.cluster_m = 2;
  EXPECT_TRUE(c.check().ok());
  EXPECT_EQ(c.cluster_size(), 2);
  EXPECT_EQ(c.a_box_rows(), 128);
  EXPECT_EQ(c.smem_bytes(), alone.smem_bytes());
  EXPECT_EQ(c.threads(), alone.threads());
  c.bn = 192;  // three B chunks do not split in two
  EXPECT_EQ(c.check().violation, Violation::shape);
  c.bn = 128;
  EXPECT_TRUE(c.check().ok());
  c.cluster_n = 2;  // 2x2
  EXPECT_EQ(c.check().violation, Violation::shape);
  c.cluster_m = 1;
  c.bn = 192;  // 1x2 splits A's rows: any BN
  EXPECT_TRUE(c.check().ok());
  EXPECT_EQ(c.a_box_rows(), 64);
  c.cluster_n = 3;
  EXPECT_EQ(c.check().violation, Violation::shape);
  c.cluster_n = 0;
  EXPECT_EQ(c.check().violation, Violation::shape);
  c.cluster_n = 2;
  WgmmaConfig split = c;
  split.split = 2, split.persistent = 0, split.tma_store = 0;
  EXPECT_EQ(split.check().violation, Violation::shape);
  WgmmaConfig pingpong = c;
  pingpong.bm = 128, pingpong.bn = 128, pingpong.persistent = 1, pingpong.pingpong = 1;
  EXPECT_EQ(pingpong.check().violation, Violation::shape);
  pingpong.cluster_n = 1;
  EXPECT_TRUE(pingpong.check().ok());
}

TEST(WgmmaConfig, RangesOfTheSwitches) {
  WgmmaConfig c;
  c.stages = 1;
  EXPECT_EQ(c.check().violation, Violation::shape);
  c.stages = 17;
  EXPECT_EQ(c.check().violation, Violation::shape);
  c.stages = 16;
  EXPECT_TRUE(c.check().ok());
  c = WgmmaConfig{};
  c.persistent = 2;
  EXPECT_EQ(c.check().violation, Violation::shape);
  c = WgmmaConfig{};
  c.tma_store = -1;
  EXPECT_EQ(c.check().violation, Violation::shape);
  c = WgmmaConfig{};
  c.group_m = 0;
  EXPECT_EQ(c.check().violation, Violation::shape);
}

TEST(WgmmaConfig, SharedMemoryIncludesTheStoreTileAndTheBarriers) {
  WgmmaConfig c;  // 128 x 256: 48 KB a stage
  c.stages = 4;
  EXPECT_TRUE(c.check(DeviceLimits{}).ok());
  c.stages = 5;  // 240 KB: past the H200's 227 KB
  EXPECT_EQ(c.check(DeviceLimits{}).violation, Violation::smem);
  c.stages = 4;
  c.tma_store = 1;  // + 64 KB of C staging
  EXPECT_EQ(c.store_bytes(), 128 * 256 * 2);
  EXPECT_EQ(c.check(DeviceLimits{}).violation, Violation::smem);
  c.stages = 3;
  EXPECT_TRUE(c.check(DeviceLimits{}).ok());
  // Exactly at the limit is legal, one byte under is not.
  DeviceLimits d;
  d.smem_per_block_optin = c.smem_bytes();
  EXPECT_TRUE(c.check(d).ok());
  d.smem_per_block_optin = c.smem_bytes() - 1;
  EXPECT_EQ(c.check(d).violation, Violation::smem);
}

// setmaxnreg.inc only redistributes the block's registers: 384 threads must launch with 168.
TEST(WgmmaConfig, TwoConsumersNeedTheWholeCapAtLaunch) {
  const WgmmaConfig c;
  EXPECT_TRUE(c.check(DeviceLimits{}, 168).ok());
  EXPECT_EQ(c.check(DeviceLimits{}, 160).violation, Violation::registers);
  WgmmaConfig one = c;
  one.consumers = 1;
  one.bm = 64;
  EXPECT_TRUE(one.check(DeviceLimits{}, 96).ok());
}

TEST(WgmmaConfig, RegisterModel) {
  WgmmaConfig c;  // two consumers: ptxas reports the 384-thread entry cap
  EXPECT_EQ(c.predicted_registers(), 168);
  c.consumers = 1;
  c.bm = 64;
  c.bn = 128;  // 64 accumulators + 48 (ptxas: 109 with bias_gelu)
  EXPECT_EQ(c.predicted_registers(), 112);
  c.bm = 128;
  c.bn = 192;  // 192 + 48 (ptxas: 237)
  EXPECT_EQ(c.predicted_registers(), 240);
  EXPECT_EQ(c.check(DeviceLimits{}, 256).violation, Violation::registers);
  c.bn = 256;  // 256 + 48 would not fit: the rule refuses it before the model is asked
  EXPECT_EQ(c.check().violation, Violation::registers);
}

TEST(WgmmaConfig, ProblemRules) {
  const WgmmaConfig c;
  EXPECT_TRUE(c.check_problem(4096, 4096, 4096, Dtype::bf16).ok());
  EXPECT_TRUE(c.check_problem(1024, 1000, 1032, Dtype::f16).ok());
  EXPECT_TRUE(c.check_problem(1, 8, 8, Dtype::bf16).ok());
  EXPECT_EQ(c.check_problem(4096, 4096, 4096, Dtype::tf32).violation, Violation::dtype);
  EXPECT_EQ(c.check_problem(4096, 4096, 4096, Dtype::f32).violation, Violation::dtype);
  EXPECT_EQ(c.check_problem(4096, 4095, 4096, Dtype::bf16).violation, Violation::divisibility);
  EXPECT_EQ(c.check_problem(4096, 4096, 4100, Dtype::bf16).violation, Violation::divisibility);
  EXPECT_EQ(c.check_problem(0, 8, 8, Dtype::bf16).violation, Violation::shape);
  EXPECT_EQ(c.check_problem(1 << 16, 1 << 16, 8, Dtype::bf16).violation, Violation::shape);
}

TEST(WgmmaConfig, BuiltinsAreLegalOnTheH200) {
  for (const WgmmaConfig& c : coalesce::wgmma_builtin::kConfigs) {
    EXPECT_TRUE(c.check().ok());
    EXPECT_TRUE(c.check(DeviceLimits{}).ok()) << c.bm << "x" << c.bn << " s" << c.stages;
    EXPECT_FALSE(c.transposed());
  }
  for (const WgmmaConfig& c : coalesce::wgmma_builtin::kTf32Configs) {
    EXPECT_TRUE(c.check().ok()) << c.check().why;
    EXPECT_TRUE(c.check(DeviceLimits{}).ok()) << c.bm << "x" << c.bn << " s" << c.stages;
    EXPECT_TRUE(c.transposed());
  }
}

// Ping-pong (gemm.cuh): the two consumers take whole tiles in turn, so each owns all BM rows of
// its tile, stages its own C tile for the TMA store, and the rule asks for what alternation
// needs (two consumers, a persistent grid).
TEST(WgmmaConfig, PingPongConsumersOwnWholeTiles) {
  WgmmaConfig c{128, 128, 64, 4, 2, 1, 1, 1, 8, 1, 1, 1};
  ASSERT_TRUE(c.check().ok()) << c.check().why;
  EXPECT_EQ(c.rows_per_consumer(), 128);
  EXPECT_EQ(c.m_iters(), 2);
  EXPECT_EQ(c.consumer_row(1), 0);
  EXPECT_EQ(c.accumulators(), 128);
  EXPECT_EQ(c.store_bytes(), 2 * 128 * 128 * 2);  // one staged C tile per consumer
  EXPECT_EQ(c.smem_bytes(), 4 * 32768 + 65536 + 64 + 1024);
  EXPECT_TRUE(c.check(DeviceLimits{}).ok());
  c.pingpong = 0;  // the same tile shared: 64 rows each, one staged tile
  EXPECT_EQ(c.rows_per_consumer(), 64);
  EXPECT_EQ(c.consumer_row(1), 64);
  EXPECT_EQ(c.store_bytes(), 128 * 128 * 2);

  c = WgmmaConfig{64, 256, 64, 4, 2, 1, 1, 1, 8, 0, 1, 1};  // 64 rows x 256 per consumer
  EXPECT_TRUE(c.check().ok());
  EXPECT_EQ(c.m_iters(), 1);
  c.bm = 128;  // 128 x 256 per consumer: 256 accumulators
  EXPECT_EQ(c.check().violation, Violation::registers);
  c.bn = 192;  // 192 + 40 fit the 232 setmaxnreg gives a consumer
  EXPECT_TRUE(c.check().ok());
  c.bm = 256;  // 256 rows: more than two m64 wgmmas per consumer
  EXPECT_EQ(c.check().violation, Violation::divisibility);
}

TEST(WgmmaConfig, PingPongNeedsTwoConsumersAndAPersistentGrid) {
  WgmmaConfig c{128, 128, 64, 4, 2, 1, 1, 1, 8, 0, 1, 1};
  c.consumers = 1;
  EXPECT_EQ(c.check().violation, Violation::shape);
  c.consumers = 2;
  c.persistent = 0;
  EXPECT_EQ(c.check().violation, Violation::shape);
  EXPECT_NE(std::string(c.check().why).find("persistent"), std::string::npos);
  c.persistent = 1;
  c.pingpong = 2;
  EXPECT_EQ(c.check().violation, Violation::shape);
  c.pingpong = 1;
  c.split = 2;  // split-K needs persistent = 0, which pingpong cannot have
  EXPECT_EQ(c.check().violation, Violation::shape);
  // Two staged 128 x 128 C tiles (64 KB) beside the ring: 5 stages fit 227 KB, 6 do not.
  c = WgmmaConfig{128, 128, 64, 5, 2, 1, 1, 1, 8, 1, 1, 1};
  EXPECT_TRUE(c.check(DeviceLimits{}).ok());
  c.stages = 6;
  EXPECT_EQ(c.check(DeviceLimits{}).violation, Violation::smem);
}
