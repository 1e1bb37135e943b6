// `kill -9` from outside at any moment of a sweep, then the same command again: the resumed
// database must equal an uninterrupted one on every column the stand-in worker makes
// deterministic (deterministic_content in sweep_support.hpp), not only on each row's method,
// config and status. The sweep is killed at each named step where it pauses for the test
// (COALESCE_TEST_PAUSE, tuner/sweep.cpp: among the baselines, among the pruned rows, between a
// build and its measurement, at the winner unfused) and at seeded random moments, once or twice
// before the run completes. No GPU: the real binary compiles with NVRTC while
// standin_worker.sh answers the measurements. The sweeps' progress lines go to files, and into
// the log only with a failure, so that a failure is what the log shows.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "kernels/simt/family.hpp"
#include "tests/unit/tuner/sweep_support.hpp"
#include "tuner/space.hpp"

namespace coalesce::sweep_test {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr int kShape = 256;
constexpr int kBudget = 6;
constexpr int kSeed = 11;

const std::string kStandIn = std::string("COALESCE_TEST_STANDIN_WORKER=") + STANDIN_WORKER;

// The binary's scratch directory: one kernel cache and one uninterrupted sweep for every test.
// In memory where there is a tmpfs: a sweep commits each of its ~750 rows with an fsync, which
// takes 6 s on a disk and 0.8 s there, and a kill -9 leaves the page cache as it was either way.
fs::path scratch() {
  std::error_code ec;
  const fs::path base = fs::is_directory("/dev/shm", ec) ? fs::path("/dev/shm") : fs::temp_directory_path();
  return base / ("coalesce-sweep-kill-test-" + std::to_string(getpid()));
}
fs::path cache() { return scratch() / "cache"; }
fs::path whole() { return scratch() / "whole.db"; }

std::vector<std::string> args(const fs::path& db) {
  return {"sweep", "--shape", std::to_string(kShape), "--strategy", "random", "--budget", std::to_string(kBudget),
          "--seed", std::to_string(kSeed), "--db", db.string(), "--cache-dir", cache().string()};
}

// Each kernel's measurement takes this long in the randomly killed sweeps, so that the
// measuring lane is a fair share of a sweep (the stand-in answers at once otherwise).
const std::string kDelay = "STANDIN_DELAY=0.05";

// How long an uninterrupted sweep takes with a warm cache and kDelay: the random kills fall
// within it.
double g_sweep_s = 0;

class KilledSweep : public ::testing::Environment {
 public:
  void SetUp() override {
    fs::remove_all(scratch());
    fs::create_directories(scratch());
    // The reference compiles every kernel into the cache; the sweeps after it find them there
    // with the compile figures of the reference's builds.
    Exit e = run(COALESCE_TUNE, args(whole()), {kStandIn}, true);
    ASSERT_EQ(e.code, 0) << e.out << e.err;
    const fs::path timed = scratch() / "timed.db";
    const auto start = Clock::now();
    e = run(COALESCE_TUNE, args(timed), {kStandIn, kDelay}, true);
    g_sweep_s = std::chrono::duration<double>(Clock::now() - start).count();
    ASSERT_EQ(e.code, 0) << e.out << e.err;
    std::fprintf(stderr, "an uninterrupted sweep takes %.2f s with a warm cache\n", g_sweep_s);
  }
  void TearDown() override { fs::remove_all(scratch()); }
};

const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new KilledSweep);

class KillTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_GT(g_sweep_s, 0) << "the uninterrupted sweep failed";
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string(info->test_suite_name()) + "-" + info->name();
    for (char& c : name)
      if (c == '/') c = '-';
    dir_ = scratch() / name;
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The same command again, run to its end; then the database must equal the uninterrupted one.
  void resume_and_compare(const fs::path& db, int kills) {
    Exit e = run(COALESCE_TUNE, args(db), {kStandIn}, true);
    ASSERT_EQ(e.code, 0) << e.out << e.err;
    EXPECT_EQ(count(db, "SELECT COUNT(*) FROM runs"), 1);
    // A kill before the run row was committed leaves nothing to resume.
    EXPECT_LE(count(db, "SELECT resumed FROM runs WHERE status = 'completed'"), kills);
    std::vector<std::string> unclassified;
    const Content resumed = deterministic_content(db, &unclassified);
    EXPECT_TRUE(unclassified.empty()) << "columns neither compared nor left out: " << ::testing::PrintToString(unclassified);
    EXPECT_EQ(content_diff(resumed, deterministic_content(whole())), "");
  }

  fs::path dir_;
};

