// The sweep (see sweep.hpp). Compiles run on a thread pool in candidate order while the main
// thread consumes them in the same order, so the GPU measures one kernel at a time and never
// waits for a compile that could have started earlier.
#include "sweep.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <future>
#include <iostream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "Coalesce/Emit.h"
#include "coalesce/version.h"
#include "harness/device.hpp"
#include "kernels/core/epilogues.hpp"
#include "harness/timing.hpp"
#include "history.hpp"
#include "jit.hpp"
#include "peers.hpp"
#include "pool.hpp"
#include "schema/db.hpp"
#include "schema/merge.hpp"
#include "schema/rows.hpp"
#include "strategy.hpp"
#include "worker.hpp"

namespace coalesce::tuner {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

namespace {

// Inputs of every measurement are drawn from this seed onward (the harness refills them
// before each method), so two sweeps of one problem check against the same data.
constexpr std::uint64_t kInputSeed = 1;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string shape(const Problem& p) {
  return std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k);
}

// "4096x4096x4096 bf16 bias_gelu wgmma": a problem and family as progress lines name them.
std::string label(const Problem& p, std::string_view family) {
  return shape(p) + " " + std::string(to_string(p.dtype)) + " " + std::string(to_string(p.epilogue)) + " " +
         std::string(family);
}

std::string first_line(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (line.find("error") != std::string::npos) return line;
  in.clear();
  in.str(text);
  std::getline(in, line);
  return line;
}

// The figures a post-compile verdict quotes: the cubin's, then the spills in ptxas' log when
// the log came back (docs/tuner.md, "Resource figures").
std::string figures(const CompileResult& cr) {
  const KernelResources& k = *cr.resources;
  std::string s = "cubin: " + std::to_string(k.registers) + " registers, " + std::to_string(k.frame_bytes) +
                  " bytes stack frame, " + std::to_string(k.local_bytes) + " bytes local, " +
                  std::to_string(k.static_smem_bytes()) + " bytes static smem; ";
  if (!cr.ptxas) return s + "no ptxas report in NVRTC's log";
  return s + "ptxas: " + std::to_string(cr.ptxas->spill_store_bytes) + " bytes spill stores, " +
         std::to_string(cr.ptxas->spill_load_bytes) + " bytes spill loads";
}

// Test hooks, read from the environment (tests/gpu/tuner_sweep_test.cu):
//   COALESCE_TEST_INJECT=fault:I, hang:I or race:I  the I-th selected candidate (0-based) of the
//       first problem is compiled from a kernel that writes to an unmapped address, spins
//       forever, or is right for its first two launches and wrong from the third on (see
//       injected_source), under the candidate's own symbol, so the worker launches it like any other;
//   COALESCE_TEST_STOP_AFTER=N  the sweep kills itself with SIGKILL after committing N measured
//       candidate rows, as `kill -9` would;
//   COALESCE_TEST_PAUSE=STEP:N with COALESCE_TEST_PAUSE_MARKER=PATH  the N-th time (1-based) the
//       sweep reaches STEP it writes PATH ("STEP N PID") and waits forever, so that a test can
//       `kill -9` it at that point (tests/unit/tuner/sweep_kill_test.cpp). The steps:
//         baseline  before a baseline's measurement (the baselines before it are stored);
//         pruned    after a candidate pruned before compiling is stored;
//         build     after a candidate's build is stored, before its measurement;
//         unfused   after the winner's epilogue-none build is stored, before its measurement;
//   COALESCE_TEST_STANDIN_WORKER=PATH  a sweep without a GPU: PATH answers the measurement
//       requests (tests/unit/tuner/standin_worker.sh) for a stand-in device with the H200's
//       limits, so the database side of a sweep is tested on machines without one.
//   COALESCE_TEST_NVRTC_FAULT=empty_log,first_attempt_fails  NVRTC's log comes back empty (as on
//       the H200 under 16 parallel compiles), or each fresh compile's first attempt yields a
//       cut-off cubin, so the retry alone runs (JitFaults, jit.hpp).
struct TestHooks {
  std::string inject;  // "fault", "hang" or "race"
  int inject_at = -1;
  int stop_after = -1;
  std::string pause_step;
  int pause_at = 1;
  fs::path pause_marker;
  std::string standin_worker;
  JitFaults nvrtc;

