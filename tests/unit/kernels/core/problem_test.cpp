// The shared vocabulary (kernels/core/problem.hpp, types.hpp): names, parsing and a GEMM's types.
#include <gtest/gtest.h>

#include "kernels/core/gelu.hpp"
#include "kernels/core/problem.hpp"

#include <cmath>

using namespace coalesce;

// One reading of --shape for every tool: N or MxNxK, "×" as the reports print shapes, each side
// 1..kMaxExtent, and a sentence that states the limit for anything else.
TEST(Extents, ReadNOrMxNxKWithXOrTimes) {
  const auto square = parse_extents("4096");
  ASSERT_TRUE(square);
  EXPECT_EQ(square->m, 4096);
  EXPECT_EQ(square->n, 4096);
  EXPECT_EQ(square->k, 4096);
  for (const char* text : {"128x256x64", "128\u00d7256\u00d764", "128x256\u00d764"}) {
    const auto p = parse_extents(text);
    ASSERT_TRUE(p) << text;
    EXPECT_EQ(p->m, 128);
    EXPECT_EQ(p->n, 256);
    EXPECT_EQ(p->k, 64);
  }
  const auto largest = parse_extents("1048576x1x1");
  ASSERT_TRUE(largest);
  EXPECT_EQ(largest->m, kMaxExtent);
  for (const char* bad : {"", "0", "-5", "12x", "1x2", "1x2x3x4", "4096 ", "x", "1e3", "1048577",
                          "99999999999999999999", "4096X4096X4096", "4096*4096*4096", "\u00d7"}) {
    std::string error;
    EXPECT_FALSE(parse_extents(bad, &error)) << bad;
    EXPECT_NE(error.find("from 1 to 1048576"), std::string::npos) << bad;
  }
}

TEST(Vocabulary, ParsesEveryDtypeAndEpilogueByItsName) {
  for (Dtype d : all_dtypes()) EXPECT_EQ(parse_dtype(to_string(d)), d);
  for (Epilogue e : all_epilogues()) EXPECT_EQ(parse_epilogue(to_string(e)), e);
  EXPECT_EQ(all_dtypes().size(), 4u);
  EXPECT_FALSE(parse_dtype("f64").has_value());
  EXPECT_FALSE(parse_dtype("BF16").has_value());
  EXPECT_FALSE(parse_epilogue("gelu").has_value());
}

// The dtypes: f32 everywhere; tf32 = f32 storage with TF32 math; bf16/f16 = 16-bit A, B, bias
// and C with an f32 accumulator.
TEST(GemmTypes, SeparateStorageAccumulatorAndMath) {
  const GemmTypes f32 = gemm_types(Dtype::f32), tf32 = gemm_types(Dtype::tf32);
  const GemmTypes bf16 = gemm_types(Dtype::bf16), f16 = gemm_types(Dtype::f16);
  EXPECT_EQ(f32.a, Element::f32);
  EXPECT_EQ(f32.math, Math::f32);
  EXPECT_EQ(tf32.a, Element::f32);
  EXPECT_EQ(tf32.c, Element::f32);
  EXPECT_EQ(tf32.math, Math::tf32);
  for (const GemmTypes& t : {bf16, f16}) {
    EXPECT_EQ(t.a, t.b);
    EXPECT_EQ(t.bias, t.c);
    EXPECT_EQ(t.a, t.c);
    EXPECT_EQ(t.accumulator, Element::f32);
    EXPECT_EQ(element_bytes(t.a), 2);
  }
  EXPECT_EQ(bf16.a, Element::bf16);
  EXPECT_EQ(f16.math, Math::f16);
  EXPECT_EQ(element_bytes(Element::f32), 4);
}

TEST(GemmTypes, UnitRoundoffsAreThoseOfTheFormats) {
  EXPECT_EQ(unit_roundoff(Element::f32), std::ldexp(1.0, -24));
  EXPECT_EQ(unit_roundoff(Element::bf16), std::ldexp(1.0, -8));
  EXPECT_EQ(unit_roundoff(Element::f16), std::ldexp(1.0, -11));
  EXPECT_EQ(unit_roundoff(Math::tf32), std::ldexp(1.0, -11));
  EXPECT_EQ(unit_roundoff(Math::f32), unit_roundoff(Element::f32));
}

// The named GELU constants the kernels and the fp64 reference share are what their names say.
TEST(GeluConstants, AreTheirDefinitions) {
  EXPECT_DOUBLE_EQ(gelu::kInvSqrt2, 1.0 / std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(gelu::kSqrt2OverPi, std::sqrt(2.0 / std::acos(-1.0)));
  EXPECT_EQ(gelu::kCubic, 0.044715);
}

TEST(Problem, ShapeAndFlops) {
  const Problem p{1024, 2048, 512, Dtype::bf16, Epilogue::bias_gelu};
  EXPECT_EQ(shape_string(p), "1024x2048x512");
  EXPECT_DOUBLE_EQ(p.flops(), 2.0 * 1024 * 2048 * 512);
  EXPECT_EQ(p.types().c, Element::bf16);
}