// --- The named steps ------------------------------------------------------------------------

long long pruned_in_space() {
  return static_cast<long long>(tuner::enumerate(simt_family(), Problem{kShape, kShape, kShape, Dtype::f32, Epilogue::bias_gelu},
                                                 Target{9, 0, true, DeviceLimits{}})
                                    .pruned());
}

struct Step {
  const char* step;  // COALESCE_TEST_PAUSE's step
  int n;             // the time it is reached; 0 for the last pruned row
};

std::string step_name(const ::testing::TestParamInfo<Step>& info) {
  return std::string(info.param.step) + "_" + (info.param.n ? std::to_string(info.param.n) : "last");
}

class KillAtStep : public KillTest, public ::testing::WithParamInterface<Step> {
 protected:
  // Starts the sweep, waits until it pauses at the step, kills it there with SIGKILL.
  void kill_at(const fs::path& db, const Step& s) {
    const fs::path marker = dir_ / "paused", out = dir_ / "stdout", err = dir_ / "stderr";
    const pid_t pid = spawn(COALESCE_TUNE, args(db),
                            {kStandIn, "COALESCE_TEST_PAUSE=" + std::string(s.step) + ":" + std::to_string(s.n),
                             "COALESCE_TEST_PAUSE_MARKER=" + marker.string()},
                            out, err);
    const auto deadline = Clock::now() + std::chrono::seconds(120);
    while (!fs::exists(marker) && Clock::now() < deadline) {
      int status = 0;
      if (waitpid(pid, &status, WNOHANG) == pid) FAIL() << "the sweep ended before it reached " << s.step << ":" << s.n;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    kill(pid, SIGKILL);
    Exit e = finish(pid, out, err);
    ASSERT_TRUE(fs::exists(marker)) << "the sweep never reached " << s.step << ":" << s.n;
    ASSERT_EQ(e.signal, SIGKILL) << "exit " << e.code << "\n" << e.out << e.err;
  }
};

// Counts of what a killed database holds.
long long baselines(const fs::path& db) { return count(db, "SELECT COUNT(*) FROM measurements WHERE config_id IS NULL"); }
long long pruned_before_compiling(const fs::path& db) {
  return count(db, "SELECT COUNT(*) FROM measurements WHERE status = 'pruned' AND build_id IS NULL");
}
long long candidate_rows(const fs::path& db) {
  return count(db, "SELECT COUNT(*) FROM measurements WHERE method = 'coalesce' AND build_id IS NOT NULL");
}
long long measured_candidates(const fs::path& db) {
  return count(db,
               "SELECT COUNT(*) FROM measurements WHERE method = 'coalesce' AND build_id IS NOT NULL "
               "AND status NOT IN ('pruned', 'compile_failed')");
}
// Builds no row points at: stored, their measurement not yet.
long long builds_without_row(const fs::path& db) {
  return count(db, "SELECT COUNT(*) FROM builds b WHERE NOT EXISTS (SELECT 1 FROM measurements x WHERE x.build_id = b.id)");
}

TEST_P(KillAtStep, ResumesToTheSameDatabase) {
  Step s = GetParam();
  if (s.n == 0) s.n = static_cast<int>(pruned_in_space());
  const fs::path db = dir_ / "killed.db";
  ASSERT_NO_FATAL_FAILURE(kill_at(db, s));
  // What the kill left: exactly the rows before the step.
  const std::string step = s.step;
  // The order a sweep stores in: the rows pruned before compiling, then, at the first candidate
  // that reaches the GPU (its build stored), the baselines, then that candidate's measurement.
  if (step == "baseline") {
    // The baselines before the step are stored, but for the fourth, cuBLASLt's: unavailable, no row.
    EXPECT_EQ(baselines(db), s.n <= 4 ? s.n - 1 : s.n - 2);
    EXPECT_EQ(pruned_before_compiling(db), pruned_in_space());
    EXPECT_EQ(candidate_rows(db), 0);
    EXPECT_EQ(builds_without_row(db), 1);
  } else if (step == "pruned") {
    EXPECT_EQ(baselines(db), 0);
    EXPECT_EQ(pruned_before_compiling(db), s.n);
    EXPECT_EQ(candidate_rows(db), 0);
  } else if (step == "build") {
    EXPECT_EQ(pruned_before_compiling(db), pruned_in_space());
    EXPECT_EQ(measured_candidates(db), s.n - 1);
    EXPECT_EQ(builds_without_row(db), 1);
  } else if (step == "unfused") {
    EXPECT_EQ(candidate_rows(db), kBudget);
    EXPECT_EQ(count(db, "SELECT COUNT(*) FROM measurements WHERE method = 'coalesce_unfused'"), 0);
    EXPECT_EQ(count(db,
                    "SELECT COUNT(*) FROM builds b JOIN configs c ON c.id = b.config_id WHERE c.name LIKE '%\\_none' "
                    "ESCAPE '\\' AND NOT EXISTS (SELECT 1 FROM measurements x WHERE x.build_id = b.id)"),
              1);
  }
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM runs WHERE status = 'running'"), 1);
  resume_and_compare(db, 1);
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM runs WHERE status = 'completed' AND resumed = 1"), 1);
  EXPECT_EQ(builds_without_row(db), 0);
}

// Before each of the four baselines the stand-in answers (cuBLASLt it reports unavailable; the
// last is the floor read_b) and before cuBLASLt's request; the first, a middle and the last pruned
// row; the first and the third build stored without its measurement; the winner's epilogue-none
// build.
INSTANTIATE_TEST_SUITE_P(Steps, KillAtStep,
                         ::testing::Values(Step{"baseline", 1}, Step{"baseline", 2}, Step{"baseline", 3},
                                           Step{"baseline", 4}, Step{"baseline", 5}, Step{"pruned", 1}, Step{"pruned", 300},
                                           Step{"pruned", 0}, Step{"build", 1}, Step{"build", 3},
                                           Step{"unfused", 1}),
                         step_name);

// --- Random moments -------------------------------------------------------------------------

// Seeded kills at moments drawn over the length of a whole sweep, once or twice before the run
// completes. COALESCE_KILL_SEED and COALESCE_KILL_ROUNDS replay or extend it; every draw is in
// the test's log.
TEST_F(KillTest, KilledAtRandomMomentsResumesToTheSameDatabase) {
  const char* seed_env = std::getenv("COALESCE_KILL_SEED");
  const char* rounds_env = std::getenv("COALESCE_KILL_ROUNDS");
  const unsigned long long seed = seed_env ? std::strtoull(seed_env, nullptr, 10) : 20261207;
  const int rounds = rounds_env ? std::atoi(rounds_env) : 12;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> moment(0.0, g_sweep_s);
  std::uniform_int_distribution<int> kills_per_round(1, 2);
  std::fprintf(stderr, "seed %llu, %d rounds over %.2f s\n", seed, rounds, g_sweep_s);
  for (int round = 0; round < rounds; ++round) {
    const fs::path db = dir_ / ("round-" + std::to_string(round) + ".db"), out = dir_ / "stdout",
                   err = dir_ / "stderr";
    const int kills = kills_per_round(rng);
    int landed = 0;
    bool completed = false;
    for (int k = 0; k < kills && !completed; ++k) {
      const double at = moment(rng);
      const pid_t pid = spawn(COALESCE_TUNE, args(db), {kStandIn, kDelay}, out, err);
      std::this_thread::sleep_for(std::chrono::duration<double>(at));
      kill(pid, SIGKILL);
      Exit e = finish(pid, out, err);
      if (e.signal == SIGKILL) ++landed;
      else ASSERT_EQ(e.code, 0) << e.out << e.err;
      // A kill after the run was marked completed (or after the process ended) leaves nothing
      // to resume: the same command again would start a new run.
      std::string held = "no database";
      try {
        held = std::to_string(count(db, "SELECT COUNT(*) FROM measurements")) + " rows, " +
               std::to_string(builds_without_row(db)) + " build without its row";
        completed = count(db, "SELECT COUNT(*) FROM runs WHERE status = 'completed'") > 0;
      } catch (const db::Error&) {
      }
      std::fprintf(stderr, "round %d: kill %d at %.3f s %s (%s%s)\n", round, k + 1, at,
                   e.signal == SIGKILL ? "landed" : "came after the end", held.c_str(),
                   completed ? ", run completed" : "");
    }
    SCOPED_TRACE("round " + std::to_string(round));
    if (completed) {
      EXPECT_EQ(content_diff(deterministic_content(db), deterministic_content(whole())), "");
    } else {
      resume_and_compare(db, landed);
    }
    fs::remove(db);
  }
}

}  // namespace
}  // namespace coalesce::sweep_test
