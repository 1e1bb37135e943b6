// The search space of the `simt` family: every combination of the family's parameter lists
// that is a simt config at all, each judged against the device and the problem before anything
// is compiled. A refused candidate keeps its category and sentence; it is stored as a `pruned`
// row, never silently dropped.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/names.hpp"
#include "kernels/simt_config.hpp"
#include "cubin_resources.hpp"

namespace coalesce::tuner {

/// The values each simt parameter takes in a sweep. The product of the lists is filtered by
/// SimtConfig::check() (the device-free rule); what passes is the family's candidate set.
struct SimtLists {
  std::vector<int> bm, bn, bk, wm, wn, tm, tn, stages, group_m, min_blocks;
};

/// The lists a sweep uses (docs/tuner.md says why each list is what it is). `vec` is not a
/// list: every candidate copies the widest vector (4, 2 or 1 floats) that the problem allows,
/// since a narrower copy of the same tile only issues more instructions.
const SimtLists& simt_lists();

/// The widest vector copy (4, 2 or 1 floats) that SimtConfig::check_problem() accepts.
int widest_vec(const Problem& problem);

/// One candidate config with the model's figures and the verdict before compiling.
struct Candidate {
  SimtConfig config;
  std::string name;          ///< config_name(config, dtype, epilogue)
  Verdict verdict;           ///< ok(), or why it is pruned before compiling
  int predicted_registers;   ///< SimtConfig::predicted_registers()
  int predicted_smem_bytes;  ///< SimtConfig::smem_bytes()
  int predicted_blocks_per_sm;  ///< SimtConfig::blocks_per_sm(limits, predicted registers)
  bool pruned() const { return !verdict.ok(); }
};

/// A combination of the lists that fails SimtConfig::check(): not a simt config at all, so it
/// is counted and listed on request (`coalesce-tune space --all`) but never stored.
struct NonConfig {
  SimtConfig config;
  Verdict verdict;
};

/// The family's candidates for one problem on one device, in a fixed enumeration order.
struct Space {
  std::vector<Candidate> candidates;  ///< legal and pruned, in enumeration order
  std::vector<NonConfig> non_configs;  ///< combinations of the lists that are not configs
  std::size_t legal() const;
  std::size_t pruned() const;
};

/// Enumerates the simt space for `problem` under `limits`: each combination of simt_lists()
/// that passes SimtConfig::check() becomes a candidate, judged by check(limits, predicted
/// registers) and check_problem(M, N, K). Deterministic: the same inputs give the same order.
Space enumerate_simt(const Problem& problem, const DeviceLimits& limits);

enum class Strategy { exhaustive, random };

/// The candidates to compile and measure: every legal one (exhaustive), or `budget` legal
/// ones drawn without replacement by a generator seeded with `seed` (random). The draw is the
/// same on every machine and standard library (the generator and shuffle are written here),
/// so a resumed random sweep picks the same configs. The result keeps enumeration order.
std::vector<Candidate> select(const Space& space, Strategy strategy, int budget, std::uint64_t seed);

/// The verdict after compiling, with the figures ptxas wrote into the cubin: a kernel that uses
/// local memory is pruned (category `registers`: the simt template declares no local arrays,
/// so its local memory is spilled registers), a kernel whose static shared memory pushes the
/// block past the device's limit is pruned (`smem`), otherwise the device rule is applied
/// again with the real register count in place of the model's.
Verdict compiled_verdict(const SimtConfig& config, const DeviceLimits& limits, const KernelResources& kernel);

}  // namespace coalesce::tuner
