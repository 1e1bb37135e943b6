// `coalesce-tune record`: the one way into the results database for measurements taken outside
// the tools (the PyTorch and Triton peers of scripts/torch_peers.py). A peer sends JSON lines:
// a run header, then per measurement its raw samples and error figures; the tool computes the
// statistics (harness/stats.hpp), judges the figures with the harness' tolerance
// (harness/check.hpp) and stores each row through coalesce_db under the writer lease, committed
// as it arrives. docs/tuner.md ("Recording outside measurements") documents every field.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <stdexcept>

namespace coalesce::tuner {

/// A line of the feed that cannot be recorded, as one sentence: "line N: what is wrong".
class FeedError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Reads the feed from `in` and answers each line with one JSON object on a line of `out`.
/// Returns 0 after the `end` line, 1 when the feed stopped without one (the run, if any, is
/// then left `interrupted` and stderr says so: the same feed resumes it). Throws FeedError for
/// a bad line and db::Error when the database refuses; an opened run is then ended `failed`,
/// and every row committed before the bad line stays.
int run_record(const std::filesystem::path& db_path, std::istream& in, std::ostream& out);

}  // namespace coalesce::tuner
