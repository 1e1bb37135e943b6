// Sample statistics and the stopping rule on synthetic samples.
#include "harness/stats.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace {

using namespace coalesce;

TEST(Percentile, InterpolatesBetweenRanksLikeNumpy) {
  const std::vector<double> v{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_DOUBLE_EQ(percentile(v, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(percentile(v, 1.0), 10.0);
  EXPECT_DOUBLE_EQ(percentile(v, 0.5), 5.5);   // numpy.percentile(range(1, 11), 50)
  EXPECT_DOUBLE_EQ(percentile(v, 0.1), 1.9);   // rank 0.9
  EXPECT_DOUBLE_EQ(percentile(v, 0.9), 9.1);   // rank 8.1
  EXPECT_DOUBLE_EQ(percentile({4.0}, 0.3), 4.0);
}

TEST(Summarize, KnownSamplesInAnyOrder) {
  const SampleStats s = summarize({5, 1, 4, 2, 3});
  EXPECT_EQ(s.count, 5);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.p10, 1.4);
  EXPECT_DOUBLE_EQ(s.p90, 4.6);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_DOUBLE_EQ(s.stdev, std::sqrt(2.5));  // Bessel: sum of squares 10 over 4
  EXPECT_DOUBLE_EQ(s.rel_spread, (4.6 - 1.4) / 3);
  EXPECT_DOUBLE_EQ(s.rel_std_error, std::sqrt(2.5) / (3 * std::sqrt(5.0)));
}

TEST(Summarize, OneOutlierMovesTheMeanNotTheMedian) {
  std::vector<double> v(99, 1.0);
  v.push_back(100.0);
  const SampleStats s = summarize(v);
  EXPECT_DOUBLE_EQ(s.median, 1.0);
  EXPECT_DOUBLE_EQ(s.p90, 1.0);
  EXPECT_DOUBLE_EQ(s.max, 100.0);
  EXPECT_NEAR(s.mean, 1.99, 1e-12);
  EXPECT_DOUBLE_EQ(s.rel_spread, 0.0);
}

TEST(Summarize, EmptyAndSingle) {
  EXPECT_EQ(summarize({}).count, 0);
  const SampleStats one = summarize({2.5});
  EXPECT_EQ(one.count, 1);
  EXPECT_DOUBLE_EQ(one.median, 2.5);
  EXPECT_DOUBLE_EQ(one.stdev, 0.0);
}

TEST(ShouldStop, NeverBeforeTheMinimumThenByPrecisionBudgetOrCap) {
  const StoppingRule rule{20, 100, 0.005, 1000};
  std::vector<double> steady(19, 1.0);
  EXPECT_FALSE(should_stop(rule, summarize(steady), 1e9));  // 19 samples: over budget, still on
  steady.push_back(1.0);
  EXPECT_EQ(should_stop(rule, summarize(steady), 0), StopReason::converged);

  std::vector<double> noisy;
  for (int i = 0; i < 20; ++i) noisy.push_back(i % 2 ? 1.0 : 2.0);  // rel. std. error ~7%
  EXPECT_FALSE(should_stop(rule, summarize(noisy), 10));
  EXPECT_EQ(should_stop(rule, summarize(noisy), 1000), StopReason::budget);
  noisy.resize(100, 1.5);
  EXPECT_EQ(should_stop(rule, summarize(noisy), 10), StopReason::max_samples);
}

}  // namespace
