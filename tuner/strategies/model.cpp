// `model`: the model-guided strategy. A cost model (cost_model.hpp) fitted on the database's
// other sweeps of the family ranks the candidates; each batch is the best-ranked unmeasured ones
// plus a few drawn at random (exploration), and every measurement corrects the ranking of its
// neighbours before the next batch.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "tuner/cost_model.hpp"
#include "tuner/strategy.hpp"

namespace coalesce::tuner {

namespace {

// Eight per batch: small enough that the model's correction steers most of a 5% budget of a few
// hundred configs, and as many compiles as the pool overlaps on the development machines.
constexpr std::size_t kBatch = 8;
// Two of the eight drawn at random: a model fitted on other shapes can be confidently wrong about
// a region, and the draws are what lets the sweep's own measurements correct it.
constexpr std::size_t kExplorePerBatch = 2;
// Without --budget: 5% of the legal configs (the bar), at least this many.
constexpr std::size_t kMinDefaultBudget = 16;

class ModelGuided final : public SearchStrategy {
 public:
  explicit ModelGuided(const StrategyContext& c)
      : model_(c), n_(c.candidates.size()), proposed_(c.candidates.size(), false), rng_{c.seed} {
    budget_ = c.budget ? static_cast<std::size_t>(*c.budget)
                       : std::max(kMinDefaultBudget, static_cast<std::size_t>(std::ceil(0.05 * static_cast<double>(n_))));
    budget_ = std::min(budget_, n_);
  }

  std::vector<std::size_t> ask() override {
    const std::size_t room = budget_ - count_;
    if (room == 0) return {};
    std::vector<std::size_t> open;
    for (std::size_t i = 0; i < n_; ++i)
      if (!proposed_[i]) open.push_back(i);
    const std::size_t batch = std::min({kBatch, room, open.size()});
    const std::size_t explore = batch == kBatch ? kExplorePerBatch : 0;
    std::vector<double> predicted(n_);
    for (std::size_t i : open) predicted[i] = model_.predicted_log_ms(i);
    // Ties (no model, nothing measured) fall back to a seeded order rather than enumeration's,
    // which would put one corner of the space first.
    std::vector<std::uint64_t> tie(n_);
    for (std::size_t i : open) tie[i] = rng_.next();
    std::sort(open.begin(), open.end(), [&](std::size_t a, std::size_t b) {
      return predicted[a] != predicted[b] ? predicted[a] < predicted[b] : tie[a] < tie[b];
    });
    std::vector<std::size_t> out(open.begin(), open.begin() + static_cast<std::ptrdiff_t>(batch - explore));
    std::vector<std::size_t> rest(open.begin() + static_cast<std::ptrdiff_t>(batch - explore), open.end());
    for (std::size_t i : random_draw(rest.size(), explore, rng_.next())) out.push_back(rest[i]);
    for (std::size_t i : out) proposed_[i] = true;
    count_ += out.size();
    return out;
  }

  void tell(const std::vector<Observation>& results) override {
    for (const Observation& o : results) {
      if (!o.median_ms) continue;
      model_.observe(o.candidate, *o.median_ms);
      best_ms_ = std::min(best_ms_, *o.median_ms);
    }
  }

  std::size_t budget() const override { return budget_; }

  std::string expectation() const override {
    if (!std::isfinite(best_ms_)) return "no config measured ok yet: nothing to compare with";
    double fastest = INFINITY;
    for (std::size_t i = 0; i < n_; ++i)
      if (!proposed_[i]) fastest = std::min(fastest, std::exp(model_.predicted_log_ms(i)));
    char buf[256];
    if (!std::isfinite(fastest)) return "every legal config was measured: the best measured is the space's best";
    if (fastest >= best_ms_)
      std::snprintf(buf, sizeof buf,
                    "the model expects none of the %zu configs not measured to beat the best measured (its fastest "
                    "prediction among them: %.1f%% slower)",
                    n_ - count_, (fastest / best_ms_ - 1) * 100);
    else
      std::snprintf(buf, sizeof buf,
                    "the model expects the best of the %zu configs not measured to be %.1f%% faster than the best "
                    "measured",
                    n_ - count_, (1 - fastest / best_ms_) * 100);
    return buf;
  }

 private:
  SweepModel model_;
  std::size_t n_, budget_ = 0, count_ = 0;
  std::vector<bool> proposed_;
  SplitMix64 rng_;
  double best_ms_ = INFINITY;
};

}  // namespace

const StrategyInfo& model_strategy() {
  static const StrategyInfo info{
      .name = "model",
      .summary = "a cost model fitted on the database ranks the space; batches of its best guesses plus "
                 "exploration, corrected by each measurement",
      .options = "--budget N (default 5% of the legal configs, at least 16), --seed (the exploration's draws)",
      .takes_budget = true,
      .reads_history = true,
      .make = [](const StrategyContext& c) -> std::unique_ptr<SearchStrategy> {
        return std::make_unique<ModelGuided>(c);
      }};
  return info;
}

}  // namespace coalesce::tuner
