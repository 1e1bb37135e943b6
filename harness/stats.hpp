// Summary statistics of timing samples and the stopping rule of the cold measurement. Pure host
// code, unit-tested on synthetic samples.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace coalesce {

/// What a set of samples (milliseconds) is reported as.
struct SampleStats {
  int count = 0;
  double median = 0, min = 0, max = 0, p10 = 0, p90 = 0;
  double mean = 0, stdev = 0;  ///< stdev with Bessel's correction (0 for one sample)
  double rel_spread = 0;       ///< (p90 - p10) / median
  double rel_std_error = 0;    ///< stdev / (mean · sqrt(count)): the mean's relative uncertainty
};

/// The q-quantile (0 ≤ q ≤ 1) of ascending `sorted` samples, interpolating linearly between the
/// two closest ranks (NumPy's default); `sorted` must not be empty.
double percentile(const std::vector<double>& sorted, double q);

/// The statistics of `samples` (any order); all zero when it is empty.
SampleStats summarize(std::vector<double> samples);

/// Why sampling ended.
enum class StopReason { converged, budget, max_samples };
std::string_view to_string(StopReason r);

/// The stopping rule's constants; see TimingSettings for why each has its value.
struct StoppingRule {
  int min_samples;
  int max_samples;
  double max_rel_std_error;
  double budget_ms;
};

/// Whether to stop after `stats` were taken in `elapsed_ms` of wall time: never below
/// min_samples; then when the mean is known to max_rel_std_error, the wall-time budget is spent,
/// or max_samples is reached.
std::optional<StopReason> should_stop(const StoppingRule& rule, const SampleStats& stats,
                                      double elapsed_ms);

}  // namespace coalesce