  static TestHooks from_env() {
    TestHooks h;
    if (const char* v = std::getenv("COALESCE_TEST_INJECT"); v && *v) {
      std::string s(v);
      std::size_t colon = s.find(':');
      h.inject = s.substr(0, colon);
      h.inject_at = colon == std::string::npos ? 0 : std::atoi(s.c_str() + colon + 1);
      if (h.inject != "fault" && h.inject != "hang" && h.inject != "race")
        throw std::invalid_argument("COALESCE_TEST_INJECT must be fault:<index>, hang:<index> or race:<index>");
    }
    if (const char* v = std::getenv("COALESCE_TEST_STOP_AFTER"); v && *v) h.stop_after = std::atoi(v);
    if (const char* v = std::getenv("COALESCE_TEST_PAUSE"); v && *v) {
      std::string s(v);
      std::size_t colon = s.find(':');
      h.pause_step = s.substr(0, colon);
      if (colon != std::string::npos) h.pause_at = std::atoi(s.c_str() + colon + 1);
      const char* marker = std::getenv("COALESCE_TEST_PAUSE_MARKER");
      if (h.pause_step != "baseline" && h.pause_step != "pruned" && h.pause_step != "build" &&
          h.pause_step != "unfused")
        throw std::invalid_argument("COALESCE_TEST_PAUSE must be baseline, pruned, build or unfused, then :<count>");
      if (h.pause_at < 1 || !marker || !*marker)
        throw std::invalid_argument("COALESCE_TEST_PAUSE needs a count >= 1 and COALESCE_TEST_PAUSE_MARKER=<path>");
      h.pause_marker = marker;
    }
    if (const char* v = std::getenv("COALESCE_TEST_STANDIN_WORKER"); v && *v) h.standin_worker = v;
    if (const char* v = std::getenv("COALESCE_TEST_NVRTC_FAULT"); v && *v) {
      std::istringstream faults(v);
      for (std::string f; std::getline(faults, f, ',');) {
        if (f == "empty_log")
          h.nvrtc.empty_log = true;
        else if (f == "first_attempt_fails")
          h.nvrtc.first_attempt_fails = true;
        else
          throw std::invalid_argument("COALESCE_TEST_NVRTC_FAULT takes empty_log and first_attempt_fails, comma-separated");
      }
    }
    return h;
  }
};

std::string injected_source(const std::string& kind, const std::string& symbol, const Problem& problem) {
  if (kind == "race") {
    // Right for its first two launches and wrong from the third on, where it skips the second
    // half of K: the harness's checks before timing (the activation's bend, then fresh inputs)
    // pass, and only the re-check of the last timed run can catch it. Every warp draws a ticket
    // from a counter in the module that nothing resets, as a split-K semaphore left set would;
    // the launches of one stream run one after another, so ticket / warps is exactly the
    // launch's index. No shared memory (the config's budget is the template's), and a
    // grid-stride loop covers C whatever the config's geometry. Only headers every family
    // embeds are included (epilogue.cuh); A, B, bias and C share one storage type per dtype,
    // converted as kernels/core/numeric.cuh does. Launched as a split-K config (grid z > 1: C
    // is then the f32 partials, kernels/core/family.hpp kSplitParam), it stores the raw sums in
    // slice 0 and zeros in the others, and the harness's reduce applies the epilogue.
    std::string storage = "typedef float T;\n"
                          "__device__ float load(T x) { return x; }\n"
                          "__device__ T store(float x) { return x; }\n";
    if (problem.dtype == Dtype::bf16)
      storage = "typedef unsigned short T;\n"
                "__device__ float load(T x) { return __int_as_float(static_cast<int>(x) << 16); }\n"
                "__device__ T store(float x) { T r; asm(\"cvt.rn.bf16.f32 %0, %1;\" : \"=h\"(r) : \"f\"(x)); return r; }\n";
    if (problem.dtype == Dtype::f16)
      storage = "typedef unsigned short T;\n"
                "__device__ float load(T x) { float f; asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(f) : \"h\"(x)); return f; }\n"
                "__device__ T store(float x) { T r; asm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(r) : \"f\"(x)); return r; }\n";
    return "#include \"kernels/core/epilogue.cuh\"\n" + storage +
           "using Ep = coalesce::EpilogueFor<coalesce::Epilogue::" + std::string(to_string(problem.epilogue)) + ">;\n"
           "__device__ unsigned long long race_tickets;\n"
           "extern \"C\" __global__ void " + symbol +
           "(const void* a, const void* b, const void* bias, void* c, int M, int N, int K) {\n"
           "  const unsigned long long blocks = 1ull * gridDim.x * gridDim.y * gridDim.z;\n"
           "  const unsigned long long threads = 1ull * blockDim.x * blockDim.y * blockDim.z;\n"
           "  const unsigned long long tid = threadIdx.x + blockDim.x * (threadIdx.y + 1ull * blockDim.y * threadIdx.z);\n"
           "  const unsigned long long bid = blockIdx.x + gridDim.x * (blockIdx.y + 1ull * gridDim.y * blockIdx.z);\n"
           "  const unsigned long long warps = blocks * ((threads + 31) / 32);\n"
           "  unsigned long long ticket = 0;\n"
           "  if (tid % 32 == 0) ticket = atomicAdd(&race_tickets, 1ull);\n"
           "  const unsigned long long launch = __shfl_sync(__activemask(), ticket, 0) / warps;\n"
           "  const int k_end = launch < 2 ? K : K / 2;\n"
           "  const T* A = static_cast<const T*>(a);\n"
           "  const T* B = static_cast<const T*>(b);\n"
           "  T* C = static_cast<T*>(c);\n"
           "  for (unsigned long long i = bid * threads + tid; i < 1ull * M * N; i += blocks * threads) {\n"
           "    const int m = static_cast<int>(i / N), n = static_cast<int>(i % N);\n"
           "    float acc = 0.0f;\n"
           "    for (int k = 0; k < k_end; ++k)\n"
           "      acc += load(A[1ull * m * K + k]) * load(B[1ull * k * N + n]);\n"
           "    if (gridDim.z > 1) {\n"
           "      float* P = static_cast<float*>(c);\n"
           "      P[i] = acc;\n"
           "      for (unsigned z = 1; z < gridDim.z; ++z) P[1ull * z * M * N + i] = 0.0f;\n"
           "      continue;\n"
           "    }\n"
           "    float bias_n = 0.0f;\n"
           "    if constexpr (Ep::kUsesBias) bias_n = load(static_cast<const T*>(bias)[n]);\n"
           "    C[i] = store(Ep::apply(acc, bias_n));\n"
           "  }\n"
           "}\n";
  }
  const std::string signature = "extern \"C\" __global__ void " + symbol +
                                "(const float* A, const float* B, const float* bias, float* C, int M, int N, int K)";
  if (kind == "fault")
    // A store to the first page, which no allocation ever covers: an illegal-address error
    // that leaves the context unusable.
    return signature + " {\n  *reinterpret_cast<volatile float*>(16ull + 4ull * threadIdx.x) = 1.0f;\n}\n";
  // A loop the compiler cannot remove (the asm is volatile) and nothing ends.
  return signature + " {\n  for (;;) asm volatile(\"nanosleep.u32 1000;\");\n}\n";
}

// What the compile pool hands back for one candidate.
struct Prepared {
  bool emitted = false;
  std::string emit_error;  // the compiler's diagnostic when emission failed
  std::string symbol;
  CompileResult compiled;
};

Prepared prepare(const Jit& jit, const Problem& problem, const Config& config, const Target& target,
                 const std::string& inject) {
  Prepared p;
  std::string source;
  try {
    // Split factors above 1 share one kernel (the factor is the grid's z extent): compile the
    // kernel config's source, which the JIT's cache then serves to every factor.
    compiler::EmittedKernel k = compiler::emit_fused_kernel(problem, kernel_config(config), target);
    p.symbol = std::move(k.symbol);
    source = std::move(k.source);
    p.emitted = true;
  } catch (const std::exception& e) {
    p.emit_error = e.what();
    return p;
  }
  if (!inject.empty()) source = injected_source(inject, p.symbol, problem);
  p.compiled = jit.compile(p.symbol, source);
  return p;
}

db::Status status_of(const std::string& s) { return db::parse_status(s).value_or(db::Status::launch_failed); }

// Where the time of a sweep went (the summary's last lines).
struct TimeSplit {
  double nvrtc_s = 0;         // NVRTC time of fresh compiles, summed over the pool's threads
  double compile_wait_s = 0;  // the measuring lane idle, waiting for a compile
  double measure_s = 0;       // requests to the worker: setup, baselines, candidates
  int fresh = 0, cached = 0;
  int retried = 0;  // fresh compiles that failed among the others and were retried alone
};

// The progress of a sweep over several devices: one lane per device, and the whole sweep's
// count and time left. On a terminal one line rewritten in place ("dev0 76/760 · dev1 80/760 ·
// all 156/1520, ~40 s left"); in a log a line per device every 10% of its problem's candidates,
// each ending with the whole sweep's count and time left.
class Board {
 public:
  explicit Board(const std::vector<int>& ordinals) : start_(Clock::now()), tty_(isatty(STDERR_FILENO)) {
    for (int ordinal : ordinals) lanes_.push_back({ordinal, 0, 0});
  }
  void add_total(std::size_t lane, std::size_t n) {
    std::lock_guard lock(mutex_);
    lanes_[lane].total += n;
  }
  // One candidate of `lane` is done; `line` is its problem's progress, printed to a log when
  // `due` (every 10% of that problem).
  void advance(std::size_t lane, const std::string& line, bool due) {
    std::lock_guard lock(mutex_);
    ++lanes_[lane].done;
    if (!tty_ && !due) return;
    std::size_t done = 0, total = 0;
    for (const Lane& l : lanes_) done += l.done, total += l.total;
    char all[96];
    std::snprintf(all, sizeof all, "all devices %zu/%zu configs", done, total);
    std::string left;
    if (done > 0 && done < total) {
      char buf[48];
      std::snprintf(buf, sizeof buf, ", ~%.0f s left",
                    seconds_since(start_) / static_cast<double>(done) * static_cast<double>(total - done));
      left = buf;
    }
    if (tty_) {
      std::string text;
      for (const Lane& l : lanes_)
        text += "dev" + std::to_string(l.ordinal) + " " + std::to_string(l.done) + "/" + std::to_string(l.total) + " · ";
      std::fprintf(stderr, "\r\033[K%s%s%s", text.c_str(), all, left.c_str());
    } else {
      std::fprintf(stderr, "device %d: %s; %s%s\n", lanes_[lane].ordinal, line.c_str(), all, left.c_str());
    }
    std::fflush(stderr);
  }
  void finish() {
    if (tty_) std::fputc('\n', stderr);
  }

 private:
  struct Lane {
    int ordinal;
    std::size_t done, total;
  };
  std::mutex mutex_;
  std::vector<Lane> lanes_;
  Clock::time_point start_;
  bool tty_;
};

// The stderr progress line of one problem and family: one line rewritten in place on a
// terminal, otherwise a line every 10% of the candidates (logs stay short). On a sweep over
// several devices it reports to the board instead.
class Progress {
 public:
  Progress(std::string problem, std::size_t total, Board* board = nullptr, std::size_t lane = 0)
      : problem_(std::move(problem)), total_(total), start_(Clock::now()), board_(board), lane_(lane) {
    tty_ = isatty(STDERR_FILENO);
  }
  void update(std::size_t done, std::size_t pruned, std::size_t failed, const std::string& best) {
    const double elapsed = seconds_since(start_);
    const std::size_t step = total_ / 10 == 0 ? 1 : total_ / 10;
    const bool due = done == total_ || done % step == 0;
    if (!board_ && !tty_ && !due) return;
    char left[48] = "";
    if (done > 0 && done < total_) {
      const double s = elapsed / static_cast<double>(done) * static_cast<double>(total_ - done);
      std::snprintf(left, sizeof left, ", ~%.0f s left", s);
    }
    char line[1024];
    std::snprintf(line, sizeof line, "[%s] %zu/%zu configs, %zu pruned, %zu failed, best %s%s", problem_.c_str(), done,
                  total_, pruned, failed, best.empty() ? "-" : best.c_str(), board_ ? "" : left);
    if (board_) {
      board_->advance(lane_, line, due);
      return;
    }
    std::fprintf(stderr, "%s%s%s", tty_ ? "\r\033[K" : "", line, tty_ ? "" : "\n");
    std::fflush(stderr);
  }
  void finish() {
    if (tty_ && !board_) std::fputc('\n', stderr);
  }

