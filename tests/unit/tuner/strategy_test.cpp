// The search strategies (tuner/strategy.hpp, tuner/strategies/): the registry, each strategy's
// proposals on a real family's space with a synthetic cost, and --time-budget's parser.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "kernels/mma/family.hpp"
#include "tuner/cost_model.hpp"
#include "tuner/strategy.hpp"

namespace coalesce::tuner {
namespace {

const Problem k4096{4096, 4096, 4096, Dtype::bf16, Epilogue::bias_gelu};
const Problem k2048{2048, 2048, 2048, Dtype::bf16, Epilogue::bias_gelu};

std::vector<Candidate> legal(const Problem& p) {
  std::vector<Candidate> out;
  for (const Candidate& c : enumerate(mma_family(), p, Target{}).candidates)
    if (!c.pruned()) out.push_back(c);
  return out;
}

// A synthetic cost with one clear region: 128x128 block tiles with 4 stages run in 1 ms, every
// other config in 2 ms or more (by its enumeration index, so that no two tie).
double cost_ms(const Config& c, std::size_t index) {
  const Family& f = mma_family();
  const bool good = f.value(c, "bm") == 128 && f.value(c, "bn") == 128 && f.value(c, "stages") == 4;
  return (good ? 1.0 : 2.0) + 1e-4 * static_cast<double>(index);
}

StrategyContext context(const Problem& p, std::uint64_t seed = 1) {
  StrategyContext c;
  c.family = &mma_family();
  c.problem = p;
  c.candidates = legal(p);
  c.seed = seed;
  return c;
}

// Asks until the strategy is done, telling it the synthetic cost; the proposals in order.
std::vector<std::size_t> drive(SearchStrategy& s, const std::vector<Candidate>& candidates) {
  std::vector<std::size_t> all;
  for (std::vector<std::size_t> batch = s.ask(); !batch.empty(); batch = s.ask()) {
    std::vector<Observation> seen;
    for (std::size_t i : batch) seen.push_back({i, cost_ms(candidates[i].config, i)});
    s.tell(seen);
    all.insert(all.end(), batch.begin(), batch.end());
  }
  return all;
}

TEST(StrategyRegistry, ListsTheBuiltInsAndTheDefault) {
  for (const char* name : {"exhaustive", "random", "model", "steady-top"}) EXPECT_NE(find_strategy(name), nullptr) << name;
  EXPECT_EQ(find_strategy("greedy"), nullptr);
  EXPECT_NE(find_strategy(default_strategy()), nullptr);
  EXPECT_TRUE(find_strategy(default_strategy())->searches);
  EXPECT_EQ(strategy_names(), "exhaustive, random, model, steady-top");
}

TEST(StrategyRegistry, ANewStrategyIsOneRegistration) {
  static const StrategyInfo first_only{
      .name = "first-only-test",
      .summary = "the first candidate",
      .options = "none",
      .make = [](const StrategyContext&) -> std::unique_ptr<SearchStrategy> {
        struct First final : SearchStrategy {
          bool asked = false;
          std::vector<std::size_t> ask() override {
            if (asked) return {};
            asked = true;
            return {0};
          }
          void tell(const std::vector<Observation>&) override {}
          std::string expectation() const override { return "one config"; }
          std::size_t budget() const override { return 1; }
        };
        return std::make_unique<First>();
      }};
  register_strategy(first_only);
  ASSERT_EQ(find_strategy("first-only-test"), &first_only);
  EXPECT_THROW(register_strategy(first_only), std::invalid_argument);
  EXPECT_EQ(find_strategy("first-only-test")->make(context(k4096))->ask(), std::vector<std::size_t>{0});
}

TEST(Exhaustive, ProposesEveryCandidateInOrderOnce) {
  StrategyContext c = context(k4096);
  auto s = find_strategy("exhaustive")->make(c);
  const std::vector<std::size_t> all = drive(*s, c.candidates);
  ASSERT_EQ(all.size(), c.candidates.size());
  for (std::size_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i], i);
}

TEST(Random, WithABudgetDrawsWhatSelectDraws) {
  StrategyContext c = context(k4096, 7);
  c.budget = 12;
  auto s = find_strategy("random")->make(c);
  const std::vector<std::size_t> drawn = s->ask();
  EXPECT_TRUE(s->ask().empty());
  const Space space = enumerate(mma_family(), k4096, Target{});
  const std::vector<Candidate> selected = select(space, Strategy::random, 12, 7);
  ASSERT_EQ(drawn.size(), selected.size());
  for (std::size_t i = 0; i < drawn.size(); ++i) EXPECT_EQ(c.candidates[drawn[i]].name, selected[i].name);
}

TEST(Random, WithoutABudgetIsASeededPermutation) {
  StrategyContext c = context(k4096, 3);
  const std::vector<std::size_t> a = find_strategy("random")->make(c)->ask();
  const std::vector<std::size_t> b = find_strategy("random")->make(c)->ask();
  c.seed = 4;
  const std::vector<std::size_t> other = find_strategy("random")->make(c)->ask();
  EXPECT_EQ(a, b);
  EXPECT_NE(a, other);
  EXPECT_EQ(std::set<std::size_t>(a.begin(), a.end()).size(), c.candidates.size());
  EXPECT_FALSE(std::is_sorted(a.begin(), a.end()));
}

TEST(Model, LearnsFromAnotherShapeAndFindsTheGoodRegionFirst) {
  StrategyContext c = context(k4096);
  const std::vector<Candidate> other = legal(k2048);
  double mean = 0;
  for (std::size_t i = 0; i < other.size(); ++i) mean += std::log(cost_ms(other[i].config, i));
  mean /= static_cast<double>(other.size());
  for (std::size_t i = 0; i < other.size(); ++i)
    c.history.push_back({other[i].config, k2048, 132, std::log(cost_ms(other[i].config, i)) - mean, "2048"});
  auto s = find_strategy("model")->make(c);
  const std::vector<std::size_t> first = s->ask();
  ASSERT_EQ(first.size(), 8u);
  // Six best guesses and two exploration draws: the guesses all lie in the good region.
  std::size_t good = 0;
  for (std::size_t i : first) good += cost_ms(c.candidates[i].config, i) < 1.5;
  EXPECT_GE(good, 6u);
}

TEST(Model, ProposesEachCandidateOnceUpToItsDefaultBudget) {
  StrategyContext c = context(k4096);  // no history: the sweep's own measurements steer it
  auto s = find_strategy("model")->make(c);
  const std::size_t expected = std::max<std::size_t>(16, static_cast<std::size_t>(std::ceil(0.05 * c.candidates.size())));
  EXPECT_EQ(s->budget(), expected);
  const std::vector<std::size_t> all = drive(*s, c.candidates);
  EXPECT_EQ(all.size(), expected);
  EXPECT_EQ(std::set<std::size_t>(all.begin(), all.end()).size(), all.size());
  EXPECT_NE(s->expectation().find("not measured"), std::string::npos) << s->expectation();
}

TEST(Model, TheWholeSpaceWhenTheBudgetIsIt) {
  StrategyContext c = context(k4096);
  c.budget = static_cast<int>(c.candidates.size());
  auto s = find_strategy("model")->make(c);
  const std::vector<std::size_t> all = drive(*s, c.candidates);
  EXPECT_EQ(std::set<std::size_t>(all.begin(), all.end()).size(), c.candidates.size());
  EXPECT_EQ(s->expectation(), "every legal config was measured: the best measured is the space's best");
}

TEST(SteadyTop, TheFastestMeasuredFirstAtMostTheBudget) {
  StrategyContext c = context(k4096);
  c.measured = {{5, 0.30}, {2, 0.10}, {9, 0.20}, {4, 0.10}};
  c.budget = 3;
  auto s = find_strategy("steady-top")->make(c);
  EXPECT_EQ(s->ask(), (std::vector<std::size_t>{2, 4, 9}));
  EXPECT_TRUE(s->ask().empty());
  EXPECT_FALSE(find_strategy("steady-top")->searches);
}

TEST(BoostedTrees, FitsAStepFunction) {
  std::vector<std::vector<double>> x;
  std::vector<double> y;
  for (int i = 0; i < 200; ++i) {
    x.push_back({static_cast<double>(i % 20), static_cast<double>(i / 20)});
    y.push_back(i % 20 < 7 ? 1.0 : -1.0);
  }
  BoostedTrees t;
  t.fit(x, y);
  EXPECT_NEAR(t.predict({3, 5}), 1.0, 0.05);
  EXPECT_NEAR(t.predict({15, 5}), -1.0, 0.05);
}

TEST(TimeBudget, ReadsSecondsMinutesAndHours) {
  EXPECT_EQ(parse_time_budget("60s"), 60.0);
  EXPECT_EQ(parse_time_budget("90"), 90.0);
  EXPECT_EQ(parse_time_budget("1.5m"), 90.0);
  EXPECT_EQ(parse_time_budget("2h"), 7200.0);
  EXPECT_EQ(parse_time_budget("0.5"), 0.5);
  EXPECT_EQ(parse_time_budget("168h"), kMaxTimeBudgetSeconds);
  for (const char* bad : {"", "0", "0s", "-1", "+5", "5x", "5 s", "s", ".", "1e3", "inf", "nan", "169h", "1.2.3", "60sec"})
    EXPECT_FALSE(parse_time_budget(bad).has_value()) << bad;
}

}  // namespace
}  // namespace coalesce::tuner
