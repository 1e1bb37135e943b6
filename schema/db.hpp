// coalesce_db: the results database (SQLite) that coalesce-tune writes and coalesce-report
// reads. Tables, statuses and views are documented in docs/database.md; the SQL is in
// schema/migrations/.
//
// Opening checks the file before anything is written: a file that is not a Coalesce database,
// or one written by a newer schema, is refused with one sentence naming the path and is left
// untouched. A read-write open takes the writer lease (one writer per database, see lease.hpp),
// switches to WAL so reports can read while a sweep writes, and applies pending migrations.
// Every write helper is one statement, committed when it returns (one transaction per row), so
// a killed sweep loses at most the row it was measuring.
//
// A Database may be shared between threads: each call holds an internal lock, and
// in_transaction() holds it for the whole callback.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "kernels/core/limits.hpp"
#include "kernels/core/problem.hpp"
#include "schema/vocabulary.hpp"

namespace coalesce::db {

/// Every failure of the results database: one sentence that names the file.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
/// The file exists but is not a Coalesce database (not SQLite, or another application's).
class NotCoalesceDatabase : public Error {
 public:
  using Error::Error;
};
/// The database was written by a newer schema than this binary knows.
class NewerSchema : public Error {
 public:
  using Error::Error;
};
/// Another process (or another Database in this one) holds the writer lease.
class WriterBusy : public Error {
 public:
  using Error::Error;
};
/// A statement given to query() would write, or more than one statement was given.
class QueryRefused : public Error {
 public:
  using Error::Error;
};

/// `PRAGMA application_id` of every Coalesce database: 'Coal' in ASCII.
inline constexpr std::int32_t kApplicationId = 0x436f616c;

/// One schema migration: the embedded file `NNNN_<name>.sql` is version NNNN.
struct Migration {
  int version;
  std::string_view name;  ///< file name, e.g. "0001_init.sql"
  std::string_view sql;
};

/// The migrations built into this binary, versions 1..N in order (checked at first use).
std::span<const Migration> builtin_migrations();

/// The schema version this binary writes: the highest built-in migration.
int latest_schema_version();

/// Why SQLite could not read the file at `path`, given the extended result code `rc` of the
/// failure, as one sentence naming the file and saying what to do, or "" when `rc` says nothing
/// about the file itself. Told apart: a database left mid-write by a killed writer (a hot
/// journal beside it, which a read-only connection cannot roll back), a file shorter than its
/// header says (truncated), and a file that is not SQLite at all. Shared by every tool that
/// opens a database, the compiler's tuning database included.
std::string unreadable_reason(const std::filesystem::path& path, int rc);

/// A sentence saying the file at `path` is truncated (an SQLite header whose page count and page
/// size promise more bytes than the file holds), or "" when it is not, or cannot tell.
std::string truncation_of(const std::filesystem::path& path);

/// The schema version of the Coalesce database at `path`, read without writing a byte. Throws
/// what a read-only open() throws for a file that is missing, empty, not a Coalesce database or
/// of a newer schema; an older version is returned, not refused.
int schema_version_of(const std::filesystem::path& path);

/// Copies the database at `from` into the new file `to` with SQLite's online backup, reading
/// `from` read-only (a consistent snapshot even while a writer commits). Checks `from` as
/// schema_version_of() does and returns its version; `to` must not exist.
int copy_database(const std::filesystem::path& from, const std::filesystem::path& to);

/// A private copy of the database at `source` in the temporary directory, migrated to the
/// current schema, removed with its side files at scope exit: what lets a tool read an older
/// schema (merge's inputs; record-profile's checks before it migrates the file) without writing
/// a byte of `source`. Throws what copy_database() throws, or Error when the copy cannot be
/// migrated.
class MigratedCopy {
 public:
  explicit MigratedCopy(const std::filesystem::path& source);
  MigratedCopy(const MigratedCopy&) = delete;
  MigratedCopy& operator=(const MigratedCopy&) = delete;
  ~MigratedCopy();

  const std::filesystem::path& path() const { return path_; }
  /// The schema version of `source`, before the migration.
  int source_version() const { return source_version_; }

