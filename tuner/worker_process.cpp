// The parent's side of the worker (see worker.hpp): fork+exec, JSON lines over two pipes, a
// deadline on every answer, a restart after any loss, and the answers read as Outcomes. Needs no
// GPU: the tests drive it with a stand-in worker.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "worker.hpp"

#include "harness/device.hpp"

namespace coalesce::tuner {

using nlohmann::json;

namespace {

// Seconds a fresh worker may take to set a problem up.
constexpr double kSetupTimeoutS = 120;

std::string describe_exit(int status) {
  if (WIFSIGNALED(status)) return std::string("killed by signal ") + strsignal(WTERMSIG(status));
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "stopped";
}

template <class T>
std::optional<T> optional_field(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  return it->get<T>();
}

}  // namespace

Outcome outcome_from_json(const json& reply) {
  Outcome o;
  o.status = reply.value("status", "");
  o.detail = reply.value("detail", "");
  if (o.status != "ok" && o.status != "wrong_result" && o.status != "launch_failed" && o.status != "timeout") {
    if (o.detail.empty()) o.detail = "the worker answered with status '" + o.status + "'";
    o.status = "launch_failed";
  }
  o.rel_err = optional_field<double>(reply, "rel_err");
  o.max_abs_err = optional_field<double>(reply, "max_abs_err");
  o.max_scaled_err = optional_field<double>(reply, "max_scaled_err");
  // JSON has no infinity: an error figure that overflowed arrives as null. A checked row must
  // still carry its figures, so it is stored as the infinity it was. A floor (`"checked": false`,
  // read_b) was never checked and has none.
  const bool checked = reply.value("checked", true);
  if (checked && (o.status == "ok" || o.status == "wrong_result")) {
    if (!o.rel_err) o.rel_err = std::numeric_limits<double>::infinity();
    if (!o.max_abs_err) o.max_abs_err = std::numeric_limits<double>::infinity();
    if (!o.max_scaled_err && reply.contains("max_scaled_err")) o.max_scaled_err = std::numeric_limits<double>::infinity();
  }
  o.median_ms = optional_field<double>(reply, "median_ms");
  o.min_ms = optional_field<double>(reply, "min_ms");
  o.max_ms = optional_field<double>(reply, "max_ms");
  o.p10_ms = optional_field<double>(reply, "p10_ms");
  o.p90_ms = optional_field<double>(reply, "p90_ms");
  o.samples = reply.value("samples", 0);
  if (o.status == "ok" && (!o.median_ms || o.samples <= 0)) {
    o.status = "launch_failed";
    o.detail = "the worker reported success without a timing";
  }
  o.sm_clock_before_mhz = optional_field<int>(reply, "sm_clock_before_mhz");
  o.sm_clock_after_mhz = optional_field<int>(reply, "sm_clock_after_mhz");
  o.grid_blocks = optional_field<std::int64_t>(reply, "grid_blocks");
  o.workspace_bytes = optional_field<std::int64_t>(reply, "workspace_bytes");
  o.driver_registers = optional_field<int>(reply, "driver_registers");
  return o;
}

WorkerProcess::WorkerProcess(std::filesystem::path exe, double timeout_s)
    : exe_(std::move(exe)), timeout_s_(timeout_s) {
  // A write to a worker that just died must fail with EPIPE, not kill the sweep.
  signal(SIGPIPE, SIG_IGN);
}

WorkerProcess::~WorkerProcess() { stop(); }

void WorkerProcess::start() {
  int to[2], from[2];
  if (pipe2(to, O_CLOEXEC) != 0 || pipe2(from, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("cannot create the worker's pipes: ") + std::strerror(errno));
  // Everything the child needs is prepared before fork(): the compile threads may hold the
  // allocator's lock at that instant, so the child must not allocate before exec.
  const std::string exe = exe_.string();
  char* argv[] = {const_cast<char*>(exe.c_str()), const_cast<char*>("worker"), nullptr};
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("cannot start the worker: ") + std::strerror(errno));
  if (pid == 0) {
    // The worker dies with the sweep (kill -9 included), so no orphan keeps the GPU busy.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);
    // Its own process group: Ctrl-C at the terminal reaches the sweep, which stops after the
    // measurement in flight, and not the worker in the middle of it.
    setpgid(0, 0);
    dup2(to[0], STDIN_FILENO);
    dup2(from[1], STDOUT_FILENO);
    execv(argv[0], argv);
    _exit(127);
  }
  close(to[0]);
  close(from[1]);
  pid_ = pid;
  to_worker_ = to[1];
  from_worker_ = from[0];
  buffered_.clear();
  ready_ = false;
  ++starts_;
}

void WorkerProcess::stop() {
  if (pid_ < 0) return;
  close(to_worker_);  // end of input: an idle worker exits by itself
  close(from_worker_);
  kill(pid_, SIGKILL);  // a busy or hung one does not
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
  to_worker_ = from_worker_ = -1;
  ready_ = false;
}

json WorkerProcess::request(const json& req) {
  if (pid_ < 0) start();
  if (!ready_ && setup_) {
    const WorkerSetup& s = *setup_;
    const json setup_req = {{"op", "setup"},
                            {"device", s.device},
                            {"m", s.problem.m},
                            {"n", s.problem.n},
                            {"k", s.problem.k},
                            {"dtype", std::string(to_string(s.problem.dtype))},
                            {"epilogue", std::string(to_string(s.problem.epilogue))},
                            {"seed", s.seed},
                            {"timing", json(s.timing)}};
    // Set-up gets a longer deadline than a measurement (a new context, cuBLAS, the fp64
    // reference, and right after a killed worker the driver still tearing its context down)
    // and a second worker if the first fails: only then is the GPU taken to be unusable.
    json reply = exchange(setup_req, std::max(timeout_s_, kSetupTimeoutS));
    // No device now is no device after a restart too: the tools' status 3, not a failed setup.
    if (reply.value("status", "") == "no_device") throw NoDeviceError(reply.value("detail", "no CUDA device"));
    if (reply.value("status", "") != "ok") {
      stop();
      start();
      reply = exchange(setup_req, std::max(timeout_s_, kSetupTimeoutS));
    }
    if (reply.value("status", "") != "ok")
      throw std::runtime_error("the measuring worker could not set up the problem: " + reply.value("detail", ""));
    ready_ = true;
  }
  return exchange(req, timeout_s_);
}

json WorkerProcess::exchange(const json& req, double timeout_s) {
  if (pid_ < 0) start();
  const std::string line = req.dump() + "\n";
  for (std::size_t sent = 0; sent < line.size();) {
    ssize_t n = write(to_worker_, line.data() + sent, line.size() - sent);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the worker is gone; reading below reports how it ended
    sent += static_cast<std::size_t>(n);
  }

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (;;) {
    if (std::size_t nl = buffered_.find('\n'); nl != std::string::npos) {
      json reply = json::parse(buffered_.substr(0, nl), nullptr, /*allow_exceptions=*/false);
      buffered_.erase(0, nl + 1);
      if (reply.is_discarded()) reply = {{"status", "launch_failed"}, {"detail", "the worker sent an unreadable answer"}};
      if (reply.value("fatal", false)) stop();  // its context is gone; it exits by itself
      return reply;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      stop();
      char detail[128];
      std::snprintf(detail, sizeof detail, "no answer within %.0f s: the worker was killed", timeout_s);
      return {{"status", "timeout"}, {"detail", detail}};
    }
    pollfd p{from_worker_, POLLIN, 0};
    int r = poll(&p, 1, static_cast<int>(left.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue;
    char buf[4096];
    ssize_t n = read(from_worker_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n > 0) {
      buffered_.append(buf, static_cast<std::size_t>(n));
      continue;
    }
    // End of file: the worker died without answering (a crash, or killed from outside).
    int status = 0;
    close(to_worker_);
    close(from_worker_);
    waitpid(pid_, &status, 0);
    pid_ = -1;
    to_worker_ = from_worker_ = -1;
    ready_ = false;
    return {{"status", "launch_failed"}, {"detail", "the worker died without answering (" + describe_exit(status) + ")"}};
  }
}

void WorkerProcess::setup(const WorkerSetup& setup) {
  setup_ = setup;
  ready_ = false;
  // Set up now rather than at the first measurement, so a GPU that cannot take the problem
  // fails the sweep before anything is recorded for it.
  request({{"op", "ping"}});
}

std::optional<Outcome> WorkerProcess::baseline(const std::string& method, std::string* why_not) {
  json reply = request({{"op", "baseline"}, {"method", method}});
  if (reply.value("status", "") == "unavailable") {
    if (why_not) *why_not = reply.value("detail", "");
    return std::nullopt;
  }
  return outcome_from_json(reply);
}

Outcome WorkerProcess::kernel(const std::filesystem::path& cubin, const std::string& symbol, const Config& config) {
  if (!setup_) throw std::logic_error("WorkerProcess: set a problem up before measuring");
  return outcome_from_json(request({{"op", "kernel"},
                                    {"cubin", cubin.string()},
                                    {"symbol", symbol},
                                    {"config", config_name(config, setup_->problem.dtype, setup_->problem.epilogue)}}));
}

Outcome WorkerProcess::kernel_then_epilogue(const std::filesystem::path& cubin, const std::string& symbol,
                                            const Config& config) {
  if (!setup_) throw std::logic_error("WorkerProcess: set a problem up before measuring");
  return outcome_from_json(request({{"op", "kernel_then_epilogue"},
                                    {"cubin", cubin.string()},
                                    {"symbol", symbol},
                                    {"config", config_name(config, setup_->problem.dtype, setup_->problem.epilogue)}}));
}

}  // namespace coalesce::tuner