 private:
  std::string problem_;
  std::size_t total_;
  Clock::time_point start_;
  Board* board_;
  std::size_t lane_;
  bool tty_ = false;
};

// The devices of COALESCE_TEST_STANDIN_WORKER sweeps: named so that no one mistakes their rows.
// COALESCE_TEST_STANDIN_DEVICES=N makes N of them (ordinals 0 to N-1, UUIDs ending in the
// ordinal), so that a sweep over several devices is tested without a GPU.
DeviceInfo standin_device(int ordinal) {
  DeviceInfo d;
  d.ordinal = ordinal;
  d.name = "stand-in device (test)";
  char uuid[64];
  std::snprintf(uuid, sizeof uuid, "GPU-00000000-0000-0000-0000-%012d", ordinal);
  d.uuid = uuid;
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 132;
  d.l2_bytes = 60 << 20;
  d.global_mem_bytes = 141LL << 30;
  return d;
}

int standin_devices() {
  const char* n = std::getenv("COALESCE_TEST_STANDIN_DEVICES");
  return n && *n ? std::max(1, std::atoi(n)) : 1;
}

fs::path self_exe() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot find this program's own path (/proc/self/exe) to start the worker");
  return p;
}

std::string host_name() {
  char buf[256] = "";
  gethostname(buf, sizeof buf - 1);
  return buf;
}

std::atomic<bool> g_interrupted{false};
void on_interrupt(int) { g_interrupted = true; }

// What the sweeps of several devices share: one compile pool, one database connection (its
// calls are serialized; the database allows one writer), stdout and the progress board.
struct Shared {
  ThreadPool* pool;
  db::Database* db;
  std::ostream* out;
  std::mutex out_mutex;
  Board* board;
};

// One sweep over the problems on a known target (GPU present) or a dry run. On a sweep over
// several devices, one of these per device, on its own thread, with `shared` and its lane.
class Sweep {
 public:
  /// `db`: a database this sweep's caller already holds open for writing (the steady-state pass
  /// of --steady-top), used instead of opening o.db_path again.
  Sweep(const SweepOptions& o, std::ostream& out, Shared* shared = nullptr, std::size_t lane = 0,
        db::Database* db = nullptr)
      : o_(o), out_(shared ? static_cast<std::ostream&>(local_) : out), hooks_(TestHooks::from_env()),
        shared_(shared), lane_(lane), db_(db) {}

  int run() {
    try {
      return run_here();
    } catch (...) {
      publish();
      throw;
    }
  }

 private:
  int run_here() {
    const auto start = Clock::now();
    started_ = start;
    resolve_target();
    const fs::path cache = o_.cache_dir.empty() ? default_cache_dir().value_or(fs::path()) : o_.cache_dir;
    if (cache.empty())
      throw std::runtime_error("no kernel cache directory: set XDG_CACHE_HOME or HOME, or pass --cache-dir");
    cache_dir_ = cache;
    std::optional<ThreadPool> own_pool;
    ThreadPool& pool = shared_ ? *shared_->pool : own_pool.emplace(pool_threads());

    if (!o_.dry_run) {
      if (shared_) db_ = shared_->db;
      if (!db_) db_ = &own_db_.emplace(db::Database::open(o_.db_path, db::Mode::read_write));
      resume_unfinished_run();
      worker_.emplace(hooks_.standin_worker.empty() ? self_exe() : fs::path(hooks_.standin_worker), o_.timeout_s);
    }
    // A dry run stops between compiles too, and says so (issue 45: it died silently).
    signal(SIGINT, on_interrupt);
    signal(SIGTERM, on_interrupt);
    std::vector<std::vector<Plan>> plans;
    try {
      // Every problem's compiles are queued before the first is measured, so the pool never idles.
      for (std::size_t i = 0; i < o_.problems.size(); ++i) {
        plans.push_back(plan_problem(o_.problems[i], i, pool));
        note_if_no_config_can_run(o_.problems[i], plans.back());
      }
      for (const std::vector<Plan>& p : plans) families_left_ += p.size();
      for (const std::string& name : o_.configs)
        if (std::find(named_found_.begin(), named_found_.end(), name) == named_found_.end())
          throw std::runtime_error("--config " + name +
                                   " is not a legal candidate of any problem swept here (its family's space, dtype, "
                                   "epilogue and shape must match: see coalesce-tune space)");
      for (std::size_t i = 0; i < plans.size() && !g_interrupted; ++i) sweep_problem(o_.problems[i], plans[i], pool);
    } catch (...) {
      if (db_ && run_) db_->end_run(run_, db::RunStatus::failed);
      throw;
    }
    // A problem no config can run is a failed sweep, never a completed run with no kernel
    // (issue 39): its pruned rows are stored, the other problems swept, and the run ends failed.
    const bool none_can_run = !no_config_.empty();
    if (db_ && run_)
      db_->end_run(run_, g_interrupted  ? db::RunStatus::interrupted
                         : none_can_run ? db::RunStatus::failed
                                        : db::RunStatus::completed);
    if (db_ && !run_ && !g_interrupted && !none_can_run) out_ << device_tag() << nothing_to_do();

    const double total = seconds_since(start);
    out_ << device_tag() << "time: " << fixed(total, 1) << " s in all; measuring " << fixed(time_.measure_s, 1)
         << " s, waiting for compiles " << fixed(time_.compile_wait_s, 1) << " s; NVRTC " << fixed(time_.nvrtc_s, 1)
         << " s of CPU over " << pool_threads() << " threads (" << time_.fresh << " compiled, "
         << time_.retried << " of them retried alone, " << time_.cached << " from the cache in " << cache_dir_.string()
         << ")\n";
    if (g_interrupted && o_.dry_run) {
      std::cerr << "coalesce-tune: interrupted: the dry run stopped after " << (time_.fresh + time_.cached)
                << " configs; the kernels compiled so far stay in the cache " << cache_dir_.string() << '\n';
      return 130;
    }
    if (g_interrupted) {
      out_ << device_tag() << "interrupted: the same command resumes this run\n";
      publish();
      return 130;
    }
    publish();
    if (none_can_run) {
      for (const std::string& line : no_config_) std::fprintf(stderr, "%s\n", line.c_str());
      return 1;
    }
    return o_.steady_top > 0 && db_ ? time_steady_state(plans) : 0;
  }

  // On a sweep over several devices, the lines this device wrote so far, whole, to stdout.
  void publish() {
    if (!shared_) return;
    std::lock_guard lock(shared_->out_mutex);
    *shared_->out << local_.str();
    shared_->out->flush();
    local_.str("");
  }
  // "device N: " before a line of a sweep over several devices.
  std::string device_tag() const { return shared_ ? "device " + std::to_string(o_.device) + ": " : ""; }

  unsigned pool_threads() const { return o_.jobs ? o_.jobs : std::max(1u, std::thread::hardware_concurrency()); }
  static std::string fixed(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
  }

  void resolve_target() {
    if (!hooks_.standin_worker.empty() && !o_.dry_run) {
      device_ = standin_device(o_.device);
      target_ = device_->target();
    } else if (!o_.dry_run || device_count() > 0) {
      device_ = query_device(o_.device);
      target_ = device_->target();
    } else {
      target_ = Target{9, 0, true, DeviceLimits{}};
      std::fprintf(stderr, "coalesce-tune: no GPU here: dry run against the H200's limits (sm_90)\n");
    }
    target_.max_workspace_bytes = o_.max_workspace_bytes;
    limits_ = target_.limits;
    arch_ = target_.base_arch();
  }

  // The compiler of a family: NVRTC for the architecture the family asks for on this target
  // (sm_90a for a Hopper-only family), one Jit per architecture, all sharing the cache.
  const Jit& jit_for(const Family& family) {
    const std::string arch = family.nvrtc_arch(target_);
    auto it = jits_.find(arch);
    if (it == jits_.end()) it = jits_.emplace(arch, Jit(cache_dir_, arch, hooks_.nvrtc)).first;
    return it->second;
  }

  // The families swept for `problem`: those named, or every registered family that computes
  // the dtype on this device. A named family that refuses is an error; with "all" the refusals
  // are reported once per problem on stderr.
  std::vector<const Family*> families_for(const Problem& problem) const {
    std::vector<const Family*> out;
    const bool all = o_.families.size() == 1 && o_.families[0] == "all";
    if (all) {
      for (const Family* f : families()) {
        if (Verdict v = refused(*f, problem, target_); !v.ok()) {
          std::fprintf(stderr, "coalesce-tune: %s%s: %s skipped: %s\n", device_tag().c_str(), shape(problem).c_str(),
                       std::string(f->name()).c_str(), v.why);
          continue;
        }
        out.push_back(f);
      }
      if (out.empty())
        throw std::runtime_error("no kernel family computes " + std::string(to_string(problem.dtype)) + " on " +
                                 target_.arch() + " (families: " + family_names() + ")");
      return out;
    }
    for (const std::string& name : o_.families) {
      const Family* f = find_family(name);
      if (!f) throw std::runtime_error("--family '" + name + "' is not a kernel family (" + family_names() + ")");
      if (Verdict v = refused(*f, problem, target_); !v.ok())
        throw std::runtime_error("--family " + name + " cannot run " + shape(problem) + " " +
                                 std::string(to_string(problem.dtype)) + " on " + target_.arch() + ": " + v.why);
      out.push_back(f);
    }
    return out;
  }

