// The measuring worker: a child process (this binary's hidden `worker` sub-command) that owns
// the CUDA context, checks and times one kernel at a time, and answers over pipes in JSON
// lines. A kernel that faults leaves its context unusable and a hung one never returns; either
// way only the worker is lost: the sweep records the row and starts a fresh worker.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "harness/timing_settings.hpp"
#include "kernels/core/family.hpp"

namespace coalesce::tuner {

/// What became of one measurement request, as the database stores it.
struct Outcome {
  std::string status;  ///< ok | wrong_result | launch_failed | timeout
  std::string detail;  ///< why it is not ok, one sentence (or the CUDA error)
  std::optional<double> rel_err, max_abs_err;  ///< the check, for ok and wrong_result (none for a floor)
  std::optional<double> max_scaled_err;         ///< the check's elementwise figure
  std::optional<double> median_ms, min_ms, max_ms, p10_ms, p90_ms;
  int samples = 0;
  std::optional<int> sm_clock_before_mhz, sm_clock_after_mhz;
  std::optional<std::int64_t> grid_blocks;
  std::optional<std::int64_t> workspace_bytes;  ///< split-K's partials (0: none)
  std::optional<int> driver_registers;  ///< cudaFuncGetAttributes' numRegs (cubin kernels)
  bool ok() const { return status == "ok"; }
};

/// Reads an outcome from a worker's reply; a reply without a known status is launch_failed.
Outcome outcome_from_json(const nlohmann::json& reply);

/// The problem a worker prepares its buffers and reference for.
struct WorkerSetup {
  int device = 0;
  Problem problem;
  std::uint64_t seed = 1;  ///< first input seed; each measurement draws fresh inputs after it
  TimingSettings timing;  ///< how each kernel is timed (harness/timing.hpp)
};

/// The parent's handle on the worker process: starts it on first use, replays the setup after
/// a restart, and turns a death or a missed deadline into an Outcome.
class WorkerProcess {
 public:
  /// `exe` is this binary (started as `exe worker`); `timeout_s` bounds every request.
  WorkerProcess(std::filesystem::path exe, double timeout_s);
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  /// Makes `setup` the worker's problem (buffers, random inputs, fp64 reference). Throws
  /// std::runtime_error with the worker's reason when it cannot set up, even after a restart.
  void setup(const WorkerSetup& setup);

  /// Checks and times a baseline (`cublas_gemm`, `eager`, `unfused`, `cublaslt_fused`), or times
  /// the floor `read_b`, which is not checked (its outcome has no error figures). nullopt when
  /// the baseline does not exist here (cuBLASLt offers no algorithm).
  std::optional<Outcome> baseline(const std::string& method, std::string* why_not);

  /// Checks and times the cubin kernel `symbol` of `config` with the problem's epilogue.
  Outcome kernel(const std::filesystem::path& cubin, const std::string& symbol, const Config& config);

  /// Checks and times `symbol` (the config's GEMM with the epilogue `none`) followed by the
  /// separate bias+activation kernel of the problem's epilogue: the winner, unfused.
  Outcome kernel_then_epilogue(const std::filesystem::path& cubin, const std::string& symbol,
                               const Config& config);

  /// Worker processes started so far (1 + restarts).
  int starts() const { return starts_; }

 private:
  /// Sets the worker up first when it is fresh, then exchanges `req`.
  nlohmann::json request(const nlohmann::json& req);
  /// One request and its answer within `timeout_s`, or a synthesized timeout / launch_failed
  /// when it never comes.
  nlohmann::json exchange(const nlohmann::json& req, double timeout_s);
  void start();
  void stop();
  std::filesystem::path exe_;
  double timeout_s_;
  pid_t pid_ = -1;
  int to_worker_ = -1, from_worker_ = -1;
  std::string buffered_;
  std::optional<WorkerSetup> setup_;
  bool ready_ = false;  ///< the running worker holds setup_
  int starts_ = 0;
};

/// The child: serves requests on stdin/stdout until stdin closes. Returns the exit status.
int run_worker();

}  // namespace coalesce::tuner