 private:
  void remove_files() const;
  std::filesystem::path path_;
  int source_version_ = 0;
};

enum class Mode {
  read_write,  ///< creates the file if missing, takes the writer lease, migrates
  read_only,   ///< SQLITE_OPEN_READONLY and `query_only`; the file must exist and be current
};

using DeviceId = std::int64_t;
using RunId = std::int64_t;
using ProblemId = std::int64_t;
using ConfigId = std::int64_t;
using BuildId = std::int64_t;
using MeasurementId = std::int64_t;
using ProfileId = std::int64_t;

/// A value read from or bound to SQL: NULL, INTEGER, REAL or TEXT.
using Value = std::variant<std::monostate, std::int64_t, double, std::string>;

/// The rows of one query, with its column names.
struct ResultSet {
  std::vector<std::string> columns;
  std::vector<std::vector<Value>> rows;
};

/// A GPU as stored in `devices`; schema/rows.hpp fills one from the harness' DeviceInfo.
struct DeviceRow {
  std::string uuid;  ///< the identity of the device
  std::string name;
  std::string arch;  ///< e.g. "sm_90"
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  std::int64_t l2_bytes = 0;
  std::int64_t global_mem_bytes = 0;
  int max_sm_clock_mhz = 0;   ///< 0 = unknown (no NVML); an update never replaces a known clock by 0
  int fp32_lanes_per_sm = 0;  ///< fp32_lanes_per_sm(cc) below; 0 = unknown
  DeviceLimits limits;
};

/// FP32 FMA units per SM for a compute capability (128 on sm_90), 0 when not in the table.
/// With the max SM clock it gives the FP32 peak: SMs × lanes × 2 FLOP × clock.
int fp32_lanes_per_sm(int cc_major, int cc_minor);

/// What a run records about its environment (the `runs` table).
struct RunInfo {
  std::optional<DeviceId> device;  ///< empty for a run that uses no GPU (--dry-run)
  std::string resume_key;          ///< equal keys = the same sweep invoked again (find_unfinished_run)
  std::string tool;                ///< e.g. "coalesce-tune"
  std::string tool_version;        ///< COALESCE_VERSION
  std::string git_revision;        ///< COALESCE_GIT_REVISION
  std::string command_line;
  std::string host;
  int driver_version = 0;     ///< cudaDriverGetVersion
  std::string driver_release; ///< NVML's driver string
  int runtime_version = 0;    ///< cudaRuntimeGetVersion
  std::string toolkit;        ///< NVRTC's version, e.g. "13.0"
  std::string harness_json = "{}";  ///< harness settings as a JSON object (samples, L2 flush, ...)
};

enum class RunStatus { running, completed, interrupted, failed };

/// A config as stored in `configs`; the same name with another source hash is another row.
struct ConfigRow {
  std::string family;       ///< "simt", "mma", "wgmma"
  std::string name;         ///< config_name(); e.g. simt_f32_bm128_..._bias_gelu
  std::string params_json;  ///< a JSON object of the tile parameters (kernels/core/family.hpp: params_json)
  std::string source_hash;  ///< hash of the emitted source; "" when pruned before emission
};

/// One compilation (`builds`). Figures are ptxas' own, read from the cubin (spills from its
/// log; docs/database.md says which column comes from where); predicted_* are the tuner's model.
struct BuildRow {
  ConfigId config = 0;
  std::string arch;     ///< e.g. "sm_90"
  std::string toolkit;  ///< e.g. "13.0"
  bool ok = false;      ///< false: compile failed, `log` says why (required then)
  std::optional<int> registers, spill_stores_bytes, spill_loads_bytes, stack_bytes;
  std::optional<int> smem_bytes;     ///< static + dynamic shared memory per block
  std::optional<int> threads;        ///< per block
  std::optional<int> blocks_per_sm;  ///< resident blocks per SM with the cubin's registers
  std::optional<int> predicted_registers, predicted_smem_bytes, predicted_blocks_per_sm;
  std::optional<double> compile_ms;
  int attempts = 1;  ///< NVRTC attempts: 2 when the first failed and the compile was retried alone
  std::string log;
};

std::string_view to_string(RunStatus s);

/// Order statistics of the timed samples, in milliseconds.
struct Timing {
  double median_ms = 0, min_ms = 0, max_ms = 0, p10_ms = 0, p90_ms = 0;
  int samples = 0;
};

/// One measured row. `method` is one of kMethods (vocabulary.hpp): tuned and peer methods
/// carry a config, baselines none; the schema itself accepts any lower-case identifier.
/// `timing` is required when status is ok and refused otherwise; `rel_err` and `max_abs_err`
/// are required when status is ok or wrong_result, except on a floor's row (read_b,
/// MethodKind::floor), which is never checked and carries none; `prune_reason` exactly when pruned
/// (violation_name(), e.g. "smem"). tflops (2·M·N·K / median) and rel_spread
/// ((p90 − p10) / median) are computed on insert.
struct MeasurementRow {
  RunId run = 0;
  DeviceId device = 0;
  ProblemId problem = 0;
  std::string method = "coalesce";
  std::optional<ConfigId> config;
  std::optional<BuildId> build;
  Status status = Status::ok;
  std::string prune_reason;
  std::optional<Timing> timing;
  std::optional<double> rel_err, max_abs_err;
  std::optional<double> max_scaled_err;  ///< the check's elementwise figure (harness/check.hpp)
  std::optional<int> sm_clock_before_mhz, sm_clock_after_mhz;
  std::optional<std::int64_t> grid_blocks;  ///< blocks launched (for the wave quantization)
  std::string message;                      ///< why it failed or was pruned, one sentence
  std::optional<std::int64_t> workspace_bytes;  ///< device memory beside A, B, bias, C (split-K)
};

/// What a profiler saw of one kernel (`profiles`, docs/database.md "Profiles"). `config` is set
/// for a tuned or peer method and empty for a library kernel; the figures are in the columns'
/// units (µs, MHz, %), each empty when the profiler's page lacked it.
struct ProfileRow {
  DeviceId device = 0;
  ProblemId problem = 0;
  std::string method = "coalesce";
  std::optional<ConfigId> config;
  std::string kernel;        ///< the kernel's name as the profiler saw it
  std::string tool = "ncu";
  std::string tool_version;  ///< "" = unknown
  std::optional<std::string> profiled_at;  ///< UTC, e.g. "2026-11-30T13:10:40Z"; empty = unknown
  std::optional<double> duration_us, sm_clock_mhz, tensor_pipe_active_pct, achieved_occupancy_pct;
  std::optional<int> registers;       ///< per thread, as launched
  std::string metrics_json = "{}";    ///< every metric of the page: name -> number or text
  std::string units_json = "{}";      ///< name -> unit, for the metrics that have one
};

/// The best ok config of a family on a device for a problem (the compiler's "apply history
/// best" and the tuner's progress line).
struct BestConfig {
  ConfigId config = 0;
  std::string name;
  std::string params_json;
  double median_ms = 0;
  RunId run = 0;
  std::string protocol;  ///< the timing protocol of its run (measurements.protocol)
};

/// An open results database. Move-only; closing releases the writer lease.
class Database {
 public:
  /// Opens `path` with the built-in migrations. Throws Error (or a subclass) with one sentence
  /// naming the path; on every refusal the file is left as it was.
  static Database open(const std::filesystem::path& path, Mode mode);
  /// The same with another migration list (tests exercise failing and newer migrations).
  static Database open(const std::filesystem::path& path, Mode mode,
                       std::span<const Migration> migrations);

