// The runtime library's one-line refusal of bad operands (compiler/runtime/runtime.cu): operands
// are checked before anything touches the device, so these need no GPU and run on every machine
// (the cases that need one are runtime_test.cu). The split-K entry's refusals come before its
// workspace is allocated, so they too need no GPU.
#include <gtest/gtest.h>

#include <cstdint>

#include "compiler/runtime/coalesce_runtime.h"
#include "compiler/runtime/fused_entry.cuh"
#include "kernels/core/problem.hpp"

// Tile types of the launch contract (fused_entry.cuh) with a stand-in kernel, which the refusals
// never launch: one of a family without split-K (no kSplit) and a split-K one whose rule refuses
// K < 64 as a family's check_problem would.
struct UnsplitTile {
  static constexpr int kThreads = 128;
  static constexpr int kSmemBytes = 0;
  static constexpr long long grid_blocks(int m, int n) { return static_cast<long long>(m) * n; }
  static constexpr coalesce::Verdict check_problem(int, int, int) { return {}; }
  static constexpr coalesce::Verdict check_device(const coalesce::DeviceLimits&) { return {}; }
};
struct SplitTile : UnsplitTile {
  static constexpr int kSplit = 4;
  static constexpr coalesce::Verdict check_problem(int, int, int k) {
    return k < 64 ? coalesce::Verdict{coalesce::Violation::shape, "split-K needs a step of K per slice"}
                  : coalesce::Verdict{};
  }
};
void stand_in_kernel() {}

COALESCE_DEFINE_FUSED_SPLIT_K_ENTRY(refusal_test_split_entry, stand_in_kernel, coalesce::Epilogue::bias_gelu,
                                    SplitTile)

