// `coalesce-tune sweep`: for each problem, the baselines, then every selected candidate through
// emission, NVRTC, the post-compile check and the measuring worker, one committed row each.
#pragma once

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "harness/timing_settings.hpp"
#include "peers.hpp"
#include "kernels/core/family.hpp"
#include "space.hpp"

namespace coalesce::tuner {

struct SweepOptions {
  std::vector<Problem> problems;
  /// The families to sweep, or {"all"}: every registered family that computes a problem's
  /// dtype on the device (the others are skipped with their reason on stderr). A family named
  /// explicitly that refuses the dtype or the device stops the sweep with that reason.
  std::vector<std::string> families = {"all"};
  /// The search strategy's name (strategy.hpp; `--strategy`).
  std::string strategy = "exhaustive";
  /// Only these configs (their names): re-measure a known config, e.g. a stored winner. Each
  /// must be a legal candidate of its problem's space, else the sweep stops before measuring.
  std::vector<std::string> configs;
  int budget = -1;          ///< configs to measure per problem and family (a strategy that takes one); -1: its default
  std::uint64_t seed = 1;   ///< the strategy's seed (random's draw, the model's exploration)
  /// `--time-budget`: seconds the whole sweep may take (planning, compiles and measurements);
  /// each problem and family gets an even share of what is left when it starts, and stops
  /// measuring when its share is spent, saying how close its strategy expects the best to be.
  std::optional<double> time_budget_s;
  /// `--history`: databases or stored-sweeps files (history.hpp) whose sweeps a learning
  /// strategy learns from (read only); empty: the sweep's own database and `published_history`.
  std::vector<std::filesystem::path> history;
  /// The project's published database and stored-sweeps file (results/coalesce.db,
  /// results/history.tsv), which a learning strategy also learns from when no --history is
  /// given; read only, and a file that is the sweep's own database is left out.
  std::vector<std::filesystem::path> published_history;
  bool dry_run = false;     ///< enumerate and compile only: no GPU, no database
  int device = 0;
  /// Several GPUs of this host (`--devices`): problem i of the shard is measured on
  /// devices[i mod D], each device by its own worker and run, all sharing one compile pool and
  /// one database. Empty: `device` alone. Two or more: see run_sweep.
  std::vector<int> devices;
  /// This sweep's part of the problems (`--shard I/N`): problem i (in the order given) belongs
  /// to shard i mod N. Shards of one sweep are disjoint and together cover it.
  int shard = 0, shards = 1;
  std::filesystem::path db_path = "results/coalesce.db";
  std::filesystem::path cache_dir;
  unsigned jobs = 0;        ///< compile threads; 0 = every core
  double timeout_s = 60;    ///< per measurement request to the worker
  /// How each kernel is timed (harness/timing.hpp): the flush, the rest between samples, the
  /// sample counts. Stored in the run's harness_json; a non-default one is part of the resume key.
  TimingSettings timing;
  /// `--steady-top N`: once the sweep is done, each problem's and family's N fastest configs on
  /// this device (by their rows outside the steady state) are timed again in the steady state,
  /// `steady_samples` samples of each method back to back, beside the baselines timed the same
  /// way: one run per problem and family, which the database ranks ahead of the sweep's own
  /// rows (docs/tuner.md, "The steady state"). 0: no second pass.
  int steady_top = 0;
  int steady_samples = 3000;  ///< at least kSteadyStateMinSamples
  /// `--peers`: after each problem, the PyTorch and Triton peers timed on the same device by the
  /// same timing settings, stored in a run of their own in this database (peers.hpp).
  PeersOptions peers;
  /// The most workspace one config may ask for (split-K's partials); larger ones are pruned
  /// (`workspace`). Target::max_workspace_bytes.
  long long max_workspace_bytes = 1LL << 30;
  std::string command_line;
};

/// What makes a later invocation the same sweep (and so resume its run): the normalized
/// problems, families, strategy, budget, seed and the tool's git revision.
std::string resume_key(const SweepOptions& o);

/// The CUDA devices a sweep can use (the stand-in devices of a test without a GPU).
int available_devices();

/// The problems of shard `shard` of `shards`: problem i belongs to shard i mod shards.
std::vector<Problem> shard_problems(const std::vector<Problem>& problems, int shard, int shards);

/// Runs the sweep: data (per-candidate lines for a dry run, the summary) on `out`, the
/// progress line on stderr. Returns 0, or 130 when SIGINT/SIGTERM stopped it after a committed
/// row (the same command resumes). Throws NoDeviceError without a GPU (unless dry_run),
/// db::Error when the database cannot be opened or written, std::runtime_error when the worker
/// cannot set a problem up.
///
/// With two or more `devices`, each device sweeps its problems on its own thread; a device that
/// fails (its worker cannot set up, the GPU is lost) stops only itself, says why on stderr, and
/// the sweep returns 1 after the others finish (130 when interrupted). Each device's summary is
/// written whole when one of its problems is done.
int run_sweep(const SweepOptions& o, std::ostream& out);

}  // namespace coalesce::tuner
