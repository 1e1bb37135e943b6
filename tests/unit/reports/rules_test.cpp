// The report's judging rules (reports/rules.hpp), each pinned at its boundary: exactly on it,
// just inside and just outside.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "reports/rules.hpp"

namespace coalesce::report {
namespace {

// The largest double below x and the smallest above it: "just" outside or inside a boundary.
double below(double x) { return std::nextafter(x, -std::numeric_limits<double>::infinity()); }
double above(double x) { return std::nextafter(x, std::numeric_limits<double>::infinity()); }

TEST(Noise, OnlyDisjointIntervalsDiffer) {
  EXPECT_EQ(compare_spread(1.0, 1.1, 1.2, 1.3), Verdict::faster);
  EXPECT_EQ(compare_spread(1.2, 1.3, 1.0, 1.1), Verdict::slower);
  EXPECT_EQ(compare_spread(1.0, 1.2, 1.1, 1.3), Verdict::same);
}

// Intervals that touch overlap: p90 equal to the other's p10 is within noise.
TEST(Noise, TouchingIntervalsAreTheSame) {
  EXPECT_EQ(compare_spread(1.0, 2.0, 2.0, 3.0), Verdict::same);
  EXPECT_EQ(compare_spread(2.0, 3.0, 1.0, 2.0), Verdict::same);
}

TEST(Noise, JustOverlappingIsTheSame) {
  EXPECT_EQ(compare_spread(1.0, above(2.0), 2.0, 3.0), Verdict::same);
  EXPECT_EQ(compare_spread(below(2.0), 3.0, 1.0, 2.0), Verdict::same);
}

TEST(Noise, JustApartIsFasterOrSlower) {
  EXPECT_EQ(compare_spread(1.0, below(2.0), 2.0, 3.0), Verdict::faster);
  EXPECT_EQ(compare_spread(above(2.0), 3.0, 1.0, 2.0), Verdict::slower);
}

// The verdict reads the two edges that face each other (p90 of the faster, p10 of the slower),
// not the medians' side: a wide interval that reaches the other one is the same.
TEST(Noise, AnIntervalInsideAnotherIsTheSame) {
  EXPECT_EQ(compare_spread(1.0, 4.0, 2.0, 3.0), Verdict::same);
  EXPECT_EQ(compare_spread(2.0, 3.0, 1.0, 4.0), Verdict::same);
}

TEST(Noise, VerdictsHaveTheirNames) {
  EXPECT_EQ(to_string(Verdict::faster), "faster");
  EXPECT_EQ(to_string(Verdict::slower), "slower");
  EXPECT_EQ(to_string(Verdict::same), "within noise");
}

// 132 SMs (the H200) with 2 resident blocks each: a wave is 264 blocks.
constexpr double kSms = 132, kPerSm = 2, kWave = kSms * kPerSm;
// The fraction of a wave is waves - floor(waves): a few ulps of the whole waves are lost in it.
constexpr double kPctError = 1e-9;

TEST(Waves, WholeWavesHaveAFullLastWave) {
  for (double waves : {1.0, 2.0, 7.0}) {
    Waves q = wave_quantization(waves * kWave, kSms, kPerSm);
    EXPECT_EQ(q.waves, waves);
    EXPECT_EQ(q.last_wave_pct, 100.0) << waves << " whole waves";
  }
}

TEST(Waves, OneBlockPastAWholeWaveStartsANearlyEmptyOne) {
  Waves q = wave_quantization(2 * kWave + 1, kSms, kPerSm);
  EXPECT_DOUBLE_EQ(q.waves, 2 + 1 / kWave);
  EXPECT_NEAR(q.last_wave_pct, 100 / kWave, kPctError);
}

TEST(Waves, OneBlockShortOfAWholeWaveLeavesOneSlotIdle) {
  Waves q = wave_quantization(2 * kWave - 1, kSms, kPerSm);
  EXPECT_DOUBLE_EQ(q.waves, 2 - 1 / kWave);
  EXPECT_NEAR(q.last_wave_pct, 100 * (kWave - 1) / kWave, kPctError);
}

TEST(Waves, LessThanOneWaveIsItsOwnLastWave) {
  Waves q = wave_quantization(kWave / 4, kSms, kPerSm);
  EXPECT_DOUBLE_EQ(q.waves, 0.25);
  EXPECT_DOUBLE_EQ(q.last_wave_pct, 25);
}

TEST(Waves, ResidentBlocksPerSmScaleTheWave) {
  EXPECT_DOUBLE_EQ(wave_quantization(264, 132, 1).waves, 2);
  EXPECT_DOUBLE_EQ(wave_quantization(264, 132, 4).waves, 0.5);
}

// A speed-up of 2 and a slow-down of 2 cancel: the geometric mean is 1, the arithmetic 1.25.
TEST(GeometricMean, ReciprocalRatiosCancel) {
  EXPECT_DOUBLE_EQ(geometric_mean({2.0, 0.5}), 1.0);
  EXPECT_DOUBLE_EQ(geometric_mean({4.0, 0.25, 1.0}), 1.0);
}

TEST(GeometricMean, IsTheNthRootOfTheProduct) {
  EXPECT_DOUBLE_EQ(geometric_mean({1.0, 4.0}), 2.0);  // arithmetic 2.5, harmonic 1.6
  EXPECT_DOUBLE_EQ(geometric_mean({2.0, 4.0, 8.0}), 4.0);
  EXPECT_DOUBLE_EQ(geometric_mean({1.25}), 1.25);
}

// The epilogue's DRAM model counts each elementwise kernel after the GEMM as one read and one
// write of C, as harness/baselines.cu runs them; the fused kernel and the GEMM alone add none.
TEST(DramModel, CountsThePassesOfCTheExtraKernelsMake) {
  EXPECT_EQ(extra_c_passes("eager", "bias_gelu"), 4);
  EXPECT_EQ(extra_c_passes("eager", "bias_relu"), 4);
  EXPECT_EQ(extra_c_passes("eager", "bias"), 2);
  EXPECT_EQ(extra_c_passes("eager", "none"), 0);
  EXPECT_EQ(extra_c_passes("unfused", "bias_gelu"), 2);
  EXPECT_EQ(extra_c_passes("unfused", "bias"), 2);
  EXPECT_EQ(extra_c_passes("unfused", "none"), 0);
  EXPECT_EQ(extra_c_passes("coalesce", "bias_gelu"), 0);
  EXPECT_EQ(extra_c_passes("cublas_gemm", "bias_gelu"), 0);
  ASSERT_TRUE(copy_bandwidth_bytes_per_s("NVIDIA H200"));
  EXPECT_DOUBLE_EQ(*copy_bandwidth_bytes_per_s("NVIDIA H200"), 4.3e12);
  EXPECT_FALSE(copy_bandwidth_bytes_per_s("NVIDIA A100-SXM4-80GB"));
  // docs/kernels.md: eager's 4 passes of a 4096² f32 C are 268 MB, 62 µs at 4.3 TB/s.
  const double bytes = 4.0 * 4096 * 4096 * 4;
  EXPECT_NEAR(bytes / *copy_bandwidth_bytes_per_s("NVIDIA H200") * 1e6, 62.4, 0.1);
}

}  // namespace
}  // namespace coalesce::report
