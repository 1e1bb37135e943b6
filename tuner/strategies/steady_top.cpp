// `steady-top`: the fastest configs already measured (StrategyContext::measured), fastest first,
// at most --budget of them: the configs `--steady-top N` times again in the steady state.
#include <algorithm>

#include "tuner/strategy.hpp"

namespace coalesce::tuner {

namespace {

class SteadyTop final : public SearchStrategy {
 public:
  SteadyTop(std::vector<std::pair<std::size_t, double>> measured, std::size_t top, std::size_t n)
      : measured_(std::move(measured)), top_(top), n_(n) {}
  std::vector<std::size_t> ask() override {
    if (asked_) return {};
    asked_ = true;
    // Ties keep the order given (the database's, by measurement), so the choice is reproducible.
    std::stable_sort(measured_.begin(), measured_.end(),
                     [](const auto& a, const auto& b) { return a.second < b.second; });
    std::vector<std::size_t> out;
    for (const auto& [index, ms] : measured_) {
      if (out.size() == top_) break;
      if (std::find(out.begin(), out.end(), index) == out.end()) out.push_back(index);
    }
    return out;
  }
  void tell(const std::vector<Observation>& results) override { told_ += results.size(); }
  std::string expectation() const override { return measured_fraction(told_, n_); }
  std::size_t budget() const override { return std::min(top_, measured_.size()); }

 private:
  std::vector<std::pair<std::size_t, double>> measured_;
  std::size_t top_, n_;
  std::size_t told_ = 0;
  bool asked_ = false;
};

}  // namespace

const StrategyInfo& steady_top_strategy() {
  static const StrategyInfo info{
      .name = "steady-top",
      .summary = "the --budget fastest configs already measured on the device, timed again (--steady-top's choice)",
      .options = "--budget N (the number of configs; --steady-top N sets it)",
      .takes_budget = true,
      .searches = false,
      .make = [](const StrategyContext& c) -> std::unique_ptr<SearchStrategy> {
        const std::size_t top = c.budget ? static_cast<std::size_t>(*c.budget) : c.measured.size();
        return std::make_unique<SteadyTop>(c.measured, top, c.candidates.size());
      }};
  return info;
}

}  // namespace coalesce::tuner
