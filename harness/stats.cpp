// Sample statistics and the stopping rule (see stats.hpp).
#include "stats.hpp"

#include <algorithm>
#include <cmath>

namespace coalesce {

double percentile(const std::vector<double>& sorted, double q) {
  const double rank = q * static_cast<double>(sorted.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(std::floor(rank));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = rank - static_cast<double>(lo);
  return sorted[lo] + frac * (sorted[hi] - sorted[lo]);
}

SampleStats summarize(std::vector<double> samples) {
  SampleStats s;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  s.count = static_cast<int>(samples.size());
  s.min = samples.front();
  s.max = samples.back();
  s.median = percentile(samples, 0.5);
  s.p10 = percentile(samples, 0.1);
  s.p90 = percentile(samples, 0.9);
  double sum = 0;
  for (double x : samples) sum += x;
  s.mean = sum / s.count;
  double sq = 0;
  for (double x : samples) sq += (x - s.mean) * (x - s.mean);
  s.stdev = s.count > 1 ? std::sqrt(sq / (s.count - 1)) : 0.0;
  s.rel_spread = s.median > 0 ? (s.p90 - s.p10) / s.median : 0.0;
  s.rel_std_error = s.mean > 0 ? s.stdev / (s.mean * std::sqrt(static_cast<double>(s.count))) : 0.0;
  return s;
}

std::string_view to_string(StopReason r) {
  switch (r) {
    case StopReason::converged: return "converged";
    case StopReason::budget: return "budget";
    case StopReason::max_samples: return "max_samples";
  }
  return "?";
}

std::optional<StopReason> should_stop(const StoppingRule& rule, const SampleStats& stats,
                                      double elapsed_ms) {
  if (stats.count < rule.min_samples) return std::nullopt;
  if (stats.count >= rule.max_samples) return StopReason::max_samples;
  if (stats.rel_std_error < rule.max_rel_std_error) return StopReason::converged;
  if (elapsed_ms >= rule.budget_ms) return StopReason::budget;
  return std::nullopt;
}

}  // namespace coalesce
