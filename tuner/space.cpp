// Enumeration and selection of a family's search space.
#include "space.hpp"

#include <algorithm>
#include <map>
#include <string>

#include "kernels/core/epilogues.hpp"

namespace coalesce::tuner {

std::size_t Space::legal() const {
  return static_cast<std::size_t>(std::count_if(candidates.begin(), candidates.end(),
                                                 [](const Candidate& c) { return !c.pruned(); }));
}
std::size_t Space::pruned() const { return candidates.size() - legal(); }

std::string pruned_by_reason(const Space& space) {
  std::map<Violation, std::size_t> by_reason;
  for (const Candidate& c : space.candidates)
    if (c.pruned()) ++by_reason[c.verdict.violation];
  std::string reasons;
  for (const auto& [violation, n] : by_reason)
    reasons += (reasons.empty() ? "" : ", ") + std::string(violation_name(violation)) + " " + std::to_string(n);
  return std::string(space.family->name()) + ": " + std::to_string(space.pruned()) + " pruned" +
         (reasons.empty() ? "" : " (" + reasons + ")");
}

Verdict refused(const Family& family, const Problem& problem, const Target& target) {
  if (Verdict v = family.supports(problem.dtype); !v.ok()) return v;
  if (Verdict v = supports_epilogue(family, problem); !v.ok()) return v;
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

std::vector<std::size_t> random_order(std::size_t n, std::size_t budget, std::uint64_t seed) {
  std::vector<std::size_t> picked(n);
  for (std::size_t i = 0; i < n; ++i) picked[i] = i;
  budget = std::min(budget, n);
  // A partial Fisher-Yates shuffle: the first `budget` slots are a uniform draw, in draw order.
  SplitMix64 rng{seed};
  for (std::size_t i = 0; i < budget; ++i) std::swap(picked[i], picked[i + rng.below(n - i)]);
  picked.resize(budget);
  return picked;
}

std::vector<std::size_t> random_draw(std::size_t n, std::size_t budget, std::uint64_t seed) {
  std::vector<std::size_t> picked(n);
  for (std::size_t i = 0; i < n; ++i) picked[i] = i;
  if (budget >= n) return picked;  // the whole space: no draw (the sweep's order, as before strategies)
  picked = random_order(n, budget, seed);
  std::sort(picked.begin(), picked.end());
  return picked;
}

std::vector<Candidate> select(const Space& space, Strategy strategy, int budget, std::uint64_t seed) {
  std::vector<std::size_t> legal;
  for (std::size_t i = 0; i < space.candidates.size(); ++i)
    if (!space.candidates[i].pruned()) legal.push_back(i);
  std::vector<std::size_t> picked(legal.size());
  for (std::size_t i = 0; i < legal.size(); ++i) picked[i] = i;
  if (strategy == Strategy::random && budget >= 0)
    picked = random_draw(legal.size(), static_cast<std::size_t>(budget), seed);
  std::vector<Candidate> out;
  out.reserve(picked.size());
  for (std::size_t i : picked) out.push_back(space.candidates[legal[i]]);
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
