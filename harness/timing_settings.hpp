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

/// A --seed: a whole number from 0 to 2^64 - 1 in decimal digits only; nothing for a sign, a
/// fraction or a number out of range (which strtoull would wrap or clamp in silence).
inline std::optional<unsigned long long> parse_seed(std::string_view text) {
  if (text.empty() || text.size() > 20 || text.find_first_not_of("0123456789") != std::string_view::npos)
    return std::nullopt;
  unsigned long long value = 0;
  for (char c : text) {
    const unsigned digit = static_cast<unsigned>(c - '0');
    if (value > (~0ULL - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}
inline constexpr const char* kSeedRange = "a whole number from 0 to 18446744073709551615";

/// A run samples in the steady state when every method was timed at least this many times: a
/// second or more of work per large kernel, long enough for the GPU to settle at the clocks and
/// power it holds under load (docs/tuner.md, "The steady state"; the steady_b2b and steady_spin
/// protocols).
inline constexpr int kSteadyStateMinSamples = 1000;

/// The GPU spin before each sample by default (`--spin-cycles`), in SM clock cycles: about
/// 250 µs at the H200's 1.98 GHz, longer than a Python peer takes to enqueue its launch
/// (scripts/torch_peers.py DEFAULT_SPIN_CYCLES; docs/tuner.md, "The timing protocol").
inline constexpr long long kDefaultSpinCycles = 500000;

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
  /// SM clock cycles of a GPU spin (a one-thread kernel) enqueued after the L2 flush and before
  /// each sample's start event (stored as "spin_cycles" only when above 0). The window then opens
  /// on a GPU that is busy while the host enqueues the launch, so no host time reaches a sample;
  /// the Python peers need it, and every method of a comparison is timed the same way
  /// (docs/tuner.md, "The timing protocol"). 0 times each sample right behind the flush.
  long long spin_cycles = 0;
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

/// The timing protocol a run of these settings is stored under (schema/migrations/0008_protocol.sql,
/// v_run_protocols, states the same rule over a run's stored settings): flush_rested with a sample
/// gap; with a spin steady_spin (at least kSteadyStateMinSamples) or flush_spin; back to back
/// steady_b2b or flush_b2b.
inline std::string protocol_of(const TimingSettings& s) {
  const bool steady = s.min_samples >= kSteadyStateMinSamples;
  if (s.sample_gap_ms > 0) return "flush_rested";
  if (s.spin_cycles > 0) return steady ? "steady_spin" : "flush_spin";
  return steady ? "steady_b2b" : "flush_b2b";
}

/// Whether the settings sample in the steady state (kSteadyStateMinSamples or more, no rest): the
/// protocols steady_spin and steady_b2b (protocols.steady, measurements.steady_state), which
/// --steady-top times a sweep's fastest in.
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
  if (s.spin_cycles > 0) j["spin_cycles"] = s.spin_cycles;
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
  // torch_peers.py named the spin so before schema 8; v_run_protocols reads either name.
  if (!j.contains("spin_cycles")) read("gpu_spin_cycles_before_each_sample", s.spin_cycles);
  read("spin_cycles", s.spin_cycles);
  if (j.contains("l2_flush")) {
    const auto mode = parse_l2_flush_mode(j.at("l2_flush").get<std::string>());
    if (!mode) throw std::invalid_argument("l2_flush must be \"write\" or \"read\"");
    s.l2_flush = *mode;
  }
}

}  // namespace coalesce
