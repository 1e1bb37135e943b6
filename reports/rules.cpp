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

int extra_c_passes(std::string_view method, std::string_view epilogue) {
  if (epilogue == "none") return 0;
  if (method == "eager") return epilogue == "bias" ? 2 : 4;
  if (method == "unfused") return 2;
  return 0;
}

std::optional<double> copy_bandwidth_bytes_per_s(std::string_view device_name) {
  // H200: 4.3 TB/s device-to-device copy (cudaMemcpy of a buffer far larger than L2), measured
  // on the H200 the committed results come from; docs/kernels.md ("Memory floor") derives the
  // memory floor of a 4096³ GEMM from it. Add a model here once its copy bandwidth is measured.
  if (device_name.find("H200") != std::string_view::npos) return 4.3e12;
  return std::nullopt;
}

double geometric_mean(const std::vector<double>& ratios) {
  double log_sum = 0;
  for (double r : ratios) log_sum += std::log(r);
  return std::exp(log_sum / static_cast<double>(ratios.size()));
}

}  // namespace coalesce::report
