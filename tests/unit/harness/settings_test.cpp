// The harness settings as JSON: a round trip, partial input, and type errors.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "harness/timing.hpp"

namespace {

using namespace coalesce;

TEST(TimingSettings, RoundTripsThroughJson) {
  TimingSettings s;
  s.l2_flush_factor = 3;
  s.min_samples = 7;
  s.max_samples = 77;
  s.max_rel_std_error = 0.01;
  s.budget_ms = 123;
  s.first_warmup_ms = 456;
  s.warmup_ms = 7.5;
  const nlohmann::json j = s;
  EXPECT_EQ(j.size(), 7u);
  const TimingSettings back = j.get<TimingSettings>();
  EXPECT_EQ(nlohmann::json(back), j);
  EXPECT_EQ(back.min_samples, 7);
  EXPECT_DOUBLE_EQ(back.warmup_ms, 7.5);
}

TEST(TimingSettings, AbsentFieldsKeepDefaults) {
  const TimingSettings back = nlohmann::json{{"min_samples", 50}}.get<TimingSettings>();
  EXPECT_EQ(back.min_samples, 50);
  EXPECT_EQ(back.max_samples, TimingSettings{}.max_samples);
  EXPECT_DOUBLE_EQ(back.l2_flush_factor, 2.0);
}

// The flush mode is stored only when it is not the default write, so every earlier run's
// settings read back unchanged; "read" round-trips, an unknown mode throws.
TEST(TimingSettings, TheL2FlushModeIsStoredOnlyWhenItIsRead) {
  TimingSettings s;
  EXPECT_EQ(s.l2_flush, L2FlushMode::write);
  EXPECT_FALSE(nlohmann::json(s).contains("l2_flush"));
  s.l2_flush = L2FlushMode::read;
  const nlohmann::json j = s;
  EXPECT_EQ(j.at("l2_flush"), "read");
  EXPECT_EQ(j.get<TimingSettings>().l2_flush, L2FlushMode::read);
  EXPECT_THROW(nlohmann::json({{"l2_flush", "clean"}}).get<TimingSettings>(), std::invalid_argument);
  EXPECT_EQ(parse_l2_flush_mode("write"), L2FlushMode::write);
  EXPECT_FALSE(parse_l2_flush_mode("Read").has_value());
  EXPECT_EQ(to_string(L2FlushMode::read), "read");
}

// The rest between samples is stored only when there is one, so every earlier run's settings
// read back unchanged.
TEST(TimingSettings, TheSampleGapIsStoredOnlyWhenThereIsOne) {
  TimingSettings s;
  EXPECT_EQ(s.sample_gap_ms, 0.0);
  EXPECT_FALSE(nlohmann::json(s).contains("sample_gap_ms"));
  s.sample_gap_ms = 20;
  const nlohmann::json j = s;
  EXPECT_EQ(j.at("sample_gap_ms"), 20.0);
  EXPECT_EQ(j.get<TimingSettings>().sample_gap_ms, 20.0);
}

TEST(TimingSettings, WrongTypeThrows) {
  EXPECT_THROW(nlohmann::json({{"min_samples", "many"}}).get<TimingSettings>(), nlohmann::json::exception);
}

TEST(TimingSettings, DefaultsFlushTwiceL2AndTakeTwentySamples) {
  const TimingSettings s;
  EXPECT_GE(s.l2_flush_factor, 2.0);
  EXPECT_GE(s.min_samples, 20);
  EXPECT_LE(s.max_rel_std_error, 0.005);
  EXPECT_GE(s.first_warmup_ms, 1000);
}

}  // namespace
