// The rules a report judges numbers by, apart from the SQL that feeds them, so each can be pinned
// at its boundaries by tests/unit/reports/rules_test.cpp.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace coalesce::report {

/// How one timing compares with another: only when the [p10, p90] intervals do not overlap is
/// one called faster or slower; otherwise (touching counts as overlap) the difference is within
/// the measured noise ("within noise").
enum class Verdict { faster, slower, same };
Verdict compare_spread(double p10, double p90, double other_p10, double other_p90);
std::string_view to_string(Verdict v);

/// A grid's wave quantization on one device.
struct Waves {
  double waves = 0;          ///< blocks ÷ (SMs × resident blocks per SM)
  double last_wave_pct = 0;  ///< how full the last wave is: 100 when the waves are whole
};
/// Precondition: sm_count × blocks_per_sm > 0.
Waves wave_quantization(double blocks, double sm_count, double blocks_per_sm);

/// How many times the kernels a method runs after its GEMM move C through memory, as
/// harness/baselines.cu runs them: each elementwise kernel reads C and writes it back (2 passes).
/// `eager` runs a bias add, then the activation (none: 0, bias: 2, bias_relu and bias_gelu: 4);
/// `unfused` one bias+activation kernel (none: 0, otherwise 2); any other method 0.
int extra_c_passes(std::string_view method, std::string_view epilogue);

/// The device-to-device copy bandwidth of a GPU model in bytes/s: the one constant of the
/// report's DRAM model of the epilogue's cost; nullopt for a model not measured here.
std::optional<double> copy_bandwidth_bytes_per_s(std::string_view device_name);

/// The geometric mean of ratios (the mean of speed-ups, as a ratio of 2 and one of 1/2 cancel);
/// precondition: not empty, every ratio positive.
double geometric_mean(const std::vector<double>& ratios);

}  // namespace coalesce::report
