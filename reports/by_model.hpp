// The report by GPU model (`coalesce-report`, docs/reports.md "The report by GPU model"): per
// model, dtype and problem the best checked fused kernel any device of the model measured, within
// one timing protocol, beside the library baselines of its run and the peers of its sitting.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "report.hpp"

namespace coalesce::report {

/// Devices of one model (same_model_sql's rule: name, architecture, SM count and a known max SM
/// clock); a device whose clock is unknown is a model of its own.
struct GpuModel {
  std::string key;    ///< model_key_sql's value
  std::string name;   ///< "NVIDIA H200"
  std::string arch;
  int sm_count = 0;
  int max_sm_clock_mhz = 0;
  std::int64_t memory_bytes = 0;  ///< the smallest of its devices' (ECC mode changes it)
  std::vector<std::int64_t> device_ids;  ///< ascending
  /// "NVIDIA H200 · 132 SMs · 140 GiB · 1980 MHz"
  std::string label() const;
  /// A file-name form of the model, unique among `all`: "nvidia-h200", or with its SMs and clock
  /// where two models share a name ("nvidia-h200-132sm-1980mhz").
  std::string slug(const std::vector<GpuModel>& all) const;
};

/// An SQL expression of the model of the `devices` row aliased `alias`: equal for two devices
/// exactly when same_model_sql holds for them (or they are one device).
std::string model_key_sql(const std::string& alias);

/// The models of the devices that hold a row passing `f`, in the order of their lowest device id.
std::vector<GpuModel> gpu_models(const db::Database& db, const Filters& f);

/// Two runs on one device and in one protocol are of one sitting when at most this many hours lie
/// between them (from the end of one to the start of the other; a run without an end counts from
/// its start). A GPU lease here ends after 30 minutes and the longest stretch of runs one device
/// holds in results/coalesce.db is 12 minutes, so two hours joins a sweep and the peers run after
/// it in the same session, and never another session (another day, driver or GPU state).
inline constexpr double kSittingGapHours = 2.0;

/// An SQL condition: the runs aliased `a` and `b` are of one sitting (one device, at most
/// kSittingGapHours apart); the protocol is the rows' to compare.
std::string sitting_sql(const std::string& a, const std::string& b);

/// One method beside a fused row: a baseline of its run or a peer of its sitting.
struct Alternative {
  std::string method;
  std::string config;  ///< the peer's config name; empty for a baseline
  std::int64_t run = 0;
  std::string status;
  std::optional<double> median_ms, p10_ms, p90_ms, tflops;
  /// Computes the whole problem (a baseline that is a library path, or a peer), so it can be the
  /// fastest alternative; cuBLAS GEMM alone is one only where the epilogue is none.
  bool whole_problem = false;
};

/// Per model, problem and protocol: the best ok fused row of any device of the model.
struct ModelEntry {
  std::size_t model = 0;  ///< index into the models
  std::string protocol;   ///< measurements.protocol (schema 8)
  int protocol_preference = 0;  ///< protocols.preference: 1 is the most preferred
  std::int64_t problem_id = 0;
  int m = 0, n = 0, k = 0;
  std::string dtype, epilogue;
  std::string family, config;
  std::int64_t run = 0, device_id = 0, measurement_id = 0;
  double median_ms = 0, p10_ms = 0, p90_ms = 0;
  std::optional<double> tflops, peak_tflops;
  /// The baselines of its run (cublas_gemm, eager, unfused, cublaslt_fused), then the peers of
  /// its sitting (torch_eager, torch_compile, triton), in the vocabulary's method order.
  std::vector<Alternative> alternatives;
  /// The run's `read_b` floor, where it measured one (the skinny-M figures draw it).
  std::optional<double> floor_ms;

  /// The fastest ok alternative that computes the whole problem, or nullptr.
  const Alternative* fastest_alternative() const;
  /// Its median ÷ the fused median (above 1: the fused kernel is faster).
  std::optional<double> speedup() const;
};

/// Every ModelEntry of `db` within `f`, ordered by model, dtype (the vocabulary's order),
/// problem (as the history orders them) and protocol (most preferred first). The peers of a sitting: per peer method,
/// its fastest ok row of the problem among the runs of the sitting (the fused row's device and
/// protocol, within kSittingGapHours), else its latest failure there; none with `f.run`.
std::vector<ModelEntry> model_entries(const db::Database& db, const Filters& f, const std::vector<GpuModel>& models);

/// The entries the answer and the figures take: per model and problem, the entry of the most
/// preferred protocol measured (protocols.preference), as the compiler's pick and the history
/// take one answer across protocols.
std::vector<const ModelEntry*> answer_entries(const std::vector<ModelEntry>& entries);

/// The report by GPU model: tables answer, by_model, models and runs (docs/reports.md).
Document build_model_report(const db::Database& db, const Filters& f, const std::string& database);

}  // namespace coalesce::report