  // An interrupted run of this sweep is continued at once; otherwise a run is opened by the first
  // row the sweep has to store (ensure_run), so a sweep that finds everything measured opens none.
  void resume_unfinished_run() {
    device_id_ = db_->upsert_device(db::device_row(*device_));
    if (auto unfinished = db_->find_unfinished_run(resume_key(o_), device_id_)) {
      run_ = *unfinished;
      db_->resume_run(run_);
      std::fprintf(stderr, "coalesce-tune: resuming run %lld of this sweep\n", static_cast<long long>(run_));
    }
  }

  // What a sweep that stored nothing says: the runs that measured it.
  std::string nothing_to_do() const {
    const db::ResultSet rs = db_->query(
        "SELECT group_concat(id, ', ') FROM (SELECT id FROM runs WHERE resume_key = ?1 AND device_id = ?2 "
        "AND status = 'completed' ORDER BY id)",
        {db::Value(resume_key(o_)), db::Value(device_id_)});
    const std::string runs = rs.rows.empty() || db::is_null(rs.rows[0][0]) ? "" : db::as_text(rs.rows[0][0]);
    return "nothing to do: every config of this sweep is already measured on this device" +
           (runs.empty() ? std::string() : " (run " + runs + ")") + "; no run was opened and no baseline measured again\n";
  }

  db::RunId ensure_run() {
    if (run_) return run_;
    const std::string key = resume_key(o_);
    db::RunInfo info;
    info.device = device_id_;
    info.resume_key = key;
    info.tool = "coalesce-tune";
    info.tool_version = COALESCE_VERSION;
    info.git_revision = COALESCE_GIT_REVISION;
    info.command_line = o_.command_line;
    info.host = host_name();
    info.driver_version = device_->driver_version;
    info.driver_release = device_->driver_release;
    info.runtime_version = device_->runtime_version;
    info.toolkit = nvrtc_version();
    json harness = o_.timing;
    harness["input_seed"] = kInputSeed;
    harness["worker_timeout_s"] = o_.timeout_s;
    info.harness_json = harness.dump();
    run_ = db_->begin_run(info);
    return run_;
  }

  // COALESCE_TEST_PAUSE: the N-th time the sweep reaches `step`, it says so in the marker file
  // (written whole, then renamed into place) and waits for the test's kill -9.
  void pause_point(std::string_view step) {
    if (hooks_.pause_step != step || ++pause_reached_ != hooks_.pause_at) return;
    const fs::path tmp = hooks_.pause_marker.string() + ".tmp";
    std::ofstream(tmp) << step << " " << pause_reached_ << " " << getpid() << "\n";
    fs::rename(tmp, hooks_.pause_marker);
    for (;;) pause();
  }

  // Stores a row unless its key is already stored (a resumed sweep); true when stored. The
  // row joins this sweep's run, opened now if it is the first.
  bool store(db::MeasurementRow row) {
    row.run = ensure_run();
    return db_->insert_measurement(row).has_value();
  }

  db::MeasurementRow row_for(std::optional<db::ConfigId> config, const std::string& method) const {
    db::MeasurementRow r;
    r.run = run_;
    r.device = device_id_;
    r.problem = problem_id_;
    r.method = method;
    r.config = config;
    return r;
  }

  static void fill(db::MeasurementRow& r, const Outcome& o) {
    r.status = status_of(o.status);
    r.message = o.detail;
    r.rel_err = o.rel_err;
    r.max_abs_err = o.max_abs_err;
    r.max_scaled_err = o.max_scaled_err;
    r.sm_clock_before_mhz = o.sm_clock_before_mhz;
    r.sm_clock_after_mhz = o.sm_clock_after_mhz;
    r.grid_blocks = o.grid_blocks;
    r.workspace_bytes = o.workspace_bytes;
    if (o.ok() && o.median_ms)
      r.timing = db::Timing{*o.median_ms, o.min_ms.value_or(0), o.max_ms.value_or(0), o.p10_ms.value_or(0),
                            o.p90_ms.value_or(0), o.samples};
  }

  db::BuildRow build_row(const Family& family, db::ConfigId config, const Candidate& c, const Prepared& p) const {
    db::BuildRow b;
    b.config = config;
    b.arch = family.nvrtc_arch(target_);
    b.toolkit = nvrtc_version();
    b.ok = p.compiled.ok;
    b.log = p.compiled.log;
    b.compile_ms = p.compiled.compile_seconds * 1e3;
    b.predicted_registers = c.predicted.registers;
    b.predicted_smem_bytes = c.predicted.smem_bytes;
    b.predicted_blocks_per_sm = c.predicted.blocks_per_sm;
    b.threads = c.predicted.threads;
    b.attempts = p.compiled.attempts;
    if (p.compiled.ok) {
      const KernelResources& k = *p.compiled.resources;
      b.registers = k.registers;
      b.spill_stores_bytes = p.compiled.spill_store_bytes();
      b.spill_loads_bytes = p.compiled.spill_load_bytes();
      b.stack_bytes = k.frame_bytes;
      b.smem_bytes = k.static_smem_bytes() + c.predicted.smem_bytes;
      b.blocks_per_sm = family.resources(c.config, limits_, k.registers).blocks_per_sm;
    }
    return b;
  }

  Prepared wait(std::future<Prepared>& f) {
    const auto t = Clock::now();
    Prepared p = f.get();
    time_.compile_wait_s += seconds_since(t);
    if (p.emitted && p.compiled.cache_hit) ++time_.cached;
    if (p.emitted && !p.compiled.cache_hit && !p.compiled.key.empty()) {
      ++time_.fresh;
      if (p.compiled.attempts > 1) ++time_.retried;
      time_.nvrtc_s += p.compiled.compile_seconds;
    }
    return p;
  }

  template <class F>
  auto measuring(F&& request) {
    const auto t = Clock::now();
    auto result = request();
    time_.measure_s += seconds_since(t);
    return result;
  }

  // The GPU side of a problem, set up by its first measurement: the worker's workspace, then the
  // baselines of this run, so a problem with nothing to measure costs no GPU time.
  void ready_to_measure() {
    if (measuring_problem_) return;
    ensure_run();
    measuring([&] {
      worker_->setup({o_.device, problem_, kInputSeed, o_.timing});
      return 0;
    });
    measure_baselines();
    measuring_problem_ = true;
  }

  std::string best_so_far(const Problem& problem, const Family& family) const {
    if (!db_) return {};
    auto best = db_->best_config(device_id_, problem, std::string(family.name()), protocol_of(o_.timing));
    if (!best) return {};
    return fixed(best->median_ms, 3) + " ms (" + fixed(problem.flops() / (best->median_ms * 1e-3) / 1e12, 1) +
           " TFLOP/s) " + best->name;
  }

  // One family's candidates for one problem and their compiles, queued before any problem is
  // measured so the pool never idles between problems.
  struct Plan {
    const Family* family;
    Space space;
    std::vector<Candidate> chosen;  ///< proposed so far, in the order they are measured
    std::vector<std::future<Prepared>> prepared;
    std::vector<Candidate> legal;           ///< the strategy's candidates
    std::vector<std::size_t> chosen_index;  ///< chosen[i] is legal[chosen_index[i]]
    std::unique_ptr<SearchStrategy> strategy;
    bool first = false;  ///< the first problem's first family (COALESCE_TEST_INJECT's)
  };