  Database(Database&&) noexcept;
  Database& operator=(Database&&) noexcept;
  ~Database();

  const std::filesystem::path& path() const;
  Mode mode() const;
  int schema_version() const;

  // --- writing (read_write only; each call is committed when it returns) ---------------------

  /// Inserts the device or updates the row with the same uuid; returns its id.
  DeviceId upsert_device(const DeviceRow& device);
  /// Starts a run with status 'running' and started_at = now.
  RunId begin_run(const RunInfo& run);
  /// The latest run with this resume key (and device) that did not complete, if any. Holding
  /// the writer lease, such a run is one that was interrupted (opening marks 'running' runs
  /// 'interrupted': their writer is gone).
  std::optional<RunId> find_unfinished_run(std::string_view resume_key,
                                           std::optional<DeviceId> device) const;
  /// Continues an unfinished run: status 'running' again, `resumed` + 1, ended_at cleared.
  void resume_run(RunId run);
  /// Sets the run's final status and ended_at = now.
  void end_run(RunId run, RunStatus status);
  /// Returns the id of the problem, inserting it if new.
  ProblemId upsert_problem(const Problem& problem);
  /// Returns the id of (name, source_hash), inserting it if new; throws if a row with that key
  /// has another family or parameters.
  ConfigId upsert_config(const ConfigRow& config);
  /// Inserts or replaces the build of (config, arch, toolkit); returns its id.
  BuildId upsert_build(const BuildRow& build);
  /// Stores one row in its own transaction. Returns its id, or nullopt when the row's key was
  /// already stored (a config once per device × problem × method; a baseline once per run).
  /// Throws Error when the row breaks a rule above (the message quotes SQLite's check).
  std::optional<MeasurementId> insert_measurement(const MeasurementRow& row);
  /// Stores one profile in its own transaction. Returns its id, or nullopt when a profile of
  /// the same kernel, device, problem, method and config is stored already (`profiles_once`).
  /// Throws Error when the row breaks a rule of the schema (the message quotes SQLite's check).
  std::optional<ProfileId> insert_profile(const ProfileRow& row);
  /// Runs `body` in one transaction (committed when it returns, rolled back if it throws),
  /// e.g. a build and its measurement together. Other threads' calls wait meanwhile.
  void in_transaction(const std::function<void()>& body);
  /// Runs SQL that may write (fixtures, maintenance); several statements allowed.
  void exec(std::string_view sql);

