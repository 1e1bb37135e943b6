// The runtime library's one-line refusal of bad operands (compiler/runtime/runtime.cu): operands
// are checked before anything touches the device, so these need no GPU and run on every machine
// (the cases that need one are runtime_test.cu).
#include <gtest/gtest.h>

#include <cstdint>

#include "compiler/runtime/coalesce_runtime.h"

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

}  // namespace
