// The settings a kernel is timed with (harness/timing.hpp's ColdTimer takes them), as data with
// their JSON form: no CUDA here, so the tuner's parent side (tuner/worker_process.cpp) passes
// them to its worker without linking the harness.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace coalesce {

/// How a sample's L2 flush evicts the cache (TimingSettings::l2_flush).
enum class L2FlushMode {
  /// Overwrite the flush buffer (cudaMemsetAsync, nvbench's l2flush): every line is evicted, and
  /// up to the whole L2 is left dirty, written back to memory while the timed kernel runs.
  write,
  /// Read the flush buffer (filled once): every line is evicted and the dirty ones written back
  /// during the flush, leaving L2 clean.
  read,
};
inline std::string_view to_string(L2FlushMode mode) { return mode == L2FlushMode::read ? "read" : "write"; }
inline std::optional<L2FlushMode> parse_l2_flush_mode(std::string_view name) {
  if (name == "write") return L2FlushMode::write;
  if (name == "read") return L2FlushMode::read;
  return std::nullopt;
}

/// A run is in the steady state when every method was timed at least this many times, back to
/// back (no sample gap): a second or more of work per large kernel, long enough for the GPU to
/// settle at the clocks and power it holds under load. The database's v_measurements.steady_state
/// (schema/migrations/0007_steady_state.sql) applies the same rule to a run's stored settings,
/// and its ranking puts those rows first (docs/tuner.md, "The steady state").
inline constexpr int kSteadyStateMinSamples = 1000;

/// The harness settings a measurement is stamped with (stored as JSON with every run).
struct TimingSettings {
  /// The flush buffer is this many times the device's L2: writing 2× L2 evicts every line of the
  /// previous sample's operands even with a partly set-associative replacement policy.
  double l2_flush_factor = 2.0;
  /// How the flush evicts L2 (stored as "l2_flush" only when it is not `write`, so the settings
  /// of every earlier run read back unchanged).
  L2FlushMode l2_flush = L2FlushMode::write;
  /// Milliseconds the GPU is left idle after each timed sample (stored as "sample_gap_ms" only
  /// when above 0). 0, the default, times the kernel as a loop of samples keeps it loaded; a gap
  /// of several milliseconds times each sample from a GPU that has just rested, as a profiler's
  /// serialized single launches do (docs/tuner.md, "Sustained and rested").
  double sample_gap_ms = 0;
  /// At least 20 samples, so p10 and p90 each rest on two or more samples beyond them.
  int min_samples = 20;
  /// A cap for kernels whose noise never settles (microsecond kernels): 1000 samples bound
  /// their cost to well under a second of GPU time.
  int max_samples = 1000;
  /// Stop once the mean is known to 0.5% (nvbench's default noise criterion): below the ~1-2%
  /// differences between configs the tuner must rank.
  double max_rel_std_error = 0.005;
  /// Wall-time budget per kernel once min_samples are in: slow teaching rungs at large shapes
  /// would otherwise take minutes.
  double budget_ms = 2000;
  /// GPU time of warm-up the first time a process measures: long enough for the SM clock to
  /// leave its idle state (it ramps within a few hundred ms on the H200).
  double first_warmup_ms = 1000;
  /// GPU time of warm-up before each later kernel: module load, instruction cache and TLBs.
  double warmup_ms = 50;
};

inline bool steady_state(const TimingSettings& s) {
  return s.min_samples >= kSteadyStateMinSamples && !(s.sample_gap_ms > 0);
}

inline void to_json(nlohmann::json& j, const TimingSettings& s) {
  j = nlohmann::json{{"l2_flush_factor", s.l2_flush_factor}, {"min_samples", s.min_samples},
                     {"max_samples", s.max_samples},         {"max_rel_std_error", s.max_rel_std_error},
                     {"budget_ms", s.budget_ms},             {"first_warmup_ms", s.first_warmup_ms},
                     {"warmup_ms", s.warmup_ms}};
  if (s.l2_flush != L2FlushMode::write) j["l2_flush"] = std::string(to_string(s.l2_flush));
  if (s.sample_gap_ms > 0) j["sample_gap_ms"] = s.sample_gap_ms;
}

/// Reads the fields present; absent ones keep their defaults; wrong types throw.
inline void from_json(const nlohmann::json& j, TimingSettings& s) {
  auto read = [&](const char* key, auto& field) {
    if (j.contains(key)) j.at(key).get_to(field);
  };
  read("l2_flush_factor", s.l2_flush_factor);
  read("min_samples", s.min_samples);
  read("max_samples", s.max_samples);
  read("max_rel_std_error", s.max_rel_std_error);
  read("budget_ms", s.budget_ms);
  read("first_warmup_ms", s.first_warmup_ms);
  read("warmup_ms", s.warmup_ms);
  read("sample_gap_ms", s.sample_gap_ms);
  if (j.contains("l2_flush")) {
    const auto mode = parse_l2_flush_mode(j.at("l2_flush").get<std::string>());
    if (!mode) throw std::invalid_argument("l2_flush must be \"write\" or \"read\"");
    s.l2_flush = *mode;
  }
}

}  // namespace coalesce
