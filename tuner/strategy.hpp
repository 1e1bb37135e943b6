// Search strategies behind one ask/tell interface (as TVM MetaSchedule and Kernel Tuner register
// theirs by name): a strategy proposes the next batch of a family's legal candidates for one
// problem, from the space and what was measured so far, and is told what each measured. The
// sweep (sweep.cpp) and the offline replay (replay.cpp) drive every strategy the same way. A new
// strategy is one file under tuner/strategies/ plus one line in tuner/strategies.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "space.hpp"

namespace coalesce::tuner {

class BoostedTrees;

/// One measured config of another sweep: what the model-guided strategy learns from (the
/// database's `ok` rows, cost_model.hpp). `rel_log_ms` is the natural log of the median less the
/// mean of that log over the row's group (one run, problem and family): within a group only the
/// ratios between configs matter, and the offset makes groups of different problems comparable.
struct TrainingRow {
  Config config;
  Problem problem;
  int sm_count = 132;
  double rel_log_ms = 0;
  std::string group;  ///< "run:problem:family", the sweep the row belongs to
};

/// What a strategy is built with, for one problem and family.
struct StrategyContext {
  const Family* family = nullptr;
  Problem problem;
  Target target;
  /// The legal candidates, in enumeration order; a strategy proposes their indices.
  std::vector<Candidate> candidates;
  std::uint64_t seed = 1;
  /// The most configs to propose (--budget); unset: the strategy's own default.
  std::optional<int> budget;
  /// Measurements of other sweeps of this family (the model-guided strategy's training data);
  /// may be empty.
  std::vector<TrainingRow> history;
  /// The model already fitted on `history` (fit_history, cost_model.hpp), when the caller reuses
  /// one fit for many strategies (the replay's seeds); null: the strategy fits it.
  std::shared_ptr<const BoostedTrees> trained;
  /// Configs of this problem already measured on this device in the sweep's protocol (index,
  /// median in ms), e.g. by an earlier run: the steady-state pass ranks them.
  std::vector<std::pair<std::size_t, double>> measured;
};

/// What became of one proposed candidate: its median, or none when it produced no time
/// (pruned after compiling, failed to compile or launch, wrong result, timed out).
struct Observation {
  std::size_t candidate = 0;
  std::optional<double> median_ms;
};

class SearchStrategy {
 public:
  virtual ~SearchStrategy() = default;
  /// The next candidates to measure (indices into StrategyContext::candidates, none proposed
  /// before); empty when the strategy is done.
  virtual std::vector<std::size_t> ask() = 0;
  /// The outcomes of proposed candidates, in any order and any grouping.
  virtual void tell(const std::vector<Observation>& results) = 0;
  /// One sentence on how close the best measured config is expected to be to the space's best,
  /// said when a time budget stops the search early.
  virtual std::string expectation() const = 0;
  /// The most candidates it will propose in all (the progress line's total).
  virtual std::size_t budget() const = 0;
};

/// A registered strategy: its name (`--strategy`), one line for help texts, the options it reads
/// (docs/tuner.md, "Strategies") and its factory.
struct StrategyInfo {
  std::string_view name;
  std::string_view summary;
  std::string_view options;
  /// Whether it measures a subset of the space, so that --budget means something to it.
  bool takes_budget = false;
  /// Whether it searches the space (the replay runs it); steady-top only re-times measured configs.
  bool searches = true;
  /// Whether it learns from the database (StrategyContext::history must be filled).
  bool reads_history = false;
  std::unique_ptr<SearchStrategy> (*make)(const StrategyContext& context) = nullptr;
};

/// Every registered strategy, built-in ones first in tuner/strategies.cpp's order.
const std::vector<const StrategyInfo*>& strategies();
/// The strategy named `name`, or nullptr.
const StrategyInfo* find_strategy(std::string_view name);
/// Adds a strategy (tests register stand-ins); its name must be new. Not thread-safe: call
/// before any thread uses the registry.
void register_strategy(const StrategyInfo& strategy);
/// The strategy names, comma-separated, for help texts and refusals.
std::string strategy_names();
/// The strategy `coalesce-tune sweep` uses without --strategy.
std::string_view default_strategy();

/// A `--time-budget` in seconds: a decimal number with an optional unit, `s` (the default), `m` or
/// `h` ("60s", "90", "1.5m", "2h"), more than 0 and at most kMaxTimeBudgetSeconds; nullopt for
/// anything else (a sign, another unit, inf, nan, text after the unit).
std::optional<double> parse_time_budget(std::string_view text);
/// A week: a sweep's budget beyond it is a typo, not a plan.
inline constexpr double kMaxTimeBudgetSeconds = 7 * 24 * 3600;

/// The fraction of the space proposed so far, as a sentence for expectation(): what a strategy
/// without a model can say (a uniform draw of that fraction holds the space's best with that
/// probability).
std::string measured_fraction(std::size_t proposed, std::size_t total);

}  // namespace coalesce::tuner