namespace {

CoalesceMemRef2DF32 matrix(float* data, int rows, int cols) {
  return {data, data, 0, {rows, cols}, {cols, 1}};
}
CoalesceMemRef1DF32 vector(float* data, int size) { return {data, data, 0, {size}, {1}}; }

// A 16-byte aligned address the refusals never dereference.
float* const kFake = reinterpret_cast<float*>(std::uintptr_t{256});

TEST(RuntimeDeathTest, MismatchedShapesStopWithOneLine) {
  CoalesceMemRef2DF32 a = matrix(kFake, 64, 32), b = matrix(kFake, 31, 16), c = matrix(kFake, 64, 16);
  EXPECT_EXIT(_mlir_ciface_coalesce_matmul_f32(&a, &b, &c), testing::ExitedWithCode(1),
              "^coalesce runtime: coalesce_matmul_f32: A is 64x32 but B is 31x16\n$");
}

TEST(RuntimeDeathTest, StridedOperandStopsWithOneLine) {
  CoalesceMemRef2DF32 strided = matrix(kFake, 64, 16), c = matrix(kFake, 64, 16);
  strided.strides[0] = 32;
  EXPECT_EXIT(_mlir_ciface_coalesce_relu_f32(&strided, &c), testing::ExitedWithCode(1),
              "^coalesce runtime: coalesce_relu_f32: X is not row-major contiguous \\(strides 32, 1\\)\n$");
}

TEST(RuntimeDeathTest, ShortBiasStopsWithOneLine) {
  CoalesceMemRef2DF32 c = matrix(kFake, 64, 16);
  CoalesceMemRef1DF32 short_bias = vector(kFake, 15);
  EXPECT_EXIT(_mlir_ciface_coalesce_bias_add_f32(&c, &short_bias, &c), testing::ExitedWithCode(1),
              "^coalesce runtime: coalesce_bias_add_f32: the bias has 15 entries, not N = 16\n$");
}

// An extent past kMaxExtent (2^20) is refused before the kernels' int arithmetic sees it; one of
// 2^32 + 64 is refused as itself, not truncated.
TEST(RuntimeDeathTest, ExtentAboveTheLimitStopsWithOneLine) {
  const std::int64_t past_limit = coalesce::kMaxExtent + 1, huge = (std::int64_t{1} << 32) + 64;
  CoalesceMemRef2DF32 a{kFake, kFake, 0, {past_limit, 1}, {1, 1}}, b = matrix(kFake, 1, 16),
                      c{kFake, kFake, 0, {past_limit, 16}, {16, 1}};
  EXPECT_EXIT(_mlir_ciface_coalesce_matmul_f32(&a, &b, &c), testing::ExitedWithCode(1),
              "^coalesce runtime: coalesce_matmul_f32: A has extents 1048577x1 outside 0..1048576\n$");
  CoalesceMemRef2DF32 x{kFake, kFake, 0, {huge, 1}, {1, 1}};
  EXPECT_EXIT(_mlir_ciface_coalesce_relu_f32(&x, &x), testing::ExitedWithCode(1),
              "^coalesce runtime: coalesce_relu_f32: X has extents 4294967360x1 outside 0..1048576\n$");
}

// Extents within the limit whose product passes INT_MAX are refused: the kernels' offsets are int.
TEST(RuntimeDeathTest, OperandOfMoreThanIntMaxElementsStops) {
  CoalesceMemRef2DF32 x{kFake, kFake, 0, {2048, coalesce::kMaxExtent}, {coalesce::kMaxExtent, 1}};
  EXPECT_EXIT(_mlir_ciface_coalesce_gelu_f32(&x, &x), testing::ExitedWithCode(1),
              "^coalesce runtime: coalesce_gelu_f32: X is 2048x1048576, more than INT_MAX elements\n$");
}

// A tile type without kSplit does not split K; the contract carries kSplit otherwise.
static_assert(coalesce::runtime::contract_of<UnsplitTile>().split == 1);
static_assert(coalesce::runtime::contract_of<SplitTile>().split == 4);

TEST(RuntimeDeathTest, SplitKEntryChecksOperandsFirst) {
  CoalesceMemRef2DF32 a = matrix(kFake, 64, 128), b = matrix(kFake, 128, 16), c = matrix(kFake, 64, 15);
  CoalesceMemRef1DF32 bias = vector(kFake, 16);
  EXPECT_EXIT(_mlir_ciface_refusal_test_split_entry(&a, &b, &bias, &c), testing::ExitedWithCode(1),
              "^coalesce runtime: refusal_test_split_entry: C is 64x15, not 64x16\n$");
}

TEST(RuntimeDeathTest, SplitKEntryRefusesAProblemItsTileRefuses) {
  CoalesceMemRef2DF32 a = matrix(kFake, 64, 32), b = matrix(kFake, 32, 16), c = matrix(kFake, 64, 16);
  CoalesceMemRef1DF32 bias = vector(kFake, 16);
  EXPECT_EXIT(_mlir_ciface_refusal_test_split_entry(&a, &b, &bias, &c), testing::ExitedWithCode(1),
              "^coalesce runtime: refusal_test_split_entry: the config does not fit the problem 64x16x32: "
              "split-K needs a step of K per slice\n$");
}

TEST(RuntimeDeathTest, SplitKTileThroughTheUnsplitLaunchStops) {
  CoalesceMemRef2DF32 a = matrix(kFake, 64, 128), b = matrix(kFake, 128, 16), c = matrix(kFake, 64, 16);
  EXPECT_EXIT(coalesce::runtime::launch_tiled(reinterpret_cast<const void*>(&stand_in_kernel),
                                              coalesce::runtime::contract_of<SplitTile>(), "entry", &a, &b,
                                              nullptr, &c),
              testing::ExitedWithCode(1),
              "^coalesce runtime: entry: the tile splits K into 4 slices, which needs the split-K entry "
              "\\(COALESCE_DEFINE_FUSED_SPLIT_K_ENTRY\\)\n$");
}

TEST(RuntimeDeathTest, SplitKEntryWithoutTheEpiloguesBiasStops) {
  CoalesceMemRef2DF32 a = matrix(kFake, 64, 128), b = matrix(kFake, 128, 16), c = matrix(kFake, 64, 16);
  EXPECT_EXIT(coalesce::runtime::launch_tiled_split_k(reinterpret_cast<const void*>(&stand_in_kernel),
                                                      coalesce::runtime::contract_of<SplitTile>(),
                                                      coalesce::Epilogue::bias_gelu, "entry", &a, &b, nullptr, &c),
              testing::ExitedWithCode(1),
              "^coalesce runtime: entry: the bias_gelu epilogue needs a bias, but none was given\n$");
}

}  // namespace
