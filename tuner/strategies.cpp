// The built-in search strategies. Adding one is its file under tuner/strategies/ plus one line
// here (docs/tuner.md, "Strategies").
#include <vector>

#include "strategy.hpp"

namespace coalesce::tuner {

const StrategyInfo& exhaustive_strategy();
const StrategyInfo& random_strategy();
const StrategyInfo& model_strategy();
const StrategyInfo& steady_top_strategy();

std::vector<const StrategyInfo*>& builtin_strategy_list() {
  static std::vector<const StrategyInfo*> list = {
      &exhaustive_strategy(),
      &random_strategy(),
      &model_strategy(),
      &steady_top_strategy(),
  };
  return list;
}

// The model-guided search: within 2% of the exhaustive best in a few percent of the space
// (docs/tuner.md, "Strategies"); `--strategy exhaustive` measures every legal config.
std::string_view default_strategy() { return "model"; }

}  // namespace coalesce::tuner
