// `coalesce-report publish OUT.db`: the published database made from the lab database, the rows
// the report by GPU model and the docs cite and nothing else, vacuumed (docs/reports.md,
// "Publishing the database"; docs/working.md, "What results/ keeps").
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace coalesce::report {

struct PublishOptions {
  std::filesystem::path lab;  ///< the lab database, read only
  std::filesystem::path out;  ///< the published database, replaced whole when the copy is done
  std::vector<std::int64_t> keep_runs;  ///< `--keep-run`: every row of these runs too
};

/// What a publication kept, for the one line the tool prints.
struct PublishResult {
  std::int64_t measurements = 0, runs = 0, devices = 0, problems = 0, configs = 0, builds = 0, profiles = 0;
  std::int64_t lab_measurements = 0;
  std::uintmax_t bytes = 0;  ///< the size of OUT
};

/// Writes OUT: a copy of the lab database (same schema, migrations and views) that keeps, per GPU
/// model, problem and protocol, the best ok row of each family and of each other method, the rows
/// of the runs of those fused rows on their problems (the baselines and the floor; the winner's
/// unfused build), the peers of their sittings, every row of `keep_runs` but their pruned
/// candidates, and the runs, devices, problems, configs, builds and profiles these rows refer
/// to; then VACUUM. The copy is built
/// beside OUT and renamed over it, so OUT is either as it was or whole. Throws std::runtime_error
/// (db::Error) with one sentence when the lab database cannot be read or OUT cannot be written;
/// std::invalid_argument when OUT is the lab database or exists and is not a Coalesce database.
PublishResult publish_database(const PublishOptions& options);

}  // namespace coalesce::report