  // --- reading ---------------------------------------------------------------------------------

  /// Resume: whether `config` was already measured with `method` on this device for this problem
  /// (any run, any status: a pruned or failed row counts, it is not retried), in the given timing
  /// protocol (measurements.protocol) or, without one, in any.
  bool measured(DeviceId device, ProblemId problem, ConfigId config, std::string_view method = "coalesce",
                std::optional<std::string> protocol = std::nullopt) const;
  /// Resume of baselines: whether this run already has a row of the baseline `method`.
  bool baseline_measured(RunId run, DeviceId device, ProblemId problem,
                         std::string_view method) const;
  /// The device with this uuid, if stored; a full 40-character UUID also finds the row of its
  /// 39-character form, which harness/device.cpp wrote until 2026-11-29.
  std::optional<DeviceId> find_device(std::string_view uuid) const;
  /// The first-ranked ok `coalesce` row of `family` on `device` for `problem`, if any (v_best):
  /// with `protocol`, the fastest timed in that protocol; without, the fastest of the most
  /// preferred protocol that has one (protocols.preference: the shared protocol first).
  std::optional<BestConfig> best_config(DeviceId device, const Problem& problem, std::string_view family,
                                        std::optional<std::string> protocol = std::nullopt) const;
  /// Runs ONE read-only statement with `params` bound to ?1, ?2, ...; throws QueryRefused for a
  /// statement that would write or for more than one statement, Error for invalid SQL.
  ResultSet query(std::string_view sql, const std::vector<Value>& params = {}) const;
  /// As query(), but each row goes to `on_row` as it is stepped (after `on_columns` once), so a
  /// long result is never held in memory (`coalesce-report query`).
  void query_each(std::string_view sql, const std::vector<Value>& params,
                  const std::function<void(const std::vector<std::string>&)>& on_columns,
                  const std::function<void(const std::vector<Value>&)>& on_row) const;

 private:
  struct Impl;
  explicit Database(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Value helpers: NULL test and conversions (an INTEGER reads as a double; NULL throws).
bool is_null(const Value& v);
std::int64_t as_int(const Value& v);
double as_double(const Value& v);
std::string as_text(const Value& v);  ///< NULL -> "", numbers as SQLite prints them

}  // namespace coalesce::db
