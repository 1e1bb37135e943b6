// `coalesce-tune record-profile`: what Nsight Compute saw of one kernel, into the results
// database's `profiles` (docs/tuner.md, "Recording a profile"). scripts/ncu_summary.py reads
// ncu's raw page and sends its metrics here as one JSON object; this side finds the device,
// problem and config the flags name in the database, derives the first-class columns in fixed
// units, and stores the row through coalesce_db under the writer lease.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <stdexcept>
#include <string>

#include "kernels/core/problem.hpp"

namespace coalesce::tuner {

/// The profile or the flags cannot be stored as given, found before the database is opened:
/// one sentence (exit status 2).
class ProfileInputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The database does not hold what the flags name, or holds this profile with other figures:
/// one sentence naming the database (exit status 1).
class ProfileRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Where a profile belongs: what the flags of `record-profile` name.
struct ProfileTarget {
  std::string device;  ///< the GPU's UUID, as `devices.uuid` holds it (GPU-...)
  Problem problem;
  std::string method;       ///< one of kMethods (schema/vocabulary.hpp)
  std::string config;       ///< the config's name; empty for a library kernel (a baseline method)
  std::string source_hash;  ///< a prefix of the config's source hash; empty: the name must be unique
};

/// Reads one profile, a JSON object, from `in`:
///   {"kernel": NAME, "tool": "ncu", "tool_version": V, "profiled_at": "2026-11-30T13:10:40Z",
///    "metrics": {METRIC: number or text, ...}, "units": {METRIC: unit, ...}}
/// (tool_version, profiled_at and units optional) and stores it for `target` in the existing
/// database `db_path`. Writes one line to `out`: the profile stored, or that the same profile
/// was stored already. Returns 0 in both cases. Throws ProfileInputError for a malformed
/// profile or flags that do not fit it, ProfileRefused (or db::Error) for what the database
/// refuses; nothing is written then.
int record_profile(const std::filesystem::path& db_path, const ProfileTarget& target, std::istream& in,
                   std::ostream& out);

}  // namespace coalesce::tuner
