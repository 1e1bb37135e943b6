// Enumeration and selection of the simt search space.
#include "space.hpp"

#include <algorithm>

namespace coalesce::tuner {

const SimtLists& simt_lists() {
  // Sized so that a full sweep at 4096 is a few hundred legal configs (346 on the H200; the
  // counts are in docs/tuner.md): at up to a second to measure each, the sweep stays within 10
  // minutes. The lists span the region the kernel's first probes found fast (thread tiles of
  // 32 to 128 accumulators, 8- and 16-deep K slices, 3 or 4 stages). Left out to keep the count
  // down: 32-wide block tiles (16K blocks of one or two warps at 4096) and TN = 4 (its largest
  // thread tile, 16x4, has fewer accumulators than 8x8). group_m stays at 8, the L2-friendly
  // rasterization Triton and CUTLASS default to. min_blocks spans 1 to 3: the lead's probes at
  // 4096 found the fastest configs at 2 or 3 resident blocks (an 8x8 tile fits unspilled in the
  // 127-170 registers that leaves), and SimtConfig::check() prunes the caps too small for a tile.
  static const SimtLists lists{
      .bm = {64, 128, 256},
      .bn = {64, 128, 256},
      .bk = {8, 16},
      .wm = {32, 64, 128},
      .wn = {32, 64, 128},
      .tm = {4, 8, 16},
      .tn = {8, 16, 32},
      .stages = {3, 4},
      .group_m = {8},
      .min_blocks = {1, 2, 3},
  };
  return lists;
}

int widest_vec(const Problem& problem) {
  // The one rule decides: the widest copy that check_problem() accepts for this shape.
  for (int v : {4, 2}) {
    SimtConfig probe;
    probe.vec = v;
    if (probe.check_problem(problem.m, problem.n, problem.k).ok()) return v;
  }
  return 1;
}

std::size_t Space::legal() const {
  return static_cast<std::size_t>(std::count_if(candidates.begin(), candidates.end(),
                                                 [](const Candidate& c) { return !c.pruned(); }));
}
std::size_t Space::pruned() const { return candidates.size() - legal(); }

Space enumerate_simt(const Problem& problem, const DeviceLimits& limits) {
  const SimtLists& l = simt_lists();
  Space space;
  const int vec = widest_vec(problem);
  // Every combination of the lists, in the lists' order (the last list varies fastest).
  std::size_t total = 1;
  for (const auto* list : {&l.bm, &l.bn, &l.bk, &l.wm, &l.wn, &l.tm, &l.tn, &l.stages, &l.group_m, &l.min_blocks})
    total *= list->size();
  for (std::size_t index = 0; index < total; ++index) {
    std::size_t rest = index;
    auto pick = [&rest](const std::vector<int>& list) {
      int v = list[rest % list.size()];
      rest /= list.size();
      return v;
    };
    SimtConfig c;
    c.min_blocks = pick(l.min_blocks);
    c.group_m = pick(l.group_m);
    c.stages = pick(l.stages);
    c.tn = pick(l.tn);
    c.tm = pick(l.tm);
    c.wn = pick(l.wn);
    c.wm = pick(l.wm);
    c.bk = pick(l.bk);
    c.bn = pick(l.bn);
    c.bm = pick(l.bm);
    c.vec = vec;
    if (Verdict v = c.check(); !v.ok()) {
      space.non_configs.push_back({c, v});
      continue;
    }
    const int regs = c.predicted_registers();
    Candidate cand{.config = c,
                   .name = config_name(c, problem.dtype, problem.epilogue),
                   .verdict = c.check(limits, regs),
                   .predicted_registers = regs,
                   .predicted_smem_bytes = c.smem_bytes(),
                   .predicted_blocks_per_sm = c.blocks_per_sm(limits, regs)};
    if (cand.verdict.ok()) cand.verdict = c.check_problem(problem.m, problem.n, problem.k);
    space.candidates.push_back(std::move(cand));
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

Verdict compiled_verdict(const SimtConfig& config, const DeviceLimits& limits, const KernelResources& kernel) {
  if (kernel.uses_local_memory())
    return {Violation::registers,
            "the kernel uses local memory: registers spilled (the thread tile does not fit in the registers allowed)"};
  if (config.smem_bytes() + kernel.static_smem_bytes() > limits.smem_per_block_optin)
    return {Violation::smem, "the pipeline's and the kernel's static shared memory exceed the device's per-block limit"};
  return config.check(limits, kernel.registers);
}

}  // namespace coalesce::tuner
