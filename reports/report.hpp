// The report over a results database: the best config of each family against every baseline,
// wave quantization, top configs, how the others were pruned or failed, then the environment. The
// diff of two databases and the plot data use the same filters and the same noise rule.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rules.hpp"
#include "schema/db.hpp"
#include "table.hpp"
#include "tuner/workload.hpp"

namespace coalesce::report {

/// A GEMM shape from `--shape`: "N" (M = N = K) or "MxNxK" (also "M×N×K", as reports print it).
struct Shape {
  int m = 0, n = 0, k = 0;
};
/// The shape `text` names (coalesce::parse_extents), or nullopt with `error` saying what is
/// expected.
std::optional<Shape> parse_shape(std::string_view text, std::string* error = nullptr);

/// How `--device` reads its value: digits are a device id (never part of a name), `GPU-...` a
/// UUID (the full one; it also finds the 39-character form older databases stored), anything else
/// part of the device name (every device of that model).
enum class DeviceKey { id, uuid, name };
DeviceKey device_key_kind(std::string_view key);

/// Which rows a report, diff or plot covers; empty fields match everything.
struct Filters {
  std::string device;    ///< a device id, its UUID, or part of its name (device_key_kind)
  std::string dtype;     ///< f32, tf32, bf16
  std::string epilogue;  ///< none, bias, bias_relu, bias_gelu
  std::string family;    ///< simt, mma, wgmma, ...
  std::vector<Shape> shapes;
  std::optional<std::int64_t> run;

  /// Throws std::invalid_argument for an unknown dtype or epilogue.
  void validate() const;
  /// The filters as command-line options, or "none".
  std::string describe() const;
};

/// True when some measurement of `db` passes the filters (every database does without filters).
bool matches_any(const db::Database& db, const Filters& f);

/// A WHERE clause over v_measurements aliased `alias`, with its parameters.
struct SqlFilter {
  std::string where;
  std::vector<Value> params;
};
SqlFilter filter_sql(const Filters& f, const std::string& alias);

/// Where the comparison looks for the peers of scripts/torch_peers.py (torch_eager,
/// torch_compile, triton), which are measured in runs of their own.
enum class PeerScope {
  same_device,  ///< only the device of the fused row (the default)
  /// `--same-model`: that device first; for a peer it never measured on the problem, the other
  /// devices of its model (same_model_devices), each such row marked as cross-device
  same_model,
};

/// The rule of `--same-model`, as an SQL condition on two rows of `devices` aliased `a` and `b`:
/// the same name, architecture, SM count and max SM clock, and the clock known (above 0).
std::string same_model_sql(const std::string& a, const std::string& b);

/// The devices of `db` of the same model as `device_id` by same_model_sql, itself included, in id
/// order (only itself when its clock is unknown).
std::vector<std::int64_t> same_model_devices(const db::Database& db, std::int64_t device_id);

/// One line of the comparison: the best row of a family, or a row of its run to compare with.
struct ComparisonEntry {
  std::int64_t device_id = 0;
  std::string device;
  std::optional<double> peak_tflops;  ///< the peak of the dtype's math on the device, when known
  std::int64_t problem_id = 0;
  int m = 0, n = 0, k = 0;
  std::string dtype, epilogue, family;
  std::int64_t run = 0;
  std::string method;  ///< "coalesce" for the best row itself
  std::string config;
  std::int64_t config_id = 0;  ///< the family's best row's config
  std::string status;
  std::optional<double> median_ms, p10_ms, p90_ms, tflops;
  std::string message;
  double best_median_ms = 0, best_p10_ms = 0, best_p90_ms = 0;  ///< the family's best row
  std::int64_t measurement_id = 0;  ///< the family's best row's measurement
  /// The family's best row was timed in the steady state (measurements.steady_state), as the
  /// baselines of its run were.
  bool steady_state = false;
  /// The timing protocol of the family's best row and of its run's baselines (measurements.protocol),
  /// and its rank among protocols (protocols.preference, 1 = first): the best comes from the
  /// most preferred protocol measured (docs/tuner.md, "The timing protocol").
  std::string protocol;
  int protocol_preference = 0;
  /// A peer measured on another device of the model (PeerScope::same_model): that device's id
  /// and label, "NVIDIA H200 (device 2)"; 0 and empty for a row of this device.
  std::int64_t measured_on_id = 0;
  std::string measured_on;

  bool cross_device() const { return measured_on_id != 0; }
};

/// Per device × problem × family (within the filters): the best ok `coalesce` row, then every
/// configless row (baselines) of the same run but the floors (read_b: a bound, not a peer, shown
/// by m_sweep_table only) and the winner's `coalesce_unfused` row, then the
/// peers of scripts/torch_peers.py (torch_eager, torch_compile, triton) from their own runs:
/// for each, the latest run that measured it on this device and problem, its fastest ok row
/// there or else its first failure (none with `run` set: they are not of that run). With
/// PeerScope::same_model, a peer this device never measured on the problem comes from the latest
/// run of another device of its model that did, marked (ComparisonEntry::measured_on).
std::vector<ComparisonEntry> comparison_entries(const db::Database& db, const Filters& f,
                                                PeerScope peers = PeerScope::same_device);

/// Per (device id, problem id): the comparison block of the fastest family (a steady-state best
/// before any that is not, as v_ranked orders rows), as [begin, end) of
/// `entries` (its best row, then the rows of its run and the peers). The summary and the
/// workloads read each problem's methods from it.
using ProblemBlocks = std::map<std::pair<std::int64_t, std::int64_t>, std::pair<std::size_t, std::size_t>>;
ProblemBlocks fastest_family_blocks(const std::vector<ComparisonEntry>& entries);

/// One M of a throughput-against-M group (m_sweep_groups): the fastest family's best config on
/// the device and problem, as the summary picks it, and the other methods' times beside it.
struct MSweepPoint {
  int m = 0;
  std::int64_t problem_id = 0;
  std::int64_t run = 0;  ///< the fused row's run
  std::string family, config;
  double fused_ms = 0;
  struct Timed {
    double ms = 0;          ///< the median
    std::int64_t run = 0;   ///< the run it comes from
  };
  /// Each other method with an ok row: the baselines and coalesce_unfused of the fused row's run,
  /// the peers from the device's own latest runs (as the comparison takes them; never another
  /// device's).
  std::map<std::string, Timed> others;
  /// The B-read floor: the median of the fused row's run's ok `read_b` row; nullopt where that
  /// run measured none (runs before the floor existed, or a floor that failed).
  std::optional<double> floor_ms;
};

/// The problems of one device, dtype, epilogue, N and K with an ok fused row at several M.
struct MSweepGroup {
  std::int64_t device_id = 0;
  std::string device, dtype, epilogue;
  int n = 0, k = 0;
  std::vector<MSweepPoint> points;  ///< in ascending M
  /// With --same-model, a peer of another device of the model joined some problem's comparison:
  /// it is left out here (a group is one device), and the table says so.
  bool cross_device_peers_left_out = false;

