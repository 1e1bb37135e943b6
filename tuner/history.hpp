// What the database knows that a search strategy can use: every stored sweep's measured configs
// (a run × problem × family), which of them are exhaustive, and the training rows of the
// model-guided strategy. Read-only.
#pragma once

#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "schema/db.hpp"
#include "strategy.hpp"

namespace coalesce::tuner {

/// Sweeps with at least this many configs measured ok teach the model: fewer say little about
/// the ratios between configs, and their mean log time is a poor offset.
inline constexpr std::size_t kMinTrainingConfigs = 16;

/// One config of a stored sweep: a legal candidate (not pruned before compiling) and its median,
/// none when it produced no time (pruned after compiling, failed, wrong, timed out).
struct StoredConfig {
  Config config;
  std::string name;
  std::optional<double> median_ms;
};

/// A run × problem × family of the database (its `coalesce` rows in one protocol).
struct StoredSweep {
  long long run = 0;
  long long device = 0;
  Problem problem;
  std::string family;
  std::string protocol;
  int sm_count = 132;
  /// Its legal candidates, in the order they were measured (the enumeration order).
  std::vector<StoredConfig> configs;
  /// Every legal config of its space was measured in this run (docs/tuner.md, "Exhaustive
  /// sweeps"): the run completed, its resume key says strategy=exhaustive without --config or
  /// --time-budget, it has
  /// at least kMinTrainingConfigs configs measured ok (the published database keeps only each
  /// sweep's best rows: none of its sweeps is whole), and no earlier run measured a config of the same device,
  /// problem, family and protocol (which this run would have skipped as already measured).
  bool exhaustive = false;
  /// A config name that no registered family parses (a family's parameters changed since): the
  /// sweep takes no part in training or replay.
  bool unparsed = false;
  std::string key() const;  ///< "run 8 4096x4096x4096 bf16 bias_gelu wgmma"
  std::optional<double> best_ms() const;
  std::size_t measured_ok() const;  ///< how many of its configs have a median
  /// Whether it teaches the model: parsed, with at least kMinTrainingConfigs configs measured ok.
  bool teaches() const { return !unparsed && measured_ok() >= kMinTrainingConfigs; }
};

/// Every sweep of the database with at least one legal candidate, by run, problem and family.
std::vector<StoredSweep> stored_sweeps(const db::Database& db);

/// The stored-sweeps file (`coalesce-tune history`): the sweeps that teach the model (at least
/// kMinTrainingConfigs configs measured ok), each a header line and one line per config measured
/// ok, so that the model's training travels without the database it came from (the published
/// results/history.tsv). Tab-separated text:
///   # coalesce stored sweeps 1                                   (first line; other '#' lines: comments)
///   sweep RUN DEVICE M N K DTYPE EPILOGUE FAMILY PROTOCOL SM_COUNT EXHAUSTIVE(0|1)
///   CONFIG_NAME MEDIAN_MS
inline constexpr std::string_view kSweepsFileMagic = "# coalesce stored sweeps 1";

/// Writes the sweeps of `sweeps` that teach the model (their configs measured ok) to `out`;
/// returns how many sweeps it wrote.
std::size_t write_sweeps_file(const std::vector<StoredSweep>& sweeps, std::ostream& out);

/// Reads a stored-sweeps file; throws std::runtime_error naming the file and line of anything
/// malformed. A config name no registered family parses marks its sweep `unparsed`, as a
/// database's does.
std::vector<StoredSweep> read_sweeps_file(const std::filesystem::path& path);

/// Whether `path` is a stored-sweeps file (its first line is kSweepsFileMagic), not a database.
bool is_sweeps_file(const std::filesystem::path& path);

/// The training rows of `family` from `sweeps` (their `ok` configs, each relative to its sweep's
/// mean log time), leaving out the sweeps `skip` says to.
template <class Skip>
std::vector<TrainingRow> training_rows(const std::vector<StoredSweep>& sweeps, std::string_view family, Skip skip);

/// The training rows of `family` for a sweep of the database (every stored sweep of the family).
std::vector<TrainingRow> training_rows(const db::Database& db, std::string_view family);

}  // namespace coalesce::tuner

#include <cmath>

namespace coalesce::tuner {

template <class Skip>
std::vector<TrainingRow> training_rows(const std::vector<StoredSweep>& sweeps, std::string_view family, Skip skip) {
  std::vector<TrainingRow> rows;
  for (const StoredSweep& s : sweeps) {
    if (s.family != family || !s.teaches() || skip(s)) continue;
    double sum = 0;
    for (const StoredConfig& c : s.configs)
      if (c.median_ms) sum += std::log(*c.median_ms);
    const double mean = sum / static_cast<double>(s.measured_ok());
    for (const StoredConfig& c : s.configs)
      if (c.median_ms) rows.push_back({c.config, s.problem, s.sm_count, std::log(*c.median_ms) - mean, s.key()});
  }
  return rows;
}

}  // namespace coalesce::tuner
