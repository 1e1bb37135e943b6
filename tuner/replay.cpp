// The offline replay (replay.hpp).
#include "replay.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <ostream>
#include <stdexcept>

#include "cost_model.hpp"
#include "history.hpp"

namespace coalesce::tuner {

namespace {

// What one seed's replay of one sweep needed: evaluations to each gap (kReplayGaps), 0 when the
// strategy stopped before reaching it.
struct SeedResult {
  std::size_t evals[std::size(kReplayGaps)] = {};
};

SeedResult replay_once(const StrategyInfo& info, const StrategyContext& context, const StoredSweep& sweep, double best) {
  SeedResult r;
  std::unique_ptr<SearchStrategy> strategy = info.make(context);
  std::size_t evals = 0, reached = 0;
  while (reached < std::size(kReplayGaps)) {
    const std::vector<std::size_t> batch = strategy->ask();
    if (batch.empty()) break;
    std::vector<Observation> seen;
    for (std::size_t i : batch) {
      ++evals;
      const std::optional<double>& ms = sweep.configs[i].median_ms;
      seen.push_back({i, ms});
      for (std::size_t g = 0; g < std::size(kReplayGaps); ++g)
        if (ms && !r.evals[g] && *ms <= best * (1 + kReplayGaps[g])) r.evals[g] = evals, ++reached;
    }
    strategy->tell(seen);
  }
  return r;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

}  // namespace

int run_replay(const ReplayOptions& o, std::ostream& out) {
  const StrategyInfo* info = find_strategy(o.strategy);
  if (!info) throw std::invalid_argument("--strategy '" + o.strategy + "' is not a strategy (" + strategy_names() + ")");
  if (!info->searches) throw std::invalid_argument("--strategy " + o.strategy + " re-times configs already measured: it has no search to replay");
  std::vector<StoredSweep> sweeps;
  for (const auto& path : o.dbs) {
    std::vector<StoredSweep> more = stored_sweeps(db::Database::open(path, db::Mode::read_only));
    sweeps.insert(sweeps.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  }
  std::size_t unparsed = 0;
  std::vector<const StoredSweep*> replayed;
  for (const StoredSweep& s : sweeps) {
    if (!s.exhaustive || (!o.family.empty() && s.family != o.family)) continue;
    if (s.unparsed || !find_family(s.family)) {
      ++unparsed;
      continue;
    }
    replayed.push_back(&s);
  }
  out << "# Replay of strategy `" << o.strategy << "`\n\n"
      << replayed.size() << " exhaustive sweeps (docs/tuner.md, \"Exhaustive sweeps\"), " << o.seeds
      << " seeds each; held out from the model: the " << (o.holdout == "problem" ? "sweeps of its problem and family"
                                                                  : o.holdout == "shape" ? "sweeps of its shape (M, N, K) and family, every dtype"
                                                                                         : "sweep")
      << ". " << unparsed << " exhaustive sweeps skipped: configs no registered family parses.\n\n";
  if (replayed.empty()) {
    out << "No exhaustive sweep to replay.\n";
    return 1;
  }
  out << "| sweep | legal | 5% of it | median evaluations to 1% / 2% / 5% | seeds within 2% in 5% of the space |\n"
      << "|---|---:|---:|---|---:|\n";
  std::size_t sweeps_passing = 0, pairs = 0, pairs_passing = 0;
  std::vector<double> all_fraction[std::size(kReplayGaps)];
  for (const StoredSweep* s : replayed) {
    const Family& family = *find_family(s->family);
    StrategyContext c;
    c.family = &family;
    c.problem = s->problem;
    c.target.sm_count = s->sm_count;
    c.target.arch_specific = true;
    for (const StoredConfig& sc : s->configs)
      c.candidates.push_back({sc.config, sc.name, {}, family.predict(sc.config, c.target.limits, s->problem)});
    // The whole space, so that every strategy runs until it has found each gap's config. A
    // strategy that reads no budget (random) then proposes the whole space in a seeded order.
    if (info->reads_history) c.budget = static_cast<int>(c.candidates.size());
    if (info->reads_history) {
      c.history = training_rows(sweeps, s->family, [&](const StoredSweep& t) {
        if (o.holdout == "problem") return t.problem == s->problem;
        if (o.holdout == "shape") return t.problem.m == s->problem.m && t.problem.n == s->problem.n && t.problem.k == s->problem.k;
        return &t == s;
      });
      c.trained = fit_history(family, c.history, c.target);
    }
    const double best = *s->best_ms();
    const std::size_t n = s->configs.size();
    const std::size_t allowed = static_cast<std::size_t>(std::floor(kReplayBarSpace * static_cast<double>(n)));
    std::vector<double> evals[std::size(kReplayGaps)];
    std::size_t within = 0;
    for (int seed = 1; seed <= o.seeds; ++seed) {
      c.seed = static_cast<std::uint64_t>(seed);
      const SeedResult r = replay_once(*info, c, *s, best);
      for (std::size_t g = 0; g < std::size(kReplayGaps); ++g) {
        const double e = r.evals[g] ? static_cast<double>(r.evals[g]) : static_cast<double>(n + 1);
        evals[g].push_back(e);
        all_fraction[g].push_back(e / static_cast<double>(n));
      }
      const std::size_t two = r.evals[1];
      within += two && two <= std::max<std::size_t>(allowed, 1);
    }
    pairs += static_cast<std::size_t>(o.seeds);
    pairs_passing += within;
    const bool passes = static_cast<double>(within) >= kReplayBarSweeps * o.seeds;
    sweeps_passing += passes;
    out << "| " << s->key() << " (" << s->protocol << ") | " << n << " | " << allowed << " | "
        << fmt("%.0f", median(evals[0])) << " / " << fmt("%.0f", median(evals[1])) << " / "
        << fmt("%.0f", median(evals[2])) << " | " << within << "/" << o.seeds << " |\n";
    out.flush();
  }
  out << "\n## Overall\n\n"
      << "- sweeps where at least 90% of seeds came within 2% of the exhaustive best with at most 5% of the space: "
      << sweeps_passing << " of " << replayed.size() << " ("
      << fmt("%.0f", 100.0 * static_cast<double>(sweeps_passing) / static_cast<double>(replayed.size())) << "%)\n"
      << "- sweep × seed pairs within 2% with at most 5% of the space: " << pairs_passing << " of " << pairs << " ("
      << fmt("%.1f", 100.0 * static_cast<double>(pairs_passing) / static_cast<double>(pairs)) << "%)\n";
  for (std::size_t g = 0; g < std::size(kReplayGaps); ++g) {
    std::vector<double>& f = all_fraction[g];
    std::sort(f.begin(), f.end());
    out << "- share of the space evaluated to come within " << fmt("%.0f", kReplayGaps[g] * 100)
        << "%: median " << fmt("%.1f%%", 100 * median(f)) << ", 90th percentile "
        << fmt("%.1f%%", 100 * f[static_cast<std::size_t>(0.9 * static_cast<double>(f.size() - 1))]) << ", worst "
        << fmt("%.1f%%", 100 * f.back()) << "\n";
  }
  return 0;
}

}  // namespace coalesce::tuner