  /// The bytes of B (K × N in the dtype's storage type): what read_b reads.
  double b_bytes() const;
};

/// A group needs this many distinct M: two points make a segment, not a trend against M.
inline constexpr std::size_t kMinSweepPoints = 3;

/// The throughput-against-M groups of `entries` (issue 12): per device, dtype, epilogue, N and K
/// (ordered so), the fastest family's block of each problem (fastest_family_blocks), one point
/// per M, kept when there are at least kMinSweepPoints; each point's floor is read from `db`.
std::vector<MSweepGroup> m_sweep_groups(const db::Database& db, const std::vector<ComparisonEntry>& entries);

/// The `m_sweep` table (docs/reports.md, "Throughput against M"): per group a markdown table,
/// one row per M: the best fused time (µs) and which family and config won, each other method's
/// time (µs; the peers' columns only where some group has one), fused % of cuBLAS GEMM's speed,
/// fused vs eager, and where the fused row's run measured read_b, the floor (µs), fused ÷ floor,
/// cuBLAS GEMM ÷ floor and B's bytes ÷ the floor (the measured bandwidth). No rows when no
/// group has enough M.
Table m_sweep_table(const std::vector<MSweepGroup>& groups);

/// An SQL expression naming the device of the row aliased `alias` (columns device_id and
/// device_name) for a reader: its name, or "NVIDIA H200 (device 2)" where the database holds
/// several devices of that name, so rows of two GPUs of one model are never merged.
std::string device_label_sql(const std::string& alias);

/// "1024×1024×1024 f32 bias_gelu"
std::string problem_label(int m, int n, int k, const std::string& dtype,
                          const std::string& epilogue);

struct ReportOptions {
  int top = 5;                ///< configs per device × problem × family in top_configs
  std::string database;       ///< the path as the user gave it (printed in the meta)
  std::vector<Workload> workloads;  ///< `--workload` files: their tables follow the summary
  PeerScope peers = PeerScope::same_device;  ///< `--same-model`: PeerScope::same_model
};

/// The whole report as a Document: tables summary, (with workloads: workloads and
/// workload_missing), (with problems at several M: m_sweep), comparison, (with a problem on
/// several devices: devices_side_by_side), why,
/// (with profiles stored: profiles), top_configs, outcomes, then the environment (runs, devices).
Document build_report(const db::Database& db, const Filters& f, const ReportOptions& options);

/// The `profiles` table (docs/reports.md, "Profiles"): per device × problem of `entries`, each
/// stored profile of a family's best config there, of a config measured there that no longer is
/// one, and of the library's kernels, each taken on that device or on another GPU of the same
/// model (then named in `profiled_on`), with the figures docs/journal/ quotes from Nsight
/// Compute. No rows when no profile matches.
Table profiles_table(const db::Database& db, const std::vector<ComparisonEntry>& entries, const Filters& f);

/// The tables of `--workload` (docs/reports.md, "Workloads"): `workloads`, per workload file,
/// device and dtype, each method's time for the whole workload (Σ over its lines of that
/// problem's median × count; a row per M and one for every line), and `workload_missing`, the
/// problems with no ok fused row there. A line's empty dtype takes each dtype in turn (only
/// `--dtype` with it), an empty epilogue `--epilogue` or bias_gelu; `--shape` does not narrow a
/// workload (its lines are its problems), the other filters apply.
std::vector<Table> workload_tables(const db::Database& db, const Filters& f, const std::vector<Workload>& workloads);

/// Options of `coalesce-report diff`.
struct DiffOptions {
  std::string a_label, b_label;  ///< the paths as given
  bool ignore_device = false;    ///< pair rows whatever their device (two GPUs, one each)
  bool all = false;              ///< list every compared row, not only those changed beyond noise
};

/// What changed from database A to B, per (device, problem, method, config) present in both
/// with an ok row in at least one; the latest row of each key counts. Tables: `summary` (the
/// counts and the geometric mean over every compared row), then `diff`: the rows faster or
/// slower beyond noise and those whose status changed (every compared row with `all`).
Document build_diff(const db::Database& a, const db::Database& b, const Filters& f,
                    const DiffOptions& options);

/// The rows of a diff that are slower beyond noise by more than `percent` (B/A above
/// 1 + percent / 100), each as "device problem method config (B/A 1.104)": what
/// `--fail-on-slower PCT` fails on.
std::vector<std::string> slower_by_more_than(const Document& diff, double percent);

}  // namespace coalesce::report
