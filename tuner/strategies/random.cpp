// `random`: --budget legal candidates drawn uniformly without replacement (random_draw, seeded by
// --seed), in enumeration order, as one batch: a seed draws the same configs everywhere, so a
// resumed random sweep measures the same set. Without a budget, the whole space in a seeded order.
#include <algorithm>

#include "tuner/strategy.hpp"

namespace coalesce::tuner {

namespace {

class Random final : public SearchStrategy {
 public:
  Random(std::size_t n, std::optional<std::size_t> budget, std::uint64_t seed) : n_(n), budget_(budget), seed_(seed) {}
  std::vector<std::size_t> ask() override {
    if (asked_) return {};
    asked_ = true;
    // With a budget (the sweep's --budget), its draw, measured in enumeration order as always.
    // Without (the replay): the whole space in a seeded random order, so that how soon it finds
    // a good config is what a uniform draw would find.
    return budget_ ? random_draw(n_, *budget_, seed_) : random_order(n_, n_, seed_);
  }
  void tell(const std::vector<Observation>& results) override { told_ += results.size(); }
  std::string expectation() const override { return measured_fraction(told_, n_); }
  std::size_t budget() const override { return budget_ ? std::min(*budget_, n_) : n_; }

 private:
  std::size_t n_;
  std::optional<std::size_t> budget_;
  std::uint64_t seed_;
  std::size_t told_ = 0;
  bool asked_ = false;
};

}  // namespace

const StrategyInfo& random_strategy() {
  static const StrategyInfo info{
      .name = "random",
      .summary = "--budget legal configs drawn uniformly (seeded by --seed)",
      .options = "--budget N (required by the sweep; the replay draws the whole space in random order), --seed",
      .takes_budget = true,
      .make = [](const StrategyContext& c) -> std::unique_ptr<SearchStrategy> {
        std::optional<std::size_t> budget;
        if (c.budget) budget = static_cast<std::size_t>(*c.budget);
        return std::make_unique<Random>(c.candidates.size(), budget, c.seed);
      }};
  return info;
}

}  // namespace coalesce::tuner
