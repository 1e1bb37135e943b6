// The database side of `coalesce-tune sweep` without a GPU: the real binary compiles real
// kernels with NVRTC while a stand-in worker (standin_worker.sh) answers the measurements for a
// stand-in device. Every row is stored, kill -9 and Ctrl-C resume to the same rows, a second
// writer and bad databases are refused in one line with the file untouched.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/unit/tuner/sweep_support.hpp"
#include "kernels/simt/family.hpp"
#include "tuner/space.hpp"

namespace coalesce::sweep_test {
namespace {

namespace fs = std::filesystem;

constexpr int kShape = 256;
constexpr int kBudget = 6;
constexpr int kSeed = 11;

const std::string kStandIn = std::string("COALESCE_TEST_STANDIN_WORKER=") + STANDIN_WORKER;

class StandInSweep : public ::testing::Test {
 protected:
  // One kernel cache for the whole binary: every test compiles the same six configs.
  static fs::path cache() { return fs::temp_directory_path() / ("coalesce-sweep-test-cache-" + std::to_string(getpid())); }
  static void TearDownTestSuite() { fs::remove_all(cache()); }
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("coalesce-sweep-test-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::vector<std::string> args(const fs::path& db) {
    return {"sweep", "--shape", std::to_string(kShape), "--strategy", "random", "--budget", std::to_string(kBudget),
            "--seed", std::to_string(kSeed), "--db", db.string(), "--cache-dir", cache().string()};
  }
  static Exit sweep(const fs::path& db, std::vector<std::string> env = {}) {
    env.push_back(kStandIn);
    return run(COALESCE_TUNE, args(db), env);
  }
  static tuner::Space space() {
    return tuner::enumerate(simt_family(), Problem{kShape, kShape, kShape, Dtype::f32, Epilogue::bias_gelu},
                            Target{9, 0, true, DeviceLimits{}});
  }
  static std::string sha(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }
  fs::path dir_;
};

TEST_F(StandInSweep, StoresEveryRow) {
  const fs::path db = dir_ / "sweep.db";
  Exit e = sweep(db);
  ASSERT_EQ(e.code, 0) << e.out;
  EXPECT_NE(e.out.find("  best "), std::string::npos) << e.out;
  EXPECT_NE(e.out.find("cublaslt_fused   not measured ok"), std::string::npos) << e.out;
  EXPECT_NE(e.out.find("time: "), std::string::npos) << e.out;

  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM runs WHERE status = 'completed' AND resumed = 0 AND device_id IS NOT NULL"), 1);
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM runs WHERE git_revision <> '' AND toolkit <> '' AND command_line LIKE '%sweep%'"), 1);
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM measurements WHERE config_id IS NULL AND status = 'ok'"), 3);
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM measurements WHERE method = 'cublaslt_fused'"), 0);
  const tuner::Space s = space();
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM measurements WHERE method = 'coalesce' AND build_id IS NULL AND status = 'pruned'"),
            static_cast<long long>(s.pruned()));
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM measurements WHERE method = 'coalesce' AND build_id IS NOT NULL"), kBudget);
  for (const tuner::Candidate& c : tuner::select(s, tuner::Strategy::random, kBudget, kSeed))
    EXPECT_EQ(count(db, "SELECT COUNT(*) FROM v_measurements WHERE method = 'coalesce' AND config_name = '" + c.name + "'"), 1)
        << c.name;
  // Each pruned row names its category and says why; each build has ptxas' figures beside the
  // model's, and the pruned-after-compile ones say what ptxas reported.
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM measurements WHERE status = 'pruned' AND (prune_reason = '' OR message = '')"), 0);
  EXPECT_EQ(count(db,
                  "SELECT COUNT(*) FROM builds WHERE status = 'ok' AND (registers IS NULL OR predicted_registers IS NULL "
                  "OR spill_stores_bytes IS NULL OR compile_ms IS NULL OR threads IS NULL)"),
            0);
  EXPECT_EQ(count(db,
                  "SELECT COUNT(*) FROM measurements WHERE status = 'pruned' AND build_id IS NOT NULL "
                  "AND message NOT LIKE '%(ptxas: %'"),
            0);
  // The headline view: winner, baselines of the same run, the winner unfused.
  db::ResultSet v = query(db, "SELECT coalesce_ms, cublas_gemm_ms, eager_ms, unfused_ms, coalesce_unfused_ms, cublaslt_fused_ms FROM v_comparison");
  ASSERT_EQ(v.rows.size(), 1u);
  for (std::size_t i = 0; i < 5; ++i) EXPECT_FALSE(db::is_null(v.rows[0][i])) << v.columns[i];
  EXPECT_TRUE(db::is_null(v.rows[0][5]));
  // The unfused winner's row points at the build of the winner's epilogue-none kernel.
  EXPECT_EQ(count(db,
                  "SELECT COUNT(*) FROM measurements x JOIN builds b ON b.id = x.build_id JOIN configs c ON c.id = b.config_id "
                  "WHERE x.method = 'coalesce_unfused' AND c.name LIKE '%\\_none' ESCAPE '\\'"),
            1);
}

TEST_F(StandInSweep, ACompletedSweepRunAgainMeasuresOnlyItsBaselines) {
  const fs::path db = dir_ / "again.db";
  ASSERT_EQ(sweep(db).code, 0);
  const auto before = row_set(db, false);
  Exit again = sweep(db);
  ASSERT_EQ(again.code, 0) << again.out;
  // A completed sweep is not resumed: a new run measures its own baselines and skips every
  // config already measured on this device.
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM runs WHERE status = 'completed'"), 2);
  EXPECT_NE(again.out.find(std::to_string(kBudget) + " configs were already measured"), std::string::npos) << again.out;
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM measurements WHERE method = 'coalesce'"),
            count(db, "SELECT COUNT(*) FROM measurements WHERE method = 'coalesce' AND run_id = 1"));
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM measurements WHERE config_id IS NULL AND run_id = 2"), 3);
  EXPECT_GE(row_set(db, false).size(), before.size());
}

