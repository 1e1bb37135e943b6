// The runtime library's one-line refusal of bad operands (compiler/runtime/runtime.cu): operands
// are checked before anything touches the device, so these need no GPU and run on every machine
// (the cases that need one are runtime_test.cu). An emitted split-K entry's refusals come before
// its workspace is allocated, so they too need no GPU; the C ABI's statuses are runtime_abi_test.cpp.
#include <gtest/gtest.h>

#include <cstdint>

#include "compiler/runtime/coalesce_runtime.h"
#include "compiler/runtime/fused_entry.cuh"
#include "kernels/core/problem.hpp"

// An emitted split-K entry (fused_entry.cuh) with a stand-in kernel under its config's name,
// which the refusals never launch: the operands and the config's rule on the problem are
// checked before any device is asked for.
extern "C" void simt_f32_bm64_bn64_bk16_wm32_wn32_tm4_tn8_s3_v4_g8_o4_sk4_bias_gelu() {}
COALESCE_DEFINE_FUSED_SPLIT_K_ENTRY(refusal_test_split_entry,
                                    simt_f32_bm64_bn64_bk16_wm32_wn32_tm4_tn8_s3_v4_g8_o4_sk4_bias_gelu,
                                    coalesce::Epilogue::bias_gelu, void)

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

// The unfused ops of issue 40: an add's inputs of two shapes, a glu's X of an odd N (its columns
// are gate and up pairs), a glu's Y not of N/2 columns, and a glu in place.
TEST(RuntimeDeathTest, AddAndGluOperandsStopWithOneLine) {
  CoalesceMemRef2DF32 x = matrix(kFake, 64, 16), r = matrix(kFake, 64, 8), y = matrix(kFake, 64, 16);
  EXPECT_EXIT(_mlir_ciface_coalesce_add_f32(&x, &r, &y), testing::ExitedWithCode(1),
              "^coalesce runtime: coalesce_add_f32: X2 is 64x8 but X1 is 64x16\n$");
  CoalesceMemRef2DF32 odd = matrix(kFake, 64, 15), half = matrix(kFake, 64, 7);
  EXPECT_EXIT(_mlir_ciface_coalesce_glu_silu_f32(&odd, &half), testing::ExitedWithCode(1),
              "^coalesce runtime: coalesce_glu_silu_f32: X is 64x15: its gate and up column pairs need an even N\n$");
  EXPECT_EXIT(_mlir_ciface_coalesce_glu_gelu_f32(&x, &y), testing::ExitedWithCode(1),
              "^coalesce runtime: coalesce_glu_gelu_f32: Y is 64x16, not 64x8 \\(N/2 of X\\)\n$");
  CoalesceMemRef2DF32 same_data = matrix(kFake, 64, 8);
  EXPECT_EXIT(_mlir_ciface_coalesce_glu_silu_f32(&x, &same_data), testing::ExitedWithCode(1),
              "^coalesce runtime: coalesce_glu_silu_f32: Y is X; glu writes another buffer\n$");
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

CoalesceMemRef2D untyped(const CoalesceMemRef2DF32& d) {
  return {d.allocated, d.aligned, d.offset, {d.sizes[0], d.sizes[1]}, {d.strides[0], d.strides[1]}};
}
CoalesceMemRef1D untyped(const CoalesceMemRef1DF32& d) {
  return {d.allocated, d.aligned, d.offset, {d.sizes[0]}, {d.strides[0]}};
}

TEST(RuntimeDeathTest, SplitKEntryChecksOperandsFirst) {
  CoalesceMemRef2D a = untyped(matrix(kFake, 64, 128)), b = untyped(matrix(kFake, 128, 16)),
                   c = untyped(matrix(kFake, 64, 15));
  CoalesceMemRef1D bias = untyped(vector(kFake, 16));
  EXPECT_EXIT(_mlir_ciface_refusal_test_split_entry(&a, &b, &bias, &c), testing::ExitedWithCode(1),
              "^coalesce runtime: refusal_test_split_entry: C is 64x15, not 64x16\n$");
}

// K = 32 is two 16-deep steps of K, fewer than the 4 slices: the config's own rule refuses it.
TEST(RuntimeDeathTest, SplitKEntryRefusesAProblemItsConfigRefuses) {
  CoalesceMemRef2D a = untyped(matrix(kFake, 64, 32)), b = untyped(matrix(kFake, 32, 16)),
                   c = untyped(matrix(kFake, 64, 16));
  CoalesceMemRef1D bias = untyped(vector(kFake, 16));
  EXPECT_EXIT(_mlir_ciface_refusal_test_split_entry(&a, &b, &bias, &c), testing::ExitedWithCode(1),
              "^coalesce runtime: refusal_test_split_entry: config "
              "'simt_f32_bm64_bn64_bk16_wm32_wn32_tm4_tn8_s3_v4_g8_o4_sk4_bias_gelu' cannot run 64x16x32 .*\n$");
}

TEST(RuntimeDeathTest, SplitKEntryWithoutTheEpiloguesBiasStops) {
  CoalesceMemRef2D a = untyped(matrix(kFake, 64, 128)), b = untyped(matrix(kFake, 128, 16)),
                   c = untyped(matrix(kFake, 64, 16));
  EXPECT_EXIT(_mlir_ciface_refusal_test_split_entry(&a, &b, nullptr, &c), testing::ExitedWithCode(1),
              "^coalesce runtime: refusal_test_split_entry: the bias_gelu epilogue needs a bias, but none was "
              "given\n$");
}

}  // namespace
