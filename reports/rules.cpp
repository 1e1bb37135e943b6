// The report's judging rules (rules.hpp).
#include "rules.hpp"

#include <cmath>

namespace coalesce::report {

Verdict compare_spread(double p10, double p90, double other_p10, double other_p90) {
  if (p90 < other_p10) return Verdict::faster;
  if (other_p90 < p10) return Verdict::slower;
  return Verdict::same;
}

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::faster: return "faster";
    case Verdict::slower: return "slower";
    case Verdict::same: return "within noise";
  }
  return "?";
}

Waves wave_quantization(double blocks, double sm_count, double blocks_per_sm) {
  const double w = blocks / (sm_count * blocks_per_sm);
  const double frac = w - std::floor(w);
  return {w, frac == 0 ? 100.0 : frac * 100.0};
}

double geometric_mean(const std::vector<double>& ratios) {
  double log_sum = 0;
  for (double r : ratios) log_sum += std::log(r);
  return std::exp(log_sum / static_cast<double>(ratios.size()));
}

}  // namespace coalesce::report