TEST_F(StandInSweep, AKilledSweepResumesToTheSameRows) {
  const fs::path whole = dir_ / "whole.db", killed = dir_ / "killed.db";
  ASSERT_EQ(sweep(whole).code, 0);
  Exit first = sweep(killed, {"COALESCE_TEST_STOP_AFTER=3"});
  ASSERT_EQ(first.signal, SIGKILL) << "exit " << first.code;
  EXPECT_EQ(count(killed, "SELECT COUNT(*) FROM measurements WHERE method = 'coalesce' AND status = 'ok'"), 3);
  EXPECT_EQ(count(killed, "SELECT COUNT(*) FROM runs WHERE status = 'running'"), 1);

  Exit second = sweep(killed);
  ASSERT_EQ(second.code, 0) << second.out;
  EXPECT_NE(second.out.find("3 configs were already measured"), std::string::npos) << second.out;
  EXPECT_EQ(count(killed, "SELECT COUNT(*) FROM runs"), 1);
  EXPECT_EQ(count(killed, "SELECT COUNT(*) FROM runs WHERE status = 'completed' AND resumed = 1"), 1);
  // The stand-in's timings depend only on the request, so even the winner is the same.
  EXPECT_EQ(row_set(killed, false), row_set(whole, false));
  EXPECT_EQ(count(killed, "SELECT COUNT(*) FROM measurements"), count(whole, "SELECT COUNT(*) FROM measurements"));
}

