// The search space of a kernel family: every config its plug-in lists for a problem, each
// judged against the device and the problem before anything is compiled. A refused candidate
// keeps its category and sentence; it is stored as a `pruned` row, never silently dropped.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cubin_resources.hpp"
#include "kernels/core/family.hpp"

namespace coalesce::tuner {

/// One candidate config with the model's figures and the verdict before compiling.
struct Candidate {
  Config config;
  std::string name;          ///< config_name(config, dtype, epilogue)
  Verdict verdict;           ///< ok(), or why it is pruned before compiling
  Resources predicted;       ///< the family's model (Family::predict)
  bool pruned() const { return !verdict.ok(); }
};

/// A config the family lists but refuses by its device-free rule (Family::check): not a config
/// at all, so it is counted and listed on request (`coalesce-tune space --all`) but never stored.
struct NonConfig {
  Config config;
  Verdict verdict;
};

/// The family's candidates for one problem on one device, in a fixed enumeration order.
struct Space {
  const Family* family = nullptr;
  std::vector<Candidate> candidates;   ///< legal and pruned, in enumeration order
  std::vector<NonConfig> non_configs;  ///< combinations of the lists that are not configs
  /// Legal unsplit configs whose split-K variants were not listed: their unsplit grid already
  /// fills a wave of the SMs, so no split can help (check_schedule's Violation::schedule). The
  /// variants are counted here, one per config, instead of stored as pruned rows.
  std::size_t unsplittable = 0;
  std::size_t legal() const;
  std::size_t pruned() const;
};

/// Enumerates `family`'s space for `problem` on `target`: each config of
/// Family::sweep_configs() that passes Family::check() becomes a candidate, judged by
/// check(limits, predicted registers) and check_problem(). For a family with a `split`
/// parameter, each legal unsplit candidate is followed by its split-K variants (kSplitFactors),
/// judged by the same rules plus check_schedule(); where no split can help (Space::unsplittable)
/// none is listed. A family that does not run on the
/// target or compute the dtype gives an empty space (refused() says why). Deterministic: the
/// same inputs give the same order.
Space enumerate(const Family& family, const Problem& problem, const Target& target);

/// Why `family` takes no part in a sweep of `problem` on `target` (its dtype, epilogue or
/// architecture refusal), or ok.
Verdict refused(const Family& family, const Problem& problem, const Target& target);

/// What the space pruned before compiling, by category in Violation's order, counted: e.g.
/// "mma: 2120 pruned (divisibility 2120)" — the line a sweep prints per family when no config
/// of any family can run a problem (issue 39).
std::string pruned_by_reason(const Space& space);

/// SplitMix64 (Steele, Lea & Flood, "Fast splittable pseudorandom number generators", 2014):
/// tiny, fully specified, so a seed means the same draw on every machine and standard library.
struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Lemire's multiply-shift maps 64 random bits onto [0, n); the bias is below 2^-40 for the
  /// few thousand candidates drawn from, far below anything a sweep could notice.
  std::size_t below(std::size_t n) {
    return static_cast<std::size_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
  }
  /// A uniform double in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
};

/// `budget` of the indices 0..n-1 (at most n) drawn uniformly without replacement by SplitMix64
/// seeded with `seed`, in the order drawn: with budget = n, a uniform random permutation.
std::vector<std::size_t> random_order(std::size_t n, std::size_t budget, std::uint64_t seed);

/// `budget` of the indices 0..n-1 drawn uniformly without replacement by SplitMix64 seeded with
/// `seed` (all of them when budget >= n), in increasing order: the random strategy's draw.
std::vector<std::size_t> random_draw(std::size_t n, std::size_t budget, std::uint64_t seed);

enum class Strategy { exhaustive, random };

/// The candidates to compile and measure: every legal one (exhaustive), or `budget` legal
/// ones drawn without replacement by a generator seeded with `seed` (random). The draw is the
/// same on every machine and standard library (the generator and shuffle are written here),
/// so a resumed random sweep picks the same configs. The result keeps enumeration order.
std::vector<Candidate> select(const Space& space, Strategy strategy, int budget, std::uint64_t seed);

/// The verdict after compiling, with the figures ptxas wrote into the cubin: a kernel that uses
/// local memory is pruned (category `registers`: no family's template declares local arrays,
/// so its local memory is spilled registers — a rule of the family interface), a kernel whose
/// static shared memory pushes the block past the device's limit is pruned (`smem`), otherwise
/// the family's device rule is applied again with the real register count in place of the
/// model's.
Verdict compiled_verdict(const Family& family, const Config& config, const DeviceLimits& limits,
                         const KernelResources& kernel);

}  // namespace coalesce::tuner