  // --steady-top: each problem's and family's fastest configs on this device, by their rows
  // outside the steady state, timed again in it as a sweep of those configs alone with the
  // steady sampling: a run of its own per problem and family, with its own baselines. The names
  // are sorted, so a command interrupted here finds the same run again and resumes it.
  int time_steady_state(const std::vector<std::vector<Plan>>& plans) {
    worker_.reset();  // each steady-state sweep starts its own worker for its problem
    for (std::size_t i = 0; i < plans.size(); ++i)
      for (const Plan& plan : plans[i]) {
        if (g_interrupted) return 130;
        const Problem& problem = o_.problems[i];
        const std::string family(plan.family->name());
        SweepOptions steady = o_;
        steady.problems = {problem};
        steady.families = {family};
        steady.strategy = "exhaustive";
        steady.budget = -1;
        steady.time_budget_s.reset();
        steady.shard = 0, steady.shards = 1;
        steady.configs = fastest_outside_steady_state(problem, plan, static_cast<std::size_t>(o_.steady_top));
        steady.timing.min_samples = steady.timing.max_samples = o_.steady_samples;
        steady.steady_top = 0;
        const std::string what = label(problem, family);
        if (steady.configs.empty()) {
          out_ << device_tag() << "steady state: " << what << ": no config measured ok to time again\n";
          continue;
        }
        std::sort(steady.configs.begin(), steady.configs.end());
        out_ << device_tag() << "steady state: " << what << ": the " << steady.configs.size()
             << " fastest configs and the baselines again, " << o_.steady_samples << " samples each back to back\n";
        publish();
        if (const int rc = Sweep(steady, out_, shared_, lane_, db_).run(); rc != 0) return rc;
      }
    return 0;
  }

  // Up to n names of the problem's configs of this family, fastest first by their best median
  // on this device outside the steady state, among the configs the family still lists.
  std::vector<std::string> fastest_outside_steady_state(const Problem& problem, const Plan& plan, std::size_t n) {
    std::map<std::string, std::size_t> listed;
    for (std::size_t i = 0; i < plan.legal.size(); ++i) listed.emplace(plan.legal[i].name, i);
    const db::ResultSet rs = db_->query(
        "SELECT config_name, MIN(median_ms) FROM v_measurements WHERE device_id = ?1 AND problem_id = ?2 AND family = ?3 "
        "AND method = 'coalesce' AND status = 'ok' AND protocol = ?4 "
        "GROUP BY config_name ORDER BY MIN(median_ms), MIN(measurement_id)",
        {db::Value(device_id_), db::Value(db_->upsert_problem(problem)), db::Value(std::string(plan.family->name())),
         db::Value(protocol_of(o_.timing))});
    StrategyContext context;
    context.family = plan.family;
    context.problem = problem;
    context.target = target_;
    context.candidates = plan.legal;
    context.budget = static_cast<int>(n);
    for (const auto& row : rs.rows)
      if (auto it = listed.find(db::as_text(row[0])); it != listed.end())
        context.measured.push_back({it->second, db::as_double(row[1])});
    std::vector<std::string> names;
    for (std::size_t i : find_strategy("steady-top")->make(context)->ask()) names.push_back(plan.legal[i].name);
    return names;
  }

  std::vector<Plan> plan_problem(const Problem& problem, std::size_t index, ThreadPool& pool) {
    std::vector<Plan> plans;
    for (const Family* family : families_for(problem)) {
      Plan p{family, enumerate(*family, problem, target_), {}, {}, {}, {}, nullptr, index == 0 && plans.empty()};
      for (const Candidate& c : p.space.candidates)
        if (!c.pruned()) p.legal.push_back(c);
      const StrategyInfo* info = find_strategy(o_.strategy);
      if (!info) throw std::runtime_error("--strategy '" + o_.strategy + "' is not a strategy (" + strategy_names() + ")");
      StrategyContext context;
      context.family = family;
      context.problem = problem;
      context.target = target_;
      context.candidates = p.legal;
      context.seed = o_.seed;
      if (o_.budget >= 0) context.budget = o_.budget;
      if (info->reads_history && !p.legal.empty()) context.history = history_for(*family);
      p.strategy = info->make(context);
      p.chosen_index = p.strategy->ask();
      if (shared_) shared_->board->add_total(lane_, p.strategy->budget());
      if (!o_.configs.empty())
        std::erase_if(p.chosen_index, [&](std::size_t i) {
          return std::find(o_.configs.begin(), o_.configs.end(), p.legal[i].name) == o_.configs.end();
        });
      for (std::size_t i : p.chosen_index) p.chosen.push_back(p.legal[i]);
      if (!o_.configs.empty())
        for (const Candidate& c : p.chosen) named_found_.push_back(c.name);
      queue_compiles(p, problem, pool);
      plans.push_back(std::move(p));
    }
    return plans;
  }

  // Where every candidate of every family swept for `problem` is pruned before compiling, the
  // lines that say so: one sentence, then one line per family with its prune reasons counted.
  void note_if_no_config_can_run(const Problem& problem, const std::vector<Plan>& plans) {
    std::string names;
    for (const Plan& plan : plans) {
      if (plan.space.legal() > 0) return;
      names += (names.empty() ? "" : ", ") + std::string(plan.family->name());
    }
    no_config_.push_back("coalesce-tune: " + device_tag() + "no config can run " + shape(problem) + " " +
                         std::string(to_string(problem.dtype)) + " " + std::string(to_string(problem.epilogue)) +
                         " on " + target_.arch() + ": every candidate of " + names +
                         " is pruned before compiling" + (db_ && !o_.dry_run ? " (the run ends failed)" : ""));
    for (const Plan& plan : plans) no_config_.push_back("  " + pruned_by_reason(plan.space));
  }