TEST_F(StandInSweep, CtrlCStopsAfterARowAndTheSameCommandFinishes) {
  const fs::path whole = dir_ / "whole.db", stopped = dir_ / "stopped.db";
  ASSERT_EQ(sweep(whole).code, 0);
  const fs::path out = dir_ / "stdout";
  pid_t pid = spawn(COALESCE_TUNE, args(stopped), {kStandIn, "STANDIN_DELAY=0.5"}, out);
  // Interrupt once two configs are in.
  for (int i = 0; i < 600; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    try {
      if (count(stopped, "SELECT COUNT(*) FROM measurements WHERE method = 'coalesce' AND status = 'ok'") >= 2) break;
    } catch (const db::Error&) {
      // not yet a database
    }
  }
  kill(pid, SIGINT);
  Exit first = finish(pid, out);
  EXPECT_EQ(first.code, 130) << first.out;
  EXPECT_NE(first.out.find("interrupted"), std::string::npos) << first.out;
  EXPECT_EQ(count(stopped, "SELECT COUNT(*) FROM runs WHERE status = 'interrupted'"), 1);
  EXPECT_LT(count(stopped, "SELECT COUNT(*) FROM measurements WHERE method = 'coalesce' AND status = 'ok'"), kBudget);

  ASSERT_EQ(sweep(stopped).code, 0);
  EXPECT_EQ(count(stopped, "SELECT COUNT(*) FROM runs WHERE status = 'completed' AND resumed = 1"), 1);
  EXPECT_EQ(row_set(stopped, false), row_set(whole, false));
}

TEST_F(StandInSweep, ASecondWriterIsRefusedInOneLine) {
  const fs::path db = dir_ / "busy.db";
  const fs::path out = dir_ / "stdout";
  pid_t first = spawn(COALESCE_TUNE, args(db), {kStandIn, "STANDIN_DELAY=0.5"}, out);
  bool started = false;
  for (int i = 0; i < 600 && !started; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    try {
      started = count(db, "SELECT COUNT(*) FROM runs") == 1;
    } catch (const db::Error&) {
      // not yet a database
    }
  }
  ASSERT_TRUE(started);
  const fs::path err = dir_ / "stderr";
  Exit second = run("/bin/sh", {"-c", std::string("\"$0\" \"$@\" 2>") + err.string(), COALESCE_TUNE, "sweep", "--shape",
                                "256", "--db", db.string(), "--cache-dir", cache().string()},
                    {kStandIn});
  EXPECT_NE(second.code, 0);
  std::ifstream in(err);
  std::string line, extra;
  std::getline(in, line);
  EXPECT_FALSE(std::getline(in, extra)) << "more than one line: " << line << " / " << extra;
  EXPECT_NE(line.find("coalesce-tune: "), std::string::npos) << line;
  Exit done = finish(first, out);
  EXPECT_EQ(done.code, 0) << done.out;
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM runs"), 1);
}

TEST_F(StandInSweep, ABadDatabaseIsRefusedInOneLineAndLeftAlone) {
  const fs::path not_db = dir_ / "notes.txt";
  std::ofstream(not_db) << "these are my notes, not a database\n";
  const std::string before = sha(not_db);
  const fs::path err = dir_ / "stderr";
  auto refused = [&](const fs::path& db) {
    Exit e = run("/bin/sh", {"-c", std::string("\"$0\" \"$@\" 2>") + err.string(), COALESCE_TUNE, "sweep", "--shape",
                             "256", "--db", db.string(), "--cache-dir", cache().string()},
                 {kStandIn});
    std::ifstream in(err);
    std::string line, extra;
    std::getline(in, line);
    EXPECT_NE(e.code, 0) << db;
    EXPECT_FALSE(std::getline(in, extra)) << db << ": more than one line: " << line << " / " << extra;
    return line;
  };
  EXPECT_NE(refused(not_db).find(not_db.string()), std::string::npos);
  EXPECT_EQ(sha(not_db), before);
  const fs::path nowhere = dir_ / "no" / "such" / "dir" / "results.db";
  refused(nowhere);
  EXPECT_FALSE(fs::exists(nowhere));
}

}  // namespace
}  // namespace coalesce::sweep_test
