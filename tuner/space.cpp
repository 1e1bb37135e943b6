// Enumeration and selection of a family's search space.
#include "space.hpp"

#include <algorithm>

namespace coalesce::tuner {

std::size_t Space::legal() const {
  return static_cast<std::size_t>(std::count_if(candidates.begin(), candidates.end(),
                                                 [](const Candidate& c) { return !c.pruned(); }));
}
std::size_t Space::pruned() const { return candidates.size() - legal(); }

Verdict refused(const Family& family, const Problem& problem, const Target& target) {
  if (Verdict v = family.supports(problem.dtype); !v.ok()) return v;
  return family.supports(target);
}

namespace {

bool has_param(const Family& family, std::string_view name) {
  for (const ParamSpec& p : family.params())
    if (p.name == name) return true;
  return false;
}
bool has_split(const Family& family) { return has_param(family, kSplitParam); }

// The split-K variants of the legal unsplit `base`, after it in the space: each factor, and
// where the family can also add the partial sums in its own kernel (kReduceParam), each factor
// those ways too (1: behind counters; 2: in the tile's cluster), right after it. The family's
// rule drops the ones it cannot run (e.g. a cluster of more than 8 slices).
void add_split_variants(Space& space, const Family& family, const Config& base, const Problem& problem,
                        const Target& target) {
  std::vector<Config> variants;
  for (int s : kSplitFactors) {
    const Config split = family.with(base, kSplitParam, s);
    variants.push_back(split);
    if (has_param(family, kReduceParam))
      for (int method : {1, 2}) variants.push_back(family.with(split, kReduceParam, method));
  }
  for (Config& c : variants) {
    if (!family.check(c).ok()) continue;
    const Resources predicted = family.predict(c, target.limits, problem);
    Candidate cand{.config = c,
                   .name = config_name(c, problem.dtype, problem.epilogue),
                   .verdict = family.check(c, target.limits, predicted.registers),
                   .predicted = predicted};
    if (cand.verdict.ok()) cand.verdict = family.check_problem(c, problem);
    if (cand.verdict.ok()) cand.verdict = check_schedule(family, c, problem, target);
    if (cand.verdict.violation == Violation::schedule) {
      ++space.unsplittable;  // the same for every factor: the unsplit grid fills the GPU
      return;
    }
    space.candidates.push_back(std::move(cand));
  }
}

}  // namespace

Space enumerate(const Family& family, const Problem& problem, const Target& target) {
  Space space;
  space.family = &family;
  if (!refused(family, problem, target).ok()) return space;
  for (Config& c : family.sweep_configs(problem)) {
    if (Verdict v = family.check(c); !v.ok()) {
      space.non_configs.push_back({std::move(c), v});
      continue;
    }
    const Resources predicted = family.predict(c, target.limits, problem);
    Candidate cand{.config = c,
                   .name = config_name(c, problem.dtype, problem.epilogue),
                   .verdict = family.check(c, target.limits, predicted.registers),
                   .predicted = predicted};
    if (cand.verdict.ok()) cand.verdict = family.check_problem(c, problem);
    if (cand.verdict.ok()) cand.verdict = check_schedule(family, c, problem, target);
    const bool splittable = cand.verdict.ok() && has_split(family) && split_slices(c) == 1;
    space.candidates.push_back(std::move(cand));
    if (splittable) add_split_variants(space, family, c, problem, target);
  }
  return space;
}

namespace {

// SplitMix64 (Steele, Lea & Flood, "Fast splittable pseudorandom number generators", 2014):
// tiny, fully specified, so a seed means the same draw everywhere.
struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Lemire's multiply-shift maps 64 random bits onto [0, n); the bias is below 2^-40 for the
  // few hundred candidates drawn from, far below anything a sweep could notice.
  std::size_t below(std::size_t n) {
    return static_cast<std::size_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
  }
};

}  // namespace

std::vector<Candidate> select(const Space& space, Strategy strategy, int budget, std::uint64_t seed) {
  std::vector<std::size_t> legal;
  for (std::size_t i = 0; i < space.candidates.size(); ++i)
    if (!space.candidates[i].pruned()) legal.push_back(i);
  if (strategy == Strategy::random && budget >= 0 && static_cast<std::size_t>(budget) < legal.size()) {
    // A partial Fisher-Yates shuffle: the first `budget` slots are a uniform draw.
    SplitMix64 rng{seed};
    for (std::size_t i = 0; i < static_cast<std::size_t>(budget); ++i)
      std::swap(legal[i], legal[i + rng.below(legal.size() - i)]);
    legal.resize(static_cast<std::size_t>(budget));
    std::sort(legal.begin(), legal.end());
  }
  std::vector<Candidate> out;
  out.reserve(legal.size());
  for (std::size_t i : legal) out.push_back(space.candidates[i]);
  return out;
}

Verdict compiled_verdict(const Family& family, const Config& config, const DeviceLimits& limits,
                         const KernelResources& kernel) {
  if (kernel.uses_local_memory())
    return {Violation::registers,
            "the kernel uses local memory: registers spilled (the thread tile does not fit in the registers allowed)"};
  if (family.predict(config, limits).smem_bytes + kernel.static_smem_bytes() > limits.smem_per_block_optin)
    return {Violation::smem, "the pipeline's and the kernel's static shared memory exceed the device's per-block limit"};
  return family.check(config, limits, kernel.registers);
}

}  // namespace coalesce::tuner