  // --time-budget: the time left, shared evenly among the problem and family pairs not yet
  // swept, so that the first family cannot spend the others' time; none without a budget.
  std::optional<Clock::time_point> family_deadline() {
    if (!o_.time_budget_s) return std::nullopt;
    const auto now = Clock::now();
    const auto end = started_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(*o_.time_budget_s));
    const std::size_t share = std::max<std::size_t>(families_left_, 1);
    if (families_left_ > 0) --families_left_;
    if (now >= end) return now;
    return now + (end - now) / static_cast<long>(share);
  }

  // Queues the compiles of the plan's candidates not queued yet, in their order.
  void queue_compiles(Plan& p, const Problem& problem, ThreadPool& pool) {
    const Jit* jit = &jit_for(*p.family);
    for (std::size_t i = p.prepared.size(); i < p.chosen.size(); ++i) {
      std::string inject = p.first && static_cast<int>(i) == hooks_.inject_at ? hooks_.inject : "";
      p.prepared.push_back(pool.submit([jit, problem, c = p.chosen[i].config, target = target_, inject] {
        return prepare(*jit, problem, c, target, inject);
      }));
    }
  }

  void sweep_problem(const Problem& problem, std::vector<Plan>& plans, ThreadPool& pool) {
    if (db_) {
      problem_id_ = db_->upsert_problem(problem);
      problem_ = problem;
      measuring_problem_ = false;
    }
    for (Plan& plan : plans) {
      if (g_interrupted) return;
      sweep_family(problem, plan, pool);
    }
    if (db_ && o_.peers.enabled && !g_interrupted) measure_peers(problem);
  }

  // --peers: the problem's peers, by scripts/torch_peers.py on this device with this sweep's
  // timing settings, into a database of their own that is then merged into this one (the sweep
  // holds the writer lease of its database; the script's recorder needs one). That database
  // starts with this device's row as the sweep stored it, so the merge finds it the same.
  void measure_peers(const Problem& problem) {
    static std::once_flag asked;
    static std::optional<std::string> no_torch;
    std::call_once(asked, [&] {
      no_torch = torch_unavailable(o_.peers.python);
      if (no_torch) std::fprintf(stderr, "coalesce-tune: peers skipped: PyTorch is not importable (%s)\n", no_torch->c_str());
    });
    if (no_torch) return;
    publish();
    out_.flush();
    static std::atomic<int> calls{0};
    const fs::path dir = fs::temp_directory_path() / ("coalesce-peers-" + std::to_string(getpid()) + "-" +
                                                      std::to_string(calls++));
    fs::remove_all(dir);
    fs::create_directories(dir);
    struct Cleanup {
      fs::path dir;
      ~Cleanup() {
        std::error_code ec;
        fs::remove_all(dir, ec);
      }
    } cleanup{dir};
    const fs::path peers_db = dir / "peers.db";
    { db::Database::open(peers_db, db::Mode::read_write).upsert_device(db::device_row(*device_)); }
    const PeersCall call{peers_db, self_exe(), problem, o_.device, o_.timing};
    for (const std::vector<std::string>& argv : peers_commands(o_.peers, call)) {
      if (g_interrupted) break;
      const int rc = run_and_wait(argv);
      if (rc != 0 && !g_interrupted)
        std::fprintf(stderr, "coalesce-tune: %speers of %s %s %s: %s exited with status %d; the sweep goes on\n",
                     device_tag().c_str(), shape(problem).c_str(), std::string(to_string(problem.dtype)).c_str(),
                     std::string(to_string(problem.epilogue)).c_str(), argv[1].c_str(), rc);
    }
    // One merge at a time: a sweep over several devices shares its database connection.
    static std::mutex merging;
    std::lock_guard lock(merging);
    db::Merger merger(*db_);
    const db::MergeResult merged = merger.merge(peers_db);
    out_ << device_tag() << "peers of " << shape(problem) << " " << to_string(problem.dtype) << " "
         << to_string(problem.epilogue) << " (" << protocol_of(o_.timing) << "): " << db::summary(merged) << "\n";
    for (const db::MergeConflict& c : merged.conflicts) out_ << "  " << db::describe(c, merged, o_.db_path) << "\n";
    publish();
  }

  void sweep_family(const Problem& problem, Plan& plan, ThreadPool& pool) {
    const Family& family = *plan.family;
    const Space& space = plan.space;
    const std::vector<Candidate>& chosen = plan.chosen;
    std::vector<std::future<Prepared>>& prepared = plan.prepared;
    const std::optional<Clock::time_point> deadline = family_deadline();

    // A dry run prints what it compiles; the configs pruned before compiling are counted in the
    // summary and listed by `coalesce-tune space`.
    std::map<std::string, std::size_t> counts;  // status -> rows of this problem
    if (db_) {
      for (const Candidate& c : space.candidates) {
        if (!c.pruned()) continue;
        const db::ConfigId id = db_->upsert_config(db::config_row(c.config, problem.dtype, problem.epilogue, ""));
        if (db_->measured(device_id_, problem_id_, id, "coalesce")) continue;
        db::MeasurementRow r = row_for(id, "coalesce");
        r.status = db::Status::pruned;
        r.prune_reason = violation_name(c.verdict.violation);
        r.message = c.verdict.why;
        store(r);
        pause_point("pruned");
      }
    }

    const std::size_t planned = o_.configs.empty() ? plan.strategy->budget() : chosen.size();
    Progress progress(label(problem, family.name()), planned, shared_ ? shared_->board : nullptr, lane_);
    std::size_t done = 0, pruned_after = 0, failed = 0, resumed = 0;
    int measured_now = 0;
    bool out_of_time = false;
    std::string best = best_so_far(problem, family);
    std::vector<Observation> seen;
    // The strategy's batches, each compiled ahead and measured in order; after a batch the
    // strategy is told its outcomes and asked for the next (exhaustive and random propose
    // everything in their first batch, as the sweep always measured them).
    for (std::size_t i = 0; !g_interrupted;) {
      for (; i < chosen.size() && !g_interrupted; ++i) {
        if (deadline && Clock::now() >= *deadline) {
          out_of_time = true;
          break;
        }
        const Candidate& c = chosen[i];
        Prepared p = wait(prepared[i]);
        std::optional<double> median;
        const std::string outcome = handle_candidate(problem, family, c, p, resumed, median);
        seen.push_back({plan.chosen_index[i], median});
        ++counts[outcome];
        if (outcome == "pruned") ++pruned_after;
        else if (outcome != "ok" && outcome != "compiled" && outcome != "already measured") ++failed;
        ++done;
        if (outcome == "ok") best = best_so_far(problem, family);
        progress.update(done, space.pruned() + pruned_after, failed, best);
        if (db_ && outcome != "already measured" && outcome != "pruned" && outcome != "compile_failed" &&
            ++measured_now == hooks_.stop_after)
          raise(SIGKILL);
      }
      if (out_of_time || g_interrupted || !o_.configs.empty()) break;
      plan.strategy->tell(seen);
      seen.clear();
      const std::vector<std::size_t> next = plan.strategy->ask();
      if (next.empty()) break;
      for (std::size_t j : next) {
        plan.chosen_index.push_back(j);
        plan.chosen.push_back(plan.legal[j]);
      }
      queue_compiles(plan, problem, pool);
    }
    progress.finish();
    if (!seen.empty()) plan.strategy->tell(seen);
    // With the time spent, the winner's unfused build is not measured: it would overrun the budget.
    if (db_ && !g_interrupted && !out_of_time) measure_winner_unfused(problem, family, pool);
    summarize(problem, family, space, chosen.size(), counts, resumed);
    if (out_of_time)
      out_ << "  time budget: " << family.name() << "'s share spent after " << done << " of " << planned
           << " configs; " << plan.strategy->expectation() << "\n";
    publish();
  }

  // The baselines measured in every run, in kMethods' order (schema/vocabulary.hpp).
  void measure_baselines() {
    for (const db::MethodInfo& baseline : db::kMethods) {
      if (baseline.origin != db::MethodOrigin::baseline) continue;
      const std::string method(baseline.name);
      if (g_interrupted) return;
      if (db_->baseline_measured(run_, device_id_, problem_id_, method)) continue;
      pause_point("baseline");
      std::string why_not;
      std::optional<Outcome> o = measuring([&] { return worker_->baseline(method, &why_not); });
      if (!o) {
        std::fprintf(stderr, "coalesce-tune: %s%s not measured: %s\n", device_tag().c_str(), method.c_str(),
                     why_not.c_str());
        continue;
      }
      db::MeasurementRow r = row_for(std::nullopt, method);
      fill(r, *o);
      store(r);
    }
  }

  // The median of a config this device already measured ok for the problem in this protocol.
  std::optional<double> stored_median(db::ConfigId config) const {
    const db::ResultSet rs = db_->query(
        "SELECT median_ms FROM measurements WHERE device_id = ?1 AND problem_id = ?2 AND config_id = ?3 "
        "AND method = 'coalesce' AND protocol = ?4 AND status = 'ok'",
        {db::Value(device_id_), db::Value(problem_id_), db::Value(config), db::Value(protocol_of(o_.timing))});
    if (rs.rows.empty()) return std::nullopt;
    return db::as_double(rs.rows[0][0]);
  }

  // What a strategy that learns (StrategyInfo::reads_history) learns from: the sweeps of the
  // --history databases and stored-sweeps files, else of this sweep's own database and the
  // published ones (any may be absent: a dry run opens no database). Prints, once per family,
  // how much it learns from and where from.
  std::vector<TrainingRow> history_for(const Family& family) {
    if (!stored_) {
      stored_.emplace();
      std::vector<fs::path> paths = o_.history;
      std::error_code ec;
      if (paths.empty())
        for (const fs::path& p : o_.published_history)
          if (!(db_ && fs::exists(o_.db_path, ec) && fs::equivalent(o_.db_path, p, ec))) paths.push_back(p);
      std::vector<db::Database> opened;
      std::vector<const db::Database*> sources;
      if (o_.history.empty() && db_) {
        sources.push_back(db_);
        history_sources_.push_back(o_.db_path.string() + " (--db)");
      }
      for (const fs::path& path : paths) {
        history_sources_.push_back(path.string());
        if (is_sweeps_file(path)) {
          std::vector<StoredSweep> more = read_sweeps_file(path);
          stored_->insert(stored_->end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
        } else {
          opened.push_back(db::Database::open(path, db::Mode::read_only));
        }
      }
      for (const db::Database& d : opened) sources.push_back(&d);
      for (const db::Database* d : sources) {
        std::vector<StoredSweep> more = stored_sweeps(*d);
        stored_->insert(stored_->end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
      }
    }
    auto [cached, fresh] = history_rows_.try_emplace(std::string(family.name()));
    std::vector<TrainingRow>& rows = cached->second;
    if (fresh) {
      rows = training_rows(*stored_, family.name(), [](const StoredSweep&) { return false; });
      // Counted here: sweeps of two sources may share a run number, hence a group name.
      const auto sweeps = std::count_if(stored_->begin(), stored_->end(),
                                        [&](const StoredSweep& s) { return s.family == family.name() && s.teaches(); });
      std::string from;
      for (const std::string& source : history_sources_) from += (from.empty() ? "" : ", ") + source;
      out_ << device_tag() << o_.strategy << ": learns from " << rows.size() << " measured configs of "
           << family.name() << " in " << sweeps << " stored sweeps ("
           << (from.empty() ? "no database" : from) << ")"
           << (rows.empty() ? "; with none, it starts from a seeded order and learns from this sweep's measurements" : "")
           << "\n";
    }
    return rows;
  }

  // Returns what became of the candidate: a status name or "already measured"; `median` its
  // median when it was measured ok, now or before.
  std::string handle_candidate(const Problem& problem, const Family& family, const Candidate& c, const Prepared& p,
                               std::size_t& resumed, std::optional<double>& median) {
    median.reset();
    if (!p.emitted) {
      // The compiler refused a config the space let through: a compile failure with its reason.
      if (!db_) {
        out_ << c.name << "  compile_failed (emission): " << first_line(p.emit_error) << "\n";
        return "compile_failed";
      }
      const db::ConfigId id = db_->upsert_config(db::config_row(c.config, problem.dtype, problem.epilogue, ""));
      if (db_->measured(device_id_, problem_id_, id, "coalesce")) {
        ++resumed;
        return "compile_failed";
      }
      db::MeasurementRow r = row_for(id, "coalesce");
      r.status = db::Status::compile_failed;
      r.message = "emission failed: " + first_line(p.emit_error);
      store(r);
      return "compile_failed";
    }
    const CompileResult& cr = p.compiled;
    std::optional<db::ConfigId> id;
    if (db_) {
      id = db_->upsert_config(db::config_row(c.config, problem.dtype, problem.epilogue, cr.source_hash));
      if (db_->measured(device_id_, problem_id_, *id, "coalesce", protocol_of(o_.timing))) {
        ++resumed;
        median = stored_median(*id);
        return "already measured";
      }
    }
    if (!cr.ok) {
      if (!db_) {
        out_ << c.name << "  compile_failed: " << first_line(cr.log) << "\n";
        return "compile_failed";
      }
      ensure_run();
      db_->in_transaction([&] {
        const db::BuildId build = db_->upsert_build(build_row(family, *id, c, p));
        db::MeasurementRow r = row_for(id, "coalesce");
        r.build = build;
        r.status = db::Status::compile_failed;
        r.message = first_line(cr.log);
        store(r);
      });
      return "compile_failed";
    }
    const KernelResources& kernel = *cr.resources;
    const Verdict after = compiled_verdict(family, c.config, limits_, kernel);
    std::string why;
    if (!after.ok()) why = std::string(after.why) + " (" + figures(cr) + ")";
    if (!db_) {
      out_ << c.name << "  " << (after.ok() ? "compiled" : std::string("pruned ") + violation_name(after.violation))
           << "  registers " << kernel.registers << " (predicted " << c.predicted.registers << ")"
           << (kernel.uses_local_memory() ? "  spills" : "") << "  " << fixed(cr.compile_seconds, 2) << " s"
           << (cr.attempts > 1 ? " (retried alone)" : "") << (cr.cache_hit ? " (cached)" : "")
           << (why.empty() ? "" : "  " + why) << "\n";
      out_.flush();  // keep the lines in order with the progress line when both go to one file
      return after.ok() ? "compiled" : "pruned";
    }
    db::BuildId build = 0;
    if (!after.ok()) {
      ensure_run();
      db_->in_transaction([&] {
        build = db_->upsert_build(build_row(family, *id, c, p));
        db::MeasurementRow r = row_for(id, "coalesce");
        r.build = build;
        r.status = db::Status::pruned;
        r.prune_reason = violation_name(after.violation);
        r.message = why;
        store(r);
      });
      return "pruned";
    }
    build = db_->upsert_build(build_row(family, *id, c, p));
    pause_point("build");
    ready_to_measure();
    // The worker runs in its own process group, so Ctrl-C stops the sweep after this
    // measurement rather than killing it halfway.
    const Outcome o = measuring([&] { return worker_->kernel(cr.cubin_path, p.symbol, c.config); });
    db::MeasurementRow r = row_for(id, "coalesce");
    r.build = build;
    fill(r, o);
    store(r);
    if (o.ok() && o.median_ms) median = o.median_ms;
    return o.status;
  }

  // The winner again, unfused: its own GEMM (epilogue none) then the separate bias+activation
  // kernel, stored as method `coalesce_unfused` under the winner's config.
  // Not for a gated epilogue: its act-and-multiply reads the M×N product and writes the M×N/2 C,
  // so it cannot run in place over the kernel's C (the `unfused` baseline has its intermediate).
  void measure_winner_unfused(const Problem& problem, const Family& family, ThreadPool& pool) {
    if (problem.epilogue == Epilogue::none || epilogue_spec(problem.epilogue).reads.gated) return;
    auto best = db_->best_config(device_id_, problem, std::string(family.name()), protocol_of(o_.timing));
    if (!best || db_->measured(device_id_, problem_id_, best->config, "coalesce_unfused", protocol_of(o_.timing)))
      return;
    auto named = parse_config_name(best->name);
    if (!named) throw std::runtime_error("the best config's name does not parse: " + best->name);
    Problem gemm_only = problem;
    gemm_only.epilogue = Epilogue::none;
    const Config config = named->config;
    auto job = pool.submit([jit = &jit_for(family), gemm_only, config, target = target_] {
      return prepare(*jit, gemm_only, config, target, "");
    });
    Prepared p = wait(job);
    db::MeasurementRow r = row_for(best->config, "coalesce_unfused");
    if (!p.emitted || !p.compiled.ok) {
      r.status = db::Status::compile_failed;
      r.message = "the winner's epilogue-none kernel did not build: " +
                  first_line(p.emitted ? p.compiled.log : p.emit_error);
      store(r);
      return;
    }
    const Resources predicted = family.predict(config, limits_, gemm_only);
    Candidate gemm_candidate{.config = config, .name = p.symbol, .verdict = {}, .predicted = predicted};
    const db::ConfigId gemm_id =
        db_->upsert_config(db::config_row(config, gemm_only.dtype, gemm_only.epilogue, p.compiled.source_hash));
    r.build = db_->upsert_build(build_row(family, gemm_id, gemm_candidate, p));
    pause_point("unfused");
    ready_to_measure();
    const Outcome o =
        measuring([&] { return worker_->kernel_then_epilogue(p.compiled.cubin_path, p.symbol, config); });
    fill(r, o);
    store(r);
  }

  void summarize(const Problem& problem, const Family& family, const Space& space, std::size_t chosen,
                 const std::map<std::string, std::size_t>& counts, std::size_t resumed) {
    const std::string family_name(family.name());
    out_ << "problem " << shape(problem) << " " << to_string(problem.dtype) << " " << to_string(problem.epilogue)
         << ", family " << family_name;
    if (device_) out_ << " on " << device_->name << " (" << family.nvrtc_arch(target_) << ")";
    if (shared_) out_ << ", device " << o_.device << " (" << device_->uuid << ")";
    if (run_) out_ << ", run " << run_;
    out_ << "\n  space: " << space.candidates.size() << " candidates (" << space.non_configs.size()
         << " list combinations are not " << family_name << " configs), " << space.pruned()
         << " pruned before compiling" << (db_ ? "" : " (coalesce-tune space lists them)") << ", " << chosen
         << " selected";
    for (const auto& [status, n] : counts) out_ << ", " << n << " " << status;
    if (space.unsplittable)
      out_ << "\n  split-K not listed for " << space.unsplittable
           << " configs whose unsplit grid already fills a wave of the SMs";
    out_ << "\n";
    if (!db_) return;
    // The comparison comes from the database, so a resumed sweep reports its whole run, and from
    // this sweep's timing protocol: its baselines are those of the winner's run.
    const std::string protocol = protocol_of(o_.timing);
    db::ResultSet rs = db_->query(
        "SELECT config_name, coalesce_ms, cublas_gemm_ms, eager_ms, unfused_ms, cublaslt_fused_ms, "
        "coalesce_unfused_ms, run_id FROM v_comparison WHERE device_id = ?1 AND problem_id = ?2 AND family = ?3 "
        "AND protocol = ?4",
        {db::Value(device_id_), db::Value(problem_id_), db::Value(family_name), db::Value(protocol)});
    if (rs.rows.empty()) {
      out_ << "  no config of " << family_name << " measured ok in protocol " << protocol << "\n";
      return;
    }
    const auto& row = rs.rows.front();
    const double best_ms = db::as_double(row[1]);
    auto tflops = [&](double ms) { return problem.flops() / (ms * 1e-3) / 1e12; };
    out_ << "  best             " << fixed(best_ms, 3) << " ms  " << fixed(tflops(best_ms), 1) << " TFLOP/s  "
         << db::as_text(row[0]) << " (run " << db::as_text(row[7]) << ", " << protocol << ")\n";
    // Where this device and problem were timed in a protocol that ranks ahead of this sweep's
    // (protocols.preference; docs/tuner.md, "The timing protocol"), that protocol's best is the
    // one the compiler and the reports take: said beside this sweep's own.
    if (auto first = db_->best_config(device_id_, problem, family_name); first && first->protocol != protocol)
      out_ << "  ranked first     " << fixed(first->median_ms, 3) << " ms  " << fixed(tflops(first->median_ms), 1)
           << " TFLOP/s  " << first->name << " (run " << first->run << ", " << first->protocol
           << "): its protocol ranks ahead of " << protocol << "\n";
    const char* names[] = {"cublas_gemm", "eager", "unfused", "cublaslt_fused", "coalesce_unfused"};
    for (int i = 0; i < 5; ++i) {
      const db::Value& v = row[2 + i];
      out_ << "  " << names[i] << std::string(17 - std::string(names[i]).size(), ' ');
      if (db::is_null(v)) {
        out_ << "not measured ok in that run\n";
        continue;
      }
      const double ms = db::as_double(v);
      out_ << fixed(ms, 3) << " ms  " << fixed(tflops(ms), 1) << " TFLOP/s  best at " << fixed(ms / best_ms * 100, 1)
           << "% of its throughput\n";
    }
    // The floors of the same run (read_b: reading B once), which bound the best rather than
    // compete with it.
    for (const db::MethodInfo& floor : db::kMethods) {
      if (floor.kind != db::MethodKind::floor) continue;
      const std::string name(floor.name);
      db::ResultSet f = db_->query(
          "SELECT median_ms FROM measurements WHERE run_id = ?1 AND device_id = ?2 AND problem_id = ?3 "
          "AND method = ?4 AND config_id IS NULL AND status = 'ok'",
          {row[7], db::Value(device_id_), db::Value(problem_id_), db::Value(name)});
      out_ << "  " << name << std::string(name.size() < 17 ? 17 - name.size() : 1, ' ');
      if (f.rows.empty()) {
        out_ << "not measured ok in that run\n";
        continue;
      }
      const double ms = db::as_double(f.rows[0][0]);
      out_ << fixed(ms, 3) << " ms  a floor, not a GEMM: best takes " << fixed(best_ms / ms, 2) << "× it\n";
    }
    if (resumed) out_ << "  " << resumed << " configs were already measured (resumed)\n";
  }

  const SweepOptions& o_;
  std::ostringstream local_;  // this device's lines on a sweep over several devices
  std::ostream& out_;
  TestHooks hooks_;
  Shared* shared_;
  std::size_t lane_;
  std::optional<DeviceInfo> device_;
  Target target_;
  DeviceLimits limits_;
  std::string arch_;
  std::filesystem::path cache_dir_;
  std::map<std::string, Jit> jits_;
  std::vector<std::string> named_found_;  // the --config names some problem's space holds
  std::vector<std::string> no_config_;    // the lines of note_if_no_config_can_run, for the end
  std::optional<db::Database> own_db_;
  db::Database* db_ = nullptr;  // own_db_, the one shared by a sweep over several devices, or the caller's
  std::optional<WorkerProcess> worker_;
  db::DeviceId device_id_ = 0;
  db::RunId run_ = 0;
  db::ProblemId problem_id_ = 0;
  std::optional<std::vector<StoredSweep>> stored_;  // history_for's sweeps, read once
  std::map<std::string, std::vector<TrainingRow>> history_rows_;  // history_for's rows by family, built once
  std::vector<std::string> history_sources_;         // where they came from, for the line it prints
  Clock::time_point started_ = Clock::now();
  std::size_t families_left_ = 0;  // (problem, family) pairs not yet swept, for --time-budget's shares
  Problem problem_;                 // the problem being swept
  bool measuring_problem_ = false;  // its worker is set up and its baselines are measured
  TimeSplit time_;
  int pause_reached_ = 0;  // times the sweep reached COALESCE_TEST_PAUSE's step
};

}  // namespace

