// `coalesce-tune replay`: a strategy run against the database's exhaustive sweeps, offline. Each
// sweep's stored medians answer the strategy's proposals; the model it learns from never holds
// the sweep it is replayed on (leave-one-out). It reports, per sweep and overall, how many
// evaluations the strategy needed to come within 1%, 2% and 5% of the exhaustive best.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

namespace coalesce::tuner {

struct ReplayOptions {
  std::vector<std::filesystem::path> dbs;  ///< read only; their sweeps are pooled
  std::string strategy;
  int seeds = 20;  ///< seeds 1..seeds, one replay each
  /// What the model does not see of a replayed sweep: "sweep" (that run × problem × family only:
  /// other runs of the same problem on other GPUs of the model stay, as they would in the
  /// database of a user) or "problem" (every sweep of that problem and family: it must transfer
  /// from other shapes, dtypes or epilogues) or "shape" (every sweep of that M, N, K and family, in
  /// every dtype and epilogue: it must transfer from other shapes).
  std::string holdout = "sweep";
  std::string family;  ///< only this family's sweeps; empty: all
};

/// The gap to the exhaustive best each figure is reported for, and the share of the space the
/// bar allows (issue 43: within 2% with at most 5% of the space in at least 90% of sweeps).
inline constexpr double kReplayGaps[] = {0.01, 0.02, 0.05};
inline constexpr double kReplayBarGap = 0.02, kReplayBarSpace = 0.05, kReplayBarSweeps = 0.90;

/// Runs the replay; the report (markdown) on `out`. Returns 0, or 1 when no exhaustive sweep is
/// found. Throws db::Error for a database that cannot be read.
int run_replay(const ReplayOptions& o, std::ostream& out);

}  // namespace coalesce::tuner
