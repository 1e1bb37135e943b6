// `exhaustive`: every legal candidate, in enumeration order, as one batch (the sweep compiles them
// all ahead and measures them in that order, as it always has).
#include "tuner/strategy.hpp"

namespace coalesce::tuner {

namespace {

class Exhaustive final : public SearchStrategy {
 public:
  explicit Exhaustive(std::size_t n) : n_(n) {}
  std::vector<std::size_t> ask() override {
    if (asked_) return {};
    asked_ = true;
    std::vector<std::size_t> all(n_);
    for (std::size_t i = 0; i < n_; ++i) all[i] = i;
    return all;
  }
  void tell(const std::vector<Observation>& results) override { told_ += results.size(); }
  std::string expectation() const override { return measured_fraction(told_, n_); }
  std::size_t budget() const override { return n_; }

 private:
  std::size_t n_;
  std::size_t told_ = 0;
  bool asked_ = false;
};

}  // namespace

const StrategyInfo& exhaustive_strategy() {
  static const StrategyInfo info{
      .name = "exhaustive",
      .summary = "every legal config, in enumeration order",
      .options = "none",
      .make = [](const StrategyContext& c) -> std::unique_ptr<SearchStrategy> {
        return std::make_unique<Exhaustive>(c.candidates.size());
      }};
  return info;
}

}  // namespace coalesce::tuner