std::string resume_key(const SweepOptions& o) {
  std::ostringstream k;
  k << "family=";
  for (std::size_t i = 0; i < o.families.size(); ++i) k << (i ? "," : "") << o.families[i];
  k << ";problems=";
  for (const Problem& p : o.problems)
    k << shape(p) << ":" << to_string(p.dtype) << ":" << to_string(p.epilogue) << ",";
  k << ";strategy=" << o.strategy;
  if (o.strategy != "exhaustive") k << ";budget=" << o.budget << ";seed=" << o.seed;
  if (o.time_budget_s) k << ";time_budget=" << *o.time_budget_s;
  for (const fs::path& h : o.history) k << ";history=" << h.string();
  for (const std::string& c : o.configs) k << ";config=" << c;
  if (o.shards > 1) k << ";shard=" << o.shard << "/" << o.shards;
  if (o.max_workspace_bytes != SweepOptions{}.max_workspace_bytes) k << ";max_workspace=" << o.max_workspace_bytes;
  if (const json timing = o.timing; timing != json(TimingSettings{})) k << ";timing=" << timing.dump();
  k << ";git=" << COALESCE_GIT_REVISION;
  return k.str();
}

std::vector<Problem> shard_problems(const std::vector<Problem>& problems, int shard, int shards) {
  std::vector<Problem> out;
  for (std::size_t i = 0; i < problems.size(); ++i)
    if (static_cast<int>(i % static_cast<std::size_t>(shards)) == shard) out.push_back(problems[i]);
  return out;
}

int available_devices() { return TestHooks::from_env().standin_worker.empty() ? device_count() : standin_devices(); }

namespace {

// A sweep over several devices: problem i on devices[i mod D], each device's Sweep on its own
// thread; they share the compile pool, the database and stdout. A device that fails stops
// alone; the others finish their problems.
int run_on_devices(const SweepOptions& o, std::ostream& out) {
  std::vector<SweepOptions> lanes;
  std::vector<int> ordinals;
  for (std::size_t j = 0; j < o.devices.size(); ++j) {
    SweepOptions lane = o;
    lane.devices.clear();
    lane.device = o.devices[j];
    lane.problems = shard_problems(o.problems, static_cast<int>(j), static_cast<int>(o.devices.size()));
    if (lane.problems.empty()) {
      std::fprintf(stderr, "coalesce-tune: device %d has no problem to sweep (%zu problems over %zu devices)\n",
                   lane.device, o.problems.size(), o.devices.size());
      continue;
    }
    lanes.push_back(std::move(lane));
    ordinals.push_back(o.devices[j]);
  }
  ThreadPool pool(o.jobs ? o.jobs : std::max(1u, std::thread::hardware_concurrency()));
  db::Database db = db::Database::open(o.db_path, db::Mode::read_write);
  Board board(ordinals);
  Shared shared{&pool, &db, &out, {}, &board};
  std::vector<int> status(lanes.size(), 0);
  std::vector<std::string> stopped(lanes.size());
  {
    std::vector<std::jthread> threads;
    for (std::size_t j = 0; j < lanes.size(); ++j)
      threads.emplace_back([&, j] {
        try {
          status[j] = Sweep(lanes[j], out, &shared, j).run();
          if (status[j] == 1) stopped[j] = "no config can run some of its problems (listed above)";
        } catch (const std::exception& e) {
          stopped[j] = e.what();
          std::fprintf(stderr, "coalesce-tune: device %d stopped: %s; the other devices go on\n", lanes[j].device,
                       e.what());
          status[j] = 1;
        }
      });
  }
  board.finish();
  int failed = 0;
  bool interrupted = false;
  for (std::size_t j = 0; j < lanes.size(); ++j) {
    failed += status[j] == 1;
    interrupted = interrupted || status[j] == 130;
  }
  out << "devices: " << lanes.size() << " swept";
  if (failed) {
    out << ", " << failed << " stopped (";
    bool first = true;
    for (std::size_t j = 0; j < lanes.size(); ++j)
      if (status[j] == 1) out << (first ? "" : "; ") << "device " << lanes[j].device << ": " << stopped[j], first = false;
    out << "); the same command measures what they left";
  }
  out << "\n";
  if (interrupted) return 130;
  return failed ? 1 : 0;
}

}  // namespace

int run_sweep(const SweepOptions& o, std::ostream& out) {
  SweepOptions mine = o;
  if (o.shards > 1) {
    mine.problems = shard_problems(o.problems, o.shard, o.shards);
    if (mine.problems.empty()) {
      out << "nothing to do: shard " << o.shard << "/" << o.shards << " has no problem (the sweep has "
          << o.problems.size() << "; problem i belongs to shard i mod " << o.shards << ")\n";
      return 0;
    }
  }
  if (mine.devices.size() == 1) mine.device = mine.devices.front();
  if (mine.devices.size() <= 1) {
    mine.devices.clear();
    return Sweep(mine, out).run();
  }
  return run_on_devices(mine, out);
}

}  // namespace coalesce::tuner
