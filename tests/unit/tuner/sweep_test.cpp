// The database side of `coalesce-tune sweep` without a GPU: the real binary compiles real
// kernels with NVRTC while a stand-in worker (standin_worker.sh) answers the measurements for a
// stand-in device. Every row is stored, kill -9 and Ctrl-C resume to the same rows, a second
// writer and bad databases are refused in one line with the file untouched.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
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
            "--seed", std::to_string(kSeed), "--family", "simt", "--db", db.string(), "--cache-dir", cache().string()};
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
  // cublas_gemm, eager, unfused and the floor read_b; cuBLASLt the stand-in lacks.
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM measurements WHERE config_id IS NULL AND status = 'ok'"), 4);
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM measurements WHERE method = 'cublaslt_fused'"), 0);
  // The floor is stored ok with its timing and without error figures: it was never checked.
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM measurements WHERE method = 'read_b' AND status = 'ok' AND median_ms = 0.4 "
                      "AND rel_err IS NULL AND max_abs_err IS NULL AND max_scaled_err IS NULL"),
            1);
  EXPECT_NE(e.out.find("read_b           0.400 ms  a floor, not a GEMM: best takes "), std::string::npos) << e.out;
  const tuner::Space s = space();
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM measurements WHERE method = 'coalesce' AND build_id IS NULL AND status = 'pruned'"),
            static_cast<long long>(s.pruned()));
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM measurements WHERE method = 'coalesce' AND build_id IS NOT NULL"), kBudget);
  for (const tuner::Candidate& c : tuner::select(s, tuner::Strategy::random, kBudget, kSeed))
    EXPECT_EQ(count(db, "SELECT COUNT(*) FROM v_measurements WHERE method = 'coalesce' AND config_name = '" + c.name + "'"), 1)
        << c.name;
  // Each pruned row names its category and says why; each build has the cubin's figures beside
  // the model's, took one attempt, and the pruned-after-compile ones quote the figures.
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM measurements WHERE status = 'pruned' AND (prune_reason = '' OR message = '')"), 0);
  EXPECT_EQ(count(db,
                  "SELECT COUNT(*) FROM builds WHERE status = 'ok' AND (registers IS NULL OR predicted_registers IS NULL "
                  "OR spill_stores_bytes IS NULL OR compile_ms IS NULL OR threads IS NULL)"),
            0);
  EXPECT_EQ(count(db,
                  "SELECT COUNT(*) FROM measurements WHERE status = 'pruned' AND build_id IS NOT NULL "
                  "AND message NOT LIKE '%(cubin: %'"),
            0);
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM builds WHERE attempts <> 1"), 0);
  EXPECT_NE(e.out.find(" 0 of them retried alone"), std::string::npos) << e.out;
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

// Issue 13: under 16 parallel compiles on the H200, NVRTC returned a cubin with an empty program
// log. The figures come from the cubin, so with every log blanked each config is still judged
// and measured, with a fresh cache (a cached entry would not compile at all).
TEST_F(StandInSweep, AnEmptyNvrtcLogStillMeasuresEveryConfig) {
  const fs::path db = dir_ / "empty-log.db";
  std::vector<std::string> a = args(db);
  a.back() = (dir_ / "cache").string();
  Exit e = run(COALESCE_TUNE, a, {kStandIn, "COALESCE_TEST_NVRTC_FAULT=empty_log"});
  ASSERT_EQ(e.code, 0) << e.out;
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM measurements WHERE status = 'compile_failed'"), 0);
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM measurements WHERE method = 'coalesce' AND build_id IS NOT NULL"), kBudget);
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM builds WHERE status = 'ok' AND registers > 0 AND smem_bytes > 0 AND log = ''"),
            count(db, "SELECT COUNT(*) FROM builds"));
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM measurements x JOIN builds b ON b.id = x.build_id "
                      "WHERE x.method = 'coalesce' AND x.status IN ('ok', 'pruned')"),
            kBudget);
}

// A compile whose first attempt fails among the parallel ones (here: a cut-off cubin) is
// retried alone, measured, and its build row says it took two attempts.
TEST_F(StandInSweep, AFailedFirstAttemptIsRetriedAloneAndMeasured) {
  const fs::path db = dir_ / "retried.db";
  std::vector<std::string> a = args(db);
  a.at(6) = "3";  // --budget
  a.back() = (dir_ / "cache").string();
  Exit e = run(COALESCE_TUNE, a, {kStandIn, "COALESCE_TEST_NVRTC_FAULT=first_attempt_fails"});
  ASSERT_EQ(e.code, 0) << e.out;
  // Three candidates and the winner's epilogue-none kernel (coalesce_unfused).
  EXPECT_NE(e.out.find("(4 compiled, 4 of them retried alone, "), std::string::npos) << e.out;
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM measurements WHERE status = 'compile_failed'"), 0);
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM builds WHERE status = 'ok' AND attempts = 2 AND log LIKE '%retry, run alone%'"),
            count(db, "SELECT COUNT(*) FROM builds"));
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM measurements x JOIN builds b ON b.id = x.build_id "
                      "WHERE x.method = 'coalesce' AND x.status IN ('ok', 'pruned')"),
            3);
}

// A cache entry cut short (a cubin, a metadata file) is compiled again, not a compile failure:
// the second sweep, into a new database, measures every config.
TEST_F(StandInSweep, ATruncatedCacheEntryIsRecompiled) {
  const fs::path first = dir_ / "first.db", second = dir_ / "second.db", cache = dir_ / "cache";
  std::vector<std::string> a = args(first);
  a.back() = cache.string();
  ASSERT_EQ(run(COALESCE_TUNE, a, {kStandIn}).code, 0);
  std::vector<fs::path> cubins, metadata;
  for (const auto& f : fs::recursive_directory_iterator(cache)) {
    if (f.path().extension() == ".cubin") cubins.push_back(f.path());
    if (f.path().extension() == ".json") metadata.push_back(f.path());
  }
  ASSERT_EQ(cubins.size(), static_cast<std::size_t>(kBudget) + 1);  // and the winner's epilogue-none kernel
  std::sort(cubins.begin(), cubins.end());
  std::sort(metadata.begin(), metadata.end());
  fs::resize_file(cubins[0], fs::file_size(cubins[0]) / 2);
  fs::path other_meta = metadata[0].stem() == cubins[0].stem() ? metadata[1] : metadata[0];
  fs::resize_file(other_meta, fs::file_size(other_meta) / 2);

  a = args(second);
  a.back() = cache.string();
  Exit e = run(COALESCE_TUNE, a, {kStandIn});
  ASSERT_EQ(e.code, 0) << e.out;
  EXPECT_NE(e.out.find("(2 compiled, 0 of them retried alone, " + std::to_string(kBudget + 1 - 2) + " from the cache"),
            std::string::npos)
      << e.out;
  EXPECT_EQ(count(second, "SELECT COUNT(*) FROM measurements WHERE status = 'compile_failed'"), 0);
  EXPECT_EQ(row_set(second, false), row_set(first, false));
}

// Issue 14, item 5: a kernel that passes the checks before timing and fails the re-check of its
// last timed run (harness/method.cpp) is a wrong_result with that check's figures and the
// harness' sentence, never a timing, and never the winner. The planted race kernel
// (COALESCE_TEST_INJECT=race:1) compiles under NVRTC here and is measured by the stand-in, which
// answers for it as the real worker does (STANDIN_WRONG_AFTER); tests/gpu/tuner_sweep_test.cpp
// runs the same kernel on the GPU.
TEST_F(StandInSweep, AKernelWrongAfterTimingIsAWrongResultWithoutATiming) {
  const fs::path db = dir_ / "race.db";
  const std::string victim = tuner::select(space(), tuner::Strategy::random, kBudget, kSeed).at(1).name;
  // From a directory without kernels/ in it: NVRTC looks for an #include there too, and the GPU
  // host has no source tree, so the race kernel must build from the embedded headers alone.
  const fs::path cwd = fs::current_path();
  fs::current_path(dir_);
  Exit e = sweep(db, {"COALESCE_TEST_INJECT=race:1", "STANDIN_WRONG_AFTER=" + victim});
  fs::current_path(cwd);
  ASSERT_EQ(e.code, 0) << e.out;
  db::ResultSet r = query(db,
                          "SELECT status, message, rel_err, max_abs_err, max_scaled_err, grid_blocks, "
                          "median_ms IS NULL AND min_ms IS NULL AND max_ms IS NULL AND p10_ms IS NULL AND p90_ms IS NULL "
                          "AND samples IS NULL AND tflops IS NULL AND rel_spread IS NULL, registers, measurement_id "
                          "FROM v_measurements WHERE method = 'coalesce' AND config_name = '" + victim + "'");
  ASSERT_EQ(r.rows.size(), 1u);
  const auto& row = r.rows[0];
  EXPECT_EQ(db::as_text(row[0]), "wrong_result");
  EXPECT_EQ(db::as_text(row[1]), "wrong after repeated runs (a race?): relative Frobenius error 0.42 exceeds 3.2e-06");
  EXPECT_EQ(db::as_double(row[2]), 0.42);
  EXPECT_EQ(db::as_double(row[3]), 1.5);
  EXPECT_EQ(db::as_double(row[4]), 0.875);
  EXPECT_EQ(db::as_int(row[5]), 64);
  EXPECT_EQ(db::as_int(row[6]), 1) << "a timing was stored with the wrong result";
  EXPECT_GT(db::as_int(row[7]), 0) << "the race kernel's build has no register count";
  // The sweep went on and crowned another config.
  EXPECT_GE(count(db, "SELECT COUNT(*) FROM measurements WHERE method = 'coalesce' AND status = 'ok' AND id > " +
                          db::as_text(row[8])),
            1);
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM v_best WHERE config_name = '" + victim + "'"), 0);
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM v_comparison"), 1);
}

TEST_F(StandInSweep, ACompletedSweepRunAgainHasNothingToDo) {
  const fs::path db = dir_ / "again.db";
  ASSERT_EQ(sweep(db).code, 0);
  const auto before = row_set(db, false);
  const long long rows = count(db, "SELECT COUNT(*) FROM measurements");
  Exit again = sweep(db);
  ASSERT_EQ(again.code, 0) << again.out;
  // Every config is measured on this device: no run is opened, no baseline measured again (the
  // report would ignore them: they are not of the best row's run), and the summary still reads
  // the stored comparison.
  EXPECT_NE(again.out.find("nothing to do: every config of this sweep is already measured on this device (run 1)"),
            std::string::npos)
      << again.out;
  EXPECT_NE(again.out.find(std::to_string(kBudget) + " configs were already measured"), std::string::npos) << again.out;
  EXPECT_NE(again.out.find("  best "), std::string::npos) << again.out;
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM runs"), 1);
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM measurements"), rows);
  EXPECT_EQ(row_set(db, false), before);
}

// --steady-top N: after the sweep, its N fastest configs and the baselines are timed again in
// the steady state (3,000 samples each) as a run of their own; the stand-in answers that run
// 2 ms slower, and the ranking still takes its rows first. The same command again finds both
// runs done.
TEST_F(StandInSweep, SteadyTopTimesTheFastestAgainAndTheRankingTakesThemFirst) {
  const fs::path db = dir_ / "steady.db";
  std::vector<std::string> a = args(db);
  a.insert(a.end(), {"--steady-top", "2"});
  Exit e = run(COALESCE_TUNE, a, {kStandIn});
  ASSERT_EQ(e.code, 0) << e.out;
  EXPECT_NE(e.out.find("steady state: 256x256x256 f32 bias_gelu simt: the 2 fastest configs and the baselines again, "
                       "3000 samples each back to back"),
            std::string::npos)
      << e.out;
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM runs WHERE status = 'completed'"), 2);
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM v_run_regimes WHERE run_id = 1 AND steady_state = 0"), 1);
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM v_run_regimes WHERE run_id = 2 AND steady_state = 1"), 1);
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM runs WHERE id = 2 AND json_extract(harness_json, '$.min_samples') = 3000 "
                      "AND json_extract(harness_json, '$.max_samples') = 3000"),
            1);
  // Run 2 holds the two configs run 1 timed fastest, its own baselines and the winner unfused,
  // every row in the steady state.
  const std::string fastest_of_run_1 =
      "SELECT config_id FROM measurements WHERE run_id = 1 AND method = 'coalesce' AND status = 'ok' "
      "ORDER BY median_ms, id LIMIT 2";
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM measurements WHERE run_id = 2 AND method = 'coalesce'"), 2);
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM measurements WHERE run_id = 2 AND method = 'coalesce' AND status = 'ok' "
                      "AND config_id IN (" + fastest_of_run_1 + ")"),
            2);
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM measurements WHERE run_id = 2 AND config_id IS NULL AND status = 'ok'"), 4);
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM measurements WHERE run_id = 2 AND method = 'coalesce_unfused'"), 1);
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM measurements WHERE run_id = 2 AND (steady_state <> 1 OR samples <> 3000)"), 0);
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM measurements WHERE run_id = 1 AND steady_state <> 0"), 0);
  // Slower, and ranked first: the winner and the comparison's baselines come from run 2.
  EXPECT_GT(count(db, "SELECT MIN(median_ms) * 1000 FROM measurements WHERE run_id = 2 AND method = 'coalesce'"),
            count(db, "SELECT MAX(median_ms) * 1000 FROM measurements WHERE run_id = 1 AND method = 'coalesce' "
                      "AND status = 'ok'"));
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM v_best WHERE run_id = 2 AND steady_state = 1"), 1);
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM v_ranked WHERE rank <= 2 AND steady_state = 1"), 2);
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM v_comparison WHERE run_id = 2 AND cublas_gemm_ms IS NOT NULL"), 1);
  EXPECT_NE(e.out.find("(run 2, steady_"), std::string::npos) << e.out;

  const long long rows = count(db, "SELECT COUNT(*) FROM measurements");
  Exit again = run(COALESCE_TUNE, a, {kStandIn});
  ASSERT_EQ(again.code, 0) << again.out;
  EXPECT_NE(again.out.find("nothing to do: every config of this sweep is already measured on this device (run 1)"),
            std::string::npos)
      << again.out;
  EXPECT_NE(again.out.find("nothing to do: every config of this sweep is already measured on this device (run 2)"),
            std::string::npos)
      << again.out;
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM runs"), 2);
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM measurements"), rows);
  // The default-sampling sweep's summary names its own best (in its own protocol) and the steady
  // state's, whose protocol ranks first.
  EXPECT_NE(again.out.find("(run 1, flush_"), std::string::npos) << again.out;
  EXPECT_NE(again.out.find("  ranked first "), std::string::npos) << again.out;
  EXPECT_NE(again.out.find("(run 2, steady_"), std::string::npos) << again.out;
  EXPECT_NE(again.out.find("its protocol ranks ahead of flush_"), std::string::npos) << again.out;
}

// A steady-state pass cut off by Ctrl-C resumes in its own run: the same command finds the
// first run done, chooses the same configs again and times only those it had left.
TEST_F(StandInSweep, AnInterruptedSteadyStatePassResumesItsRun) {
  const fs::path whole = dir_ / "steady-whole.db", stopped = dir_ / "steady-stopped.db";
  std::vector<std::string> a = args(whole), b = args(stopped);
  a.insert(a.end(), {"--steady-top", "3"});
  b.insert(b.end(), {"--steady-top", "3"});
  ASSERT_EQ(run(COALESCE_TUNE, a, {kStandIn}).code, 0);
  const fs::path out = dir_ / "stdout";
  pid_t pid = spawn(COALESCE_TUNE, b, {kStandIn, "STANDIN_DELAY=0.5"}, out);
  // Interrupt once the steady-state run holds a config.
  for (int i = 0; i < 900; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    try {
      if (count(stopped, "SELECT COUNT(*) FROM measurements WHERE method = 'coalesce' AND steady_state = 1") >= 1) break;
    } catch (const db::Error&) {
      // not yet a database, or not yet a steady-state row
    }
  }
  kill(pid, SIGINT);
  Exit first = finish(pid, out);
  EXPECT_EQ(first.code, 130) << first.out;
  EXPECT_EQ(count(stopped, "SELECT COUNT(*) FROM runs WHERE id = 2 AND status = 'interrupted'"), 1);
  EXPECT_LT(count(stopped, "SELECT COUNT(*) FROM measurements WHERE run_id = 2 AND method = 'coalesce'"), 3);

  Exit again = run(COALESCE_TUNE, b, {kStandIn});
  ASSERT_EQ(again.code, 0) << again.out;
  EXPECT_EQ(count(stopped, "SELECT COUNT(*) FROM runs"), 2);
  EXPECT_EQ(count(stopped, "SELECT COUNT(*) FROM runs WHERE id = 2 AND status = 'completed' AND resumed = 1"), 1);
  EXPECT_EQ(content_diff(deterministic_content(stopped), deterministic_content(whole)), "");
}

// Issue 11: a shape one family cannot take is refused by that family with its reason, in the
// database as in `coalesce-tune space`, never a crash, and `--family all` still measures the
// families that can. tf32 with N = 258: wgmma's tf32 tile needs N % 4 == 0 (TMA's 16-byte row
// strides; only its 16-bit tile stages unaligned rows), so every wgmma config is stored pruned
// `divisibility`; mma takes the shape and is measured; simt computes no tf32 and is skipped with
// its reason.
TEST_F(StandInSweep, FamilyAllMeasuresTheFamiliesThatCanTakeAShapeTheOthersRefuseWithTheirReason) {
  const fs::path db = dir_ / "all-families.db";
  Exit e = run(COALESCE_TUNE,
               {"sweep", "--shape", "256x258x256", "--dtype", "tf32", "--family", "all", "--strategy", "random",
                "--budget", "2", "--seed", "5", "--db", db.string(), "--cache-dir", cache().string()},
               {kStandIn});
  ASSERT_EQ(e.code, 0) << e.out;
  const long long wgmma = count(db, "SELECT COUNT(*) FROM v_measurements WHERE family = 'wgmma'");
  EXPECT_GT(wgmma, 0);
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM v_measurements WHERE family = 'wgmma' AND status = 'pruned' "
                      "AND prune_reason IN ('divisibility', 'smem')"),
            wgmma);
  EXPECT_GT(count(db, "SELECT COUNT(*) FROM v_measurements WHERE family = 'wgmma' AND prune_reason = 'divisibility' "
                      "AND message = 'N must be a multiple of 4: TMA needs the row strides of B and C (N x 4 bytes) "
                      "to be multiples of 16 bytes'"),
            0);
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM v_measurements WHERE family = 'wgmma' AND build_id IS NOT NULL"), 0);
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM v_measurements WHERE family = 'mma' AND method = 'coalesce' AND status = 'ok'"), 2);
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM v_comparison WHERE family = 'mma'"), 1);
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM v_measurements WHERE family = 'simt'"), 0);
  EXPECT_NE(e.out.find("no config of wgmma measured ok"), std::string::npos) << e.out;
}

// A problem no config of any family swept can run (issue 39: it ended `completed`, exit 0, with
// no kernel) fails the sweep: status 1, one line saying so and one per family with its prune
// reasons counted; the other problem is still measured, every pruned row is stored, and the run
// ends `failed`. The same command again fails the same way (it does not say "nothing to do").
// Every shape has an mma config now (2-byte copies), so the family swept is wgmma in tf32, whose
// TMA strides refuse an odd K or N (its 16-bit tile stages them): a `--family` that cannot run
// the problem.
TEST_F(StandInSweep, AProblemNoConfigCanRunFailsTheSweepAndSaysWhy) {
  const fs::path db = dir_ / "none.db";
  const std::vector<std::string> command = {"sweep", "--shape", "7x9x13", "--shape", "256", "--dtype", "tf32",
                                            "--family", "wgmma", "--strategy", "random", "--budget", "1",
                                            "--db", db.string(), "--cache-dir", cache().string()};
  for (int attempt = 0; attempt < 2; ++attempt) {
    Exit e = run(COALESCE_TUNE, command, {kStandIn}, true);
    EXPECT_EQ(e.code, 1) << e.out << e.err;
    EXPECT_NE(e.err.find("coalesce-tune: no config can run 7x9x13 tf32 bias_gelu on sm_90a: every candidate of wgmma "
                         "is pruned before compiling (the run ends failed)\n  wgmma: 80 pruned (divisibility "),
              std::string::npos)
        << e.err;
    EXPECT_EQ(e.out.find("nothing to do"), std::string::npos) << e.out;
    EXPECT_EQ(count(db, "SELECT COUNT(*) FROM runs"), 1);
    EXPECT_EQ(count(db, "SELECT COUNT(*) FROM runs WHERE status = 'failed'"), 1);
    EXPECT_EQ(count(db, "SELECT COUNT(*) FROM v_measurements WHERE m = 7 AND status = 'pruned'"), 80);
    EXPECT_EQ(count(db, "SELECT COUNT(*) FROM v_measurements WHERE m = 7 AND status <> 'pruned'"), 0);
    EXPECT_EQ(count(db, "SELECT COUNT(*) FROM v_measurements WHERE m = 256 AND method = 'coalesce' AND status = 'ok'"), 1);
  }
  // The dry run says the same, and stores nothing.
  std::vector<std::string> dry = {"sweep", "--dry-run", "--shape", "7x9x13", "--dtype", "tf32", "--family", "wgmma",
                                  "--cache-dir", cache().string()};
  Exit e = run(COALESCE_TUNE, dry, {}, true);
  EXPECT_EQ(e.code, 1) << e.out << e.err;
  EXPECT_NE(e.err.find("coalesce-tune: no config can run 7x9x13 tf32 bias_gelu on sm_90a: every candidate of wgmma "
                       "is pruned before compiling\n  wgmma: 80 pruned (divisibility "),
            std::string::npos)
      << e.err;
}

// A sweep that finds part of its work done (here: one more problem) opens a run for what is
// new only: the done problem gets no baselines in it.
TEST_F(StandInSweep, ASweepWithSomeWorkDoneMeasuresOnlyTheRest) {
  const fs::path db = dir_ / "more.db";
  ASSERT_EQ(sweep(db).code, 0);
  std::vector<std::string> more = args(db);
  more.insert(more.begin() + 3, {"--shape", "128"});
  Exit e = run(COALESCE_TUNE, more, {kStandIn});
  ASSERT_EQ(e.code, 0) << e.out;
  EXPECT_EQ(e.out.find("nothing to do"), std::string::npos) << e.out;
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM runs WHERE status = 'completed'"), 2);
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM v_measurements WHERE run_id = 2 AND config_id IS NULL AND m = 128"), 4);
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM v_measurements WHERE run_id = 2 AND m = 256"), 0);
}

// --shapes-file beside --shape: a problem on several lines (or also given by --shape) is swept
// once, an empty epilogue takes --epilogue, and every problem of the file gets its rows.
TEST_F(StandInSweep, AShapesFileSweepsEachProblemOnce) {
  const fs::path db = dir_ / "workload.db", file = dir_ / "workload.csv";
  std::ofstream(file) << "m,n,k,dtype,epilogue,name,count\n"
                         "256,256,256,,bias_gelu,up,2\n"
                         "256,256,256,,,up again,1\n"
                         "256,256,256,f32,bias,down,2\n";
  std::vector<std::string> a = args(db);  // --shape 256 (bias_gelu), the same problem as the first two lines
  a.insert(a.begin() + 3, {"--shapes-file", file.string()});
  Exit e = run(COALESCE_TUNE, a, {kStandIn});
  ASSERT_EQ(e.code, 0) << e.out;
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM problems"), 2);
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM problems WHERE m = 256 AND n = 256 AND k = 256 AND epilogue = 'bias'"), 1);
  for (const char* epilogue : {"bias_gelu", "bias"}) {
    const std::string where = std::string(" AND epilogue = '") + epilogue + "'";
    EXPECT_EQ(count(db, "SELECT COUNT(*) FROM v_measurements WHERE method = 'coalesce' AND build_id IS NOT NULL" + where),
              kBudget)
        << epilogue;
    EXPECT_EQ(count(db, "SELECT COUNT(*) FROM v_measurements WHERE config_id IS NULL AND status = 'ok'" + where), 4)
        << epilogue;
  }
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM runs WHERE command_line LIKE '%--shapes-file%'"), 1);
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
  // The stand-in's timings depend only on the request, so even the winner is the same, and so is
  // every other figure (sweep_kill_test.cpp kills from outside at every step).
  EXPECT_EQ(row_set(killed, false), row_set(whole, false));
  EXPECT_EQ(content_diff(deterministic_content(killed), deterministic_content(whole)), "");
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
  EXPECT_EQ(content_diff(deterministic_content(stopped), deterministic_content(whole)), "");
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


// Issue 13: `--devices all` over two (stand-in) GPUs measures problem i on device i mod 2, and the
// same work as two shards (one by --shard, one from Slurm's array variables), each on its device
// in its own database, gives the same rows and the same winners.
class SeveralDevices : public StandInSweep {
 protected:
  static std::vector<std::string> args(const fs::path& db, std::vector<std::string> more) {
    std::vector<std::string> a = {"sweep",  "--shape",  "256",    "--shape", "128x256x256", "--shape", "256x128x128",
                                  "--shape", "64x256x256", "--strategy", "random", "--budget", "2",
                                  "--seed",  "3",       "--family", "simt", "--db", db.string(), "--cache-dir", cache().string()};
    a.insert(a.end(), more.begin(), more.end());
    return a;
  }
  static Exit sweep(const fs::path& db, std::vector<std::string> more, std::vector<std::string> env = {}) {
    env.push_back(kStandIn);
    env.push_back("COALESCE_TEST_STANDIN_DEVICES=2");
    return run(COALESCE_TUNE, args(db, std::move(more)), env);
  }
  // Every row with its device's UUID, problem, method, config, status and (for a timing) median.
  static std::multiset<std::string> rows(const std::vector<fs::path>& dbs) {
    std::multiset<std::string> out;
    for (const fs::path& db : dbs)
      for (const std::string& r : rows_as_text(
               db,
               "SELECT d.uuid, v.m, v.n, v.k, v.method, coalesce(v.config_name, ''), v.status, "
               "coalesce(v.prune_reason, ''), v.median_ms FROM v_measurements v JOIN devices d ON d.id = v.device_id"))
        out.insert(r);
    return out;
  }
  static std::multiset<std::string> winners(const std::vector<fs::path>& dbs) {
    std::multiset<std::string> out;
    for (const fs::path& db : dbs)
      for (const std::string& r :
           rows_as_text(db, "SELECT d.uuid, p.m, p.n, p.k, b.config_name, b.median_ms FROM v_best b "
                            "JOIN devices d ON d.id = b.device_id JOIN problems p ON p.id = b.problem_id"))
        out.insert(r);
    return out;
  }
};

TEST_F(SeveralDevices, AllDevicesMeasureWhatTheirShardsMeasure) {
  const fs::path all = dir_ / "all.db", first = dir_ / "shard0.db", second = dir_ / "shard1.db";
  Exit e = sweep(all, {"--devices", "all"});
  ASSERT_EQ(e.code, 0) << e.out;
  EXPECT_NE(e.out.find("devices: 2 swept\n"), std::string::npos) << e.out;
  EXPECT_NE(e.out.find("device 1: time: "), std::string::npos) << e.out;
  // One run per device; problems 0 and 2 on device 0, 1 and 3 on device 1.
  EXPECT_EQ(count(all, "SELECT COUNT(*) FROM runs WHERE status = 'completed'"), 2);
  EXPECT_EQ(count(all, "SELECT COUNT(DISTINCT device_id) FROM runs"), 2);
  EXPECT_EQ(count(all,
                  "SELECT COUNT(DISTINCT d.uuid || ':' || v.m || 'x' || v.n || 'x' || v.k) FROM v_measurements v "
                  "JOIN devices d ON d.id = v.device_id WHERE v.method = 'coalesce' AND v.status = 'ok' AND "
                  "((d.uuid LIKE '%0' AND v.m || 'x' || v.n || 'x' || v.k IN ('256x256x256', '256x128x128')) OR "
                  "(d.uuid LIKE '%1' AND v.m || 'x' || v.n || 'x' || v.k IN ('128x256x256', '64x256x256')))"),
            4);
  EXPECT_EQ(count(all, "SELECT COUNT(*) FROM v_comparison"), 4);

  ASSERT_EQ(sweep(first, {"--shard", "0/2", "--device", "0"}).code, 0);
  Exit slurm = sweep(second, {"--device", "1"},
                     {"SLURM_ARRAY_TASK_ID=5", "SLURM_ARRAY_TASK_MIN=4", "SLURM_ARRAY_TASK_COUNT=2"});
  ASSERT_EQ(slurm.code, 0) << slurm.out;
  EXPECT_EQ(rows({all}), rows({first, second}));
  EXPECT_EQ(winners({all}), winners({first, second}));
  EXPECT_EQ(winners({all}).size(), 4u);
  // The Slurm task and --shard 1/2 are the same sweep: nothing is left to do.
  Exit again = sweep(second, {"--shard", "1/2", "--device", "1"});
  ASSERT_EQ(again.code, 0) << again.out;
  EXPECT_NE(again.out.find("nothing to do"), std::string::npos) << again.out;
  // And so is --devices all run again.
  Exit all_again = sweep(all, {"--devices", "0,1"});
  ASSERT_EQ(all_again.code, 0) << all_again.out;
  EXPECT_NE(all_again.out.find("device 0: nothing to do"), std::string::npos) << all_again.out;
  EXPECT_NE(all_again.out.find("device 1: nothing to do"), std::string::npos) << all_again.out;
  EXPECT_EQ(count(all, "SELECT COUNT(*) FROM runs"), 2);
}

// --steady-top over several devices: each device times its own problems' fastest again, in a
// steady-state run per problem on that device, beside its default-sampling run.
TEST_F(SeveralDevices, EachDeviceTimesItsOwnFastestInTheSteadyState) {
  const fs::path db = dir_ / "steady.db";
  Exit e = sweep(db, {"--devices", "all", "--steady-top", "1"});
  ASSERT_EQ(e.code, 0) << e.out;
  EXPECT_NE(e.out.find("device 0: steady state: 256x256x256 f32 bias_gelu simt: the 1 fastest configs"),
            std::string::npos)
      << e.out;
  EXPECT_NE(e.out.find("device 1: steady state: 64x256x256 f32 bias_gelu simt: the 1 fastest configs"),
            std::string::npos)
      << e.out;
  // Two default-sampling runs (one per device) and four steady-state runs (one per problem).
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM runs r JOIN v_run_regimes g ON g.run_id = r.id "
                      "WHERE r.status = 'completed' AND g.steady_state = 0"),
            2);
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM runs r JOIN v_run_regimes g ON g.run_id = r.id "
                      "WHERE r.status = 'completed' AND g.steady_state = 1"),
            4);
  // Each steady-state row is of the device that swept its problem, and is that problem's best.
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM v_measurements v WHERE v.method = 'coalesce' AND v.steady_state = 1"), 4);
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM v_best b JOIN v_measurements d ON d.problem_id = b.problem_id "
                      "AND d.method = 'coalesce' AND d.steady_state = 0 AND d.device_id <> b.device_id"),
            0);
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM v_best WHERE steady_state = 1"), 4);
}

TEST_F(SeveralDevices, ADeviceThatIsLostStopsAloneAndTheSameCommandFinishes) {
  const fs::path db = dir_ / "lost.db", whole = dir_ / "whole.db";
  ASSERT_EQ(sweep(whole, {"--devices", "all"}).code, 0);
  // Device 1 is lost at its second problem (64x256x256), after the first (128x256x256) is in.
  Exit e = sweep(db, {"--devices", "all"}, {"STANDIN_FAIL_SETUP=*\"device\":1,*\"m\":64,*"});
  EXPECT_EQ(e.code, 1) << e.out;
  EXPECT_NE(e.out.find("devices: 2 swept, 1 stopped (device 1: the measuring worker could not set up the problem: "
                       "the stand-in GPU is lost)"),
            std::string::npos)
      << e.out;
  const std::string ok = "SELECT COUNT(*) FROM v_measurements WHERE method = 'coalesce' AND status = 'ok' AND ";
  // As many ok rows per problem as the uninterrupted sweep has (a drawn config may be pruned
  // after compiling, so the count is the whole sweep's, not the budget).
  const long long whole_256 = count(whole, ok + "m = 256"), whole_128 = count(whole, ok + "m = 128"),
            whole_64 = count(whole, ok + "m = 64");
  EXPECT_GE(whole_256, 2);
  EXPECT_GE(whole_128, 1);
  EXPECT_GE(whole_64, 1);
  EXPECT_EQ(count(db, ok + "m = 256"), whole_256) << "device 0's two problems";
  EXPECT_EQ(count(db, ok + "m = 128"), whole_128) << "device 1's first problem";
  EXPECT_EQ(count(db, ok + "m = 64"), 0);
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM runs WHERE status = 'completed'"), 1);
  EXPECT_EQ(count(db, "SELECT COUNT(*) FROM runs WHERE status = 'failed'"), 1);

  Exit again = sweep(db, {"--devices", "all"});
  ASSERT_EQ(again.code, 0) << again.out;
  EXPECT_NE(again.out.find("device 0: nothing to do"), std::string::npos) << again.out;
  EXPECT_EQ(count(db, ok + "m = 64"), whole_64);
  EXPECT_EQ(count(db, ok + "m = 128"), whole_128) << "measured again";
  EXPECT_EQ(rows({db}), rows({whole}));
}

// Ctrl-C stops every device after its current row (status 130, each run 'interrupted'), and
// kill -9 leaves both runs 'running'; either way the same command resumes each device's run and
// ends with the content of a sweep never interrupted.
TEST_F(SeveralDevices, InterruptedOrKilledTheSameCommandResumesEveryDevice) {
  const fs::path whole = dir_ / "whole.db", stopped = dir_ / "stopped.db", killed = dir_ / "killed.db";
  ASSERT_EQ(sweep(whole, {"--devices", "all"}).code, 0);
  const std::string ok_rows = "SELECT COUNT(*) FROM measurements WHERE method = 'coalesce' AND status = 'ok'";
  auto wait_for_rows = [&](const fs::path& db, long long n) {
    for (int i = 0; i < 600; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      try {
        if (count(db, ok_rows) >= n) return;
      } catch (const db::Error&) {
        // not yet a database
      }
    }
  };
  const std::vector<std::string> env = {kStandIn, "COALESCE_TEST_STANDIN_DEVICES=2", "STANDIN_DELAY=0.5"};
  const fs::path out = dir_ / "stdout";

  pid_t pid = spawn(COALESCE_TUNE, args(stopped, {"--devices", "all"}), env, out);
  wait_for_rows(stopped, 3);
  kill(pid, SIGINT);
  Exit first = finish(pid, out);
  EXPECT_EQ(first.code, 130) << first.out;
  EXPECT_NE(first.out.find("device 0: interrupted: the same command resumes this run"), std::string::npos) << first.out;
  EXPECT_LT(count(stopped, ok_rows), 8);
  EXPECT_EQ(count(stopped, "SELECT COUNT(*) FROM runs WHERE status = 'running'"), 0);

  pid = spawn(COALESCE_TUNE, args(killed, {"--devices", "all"}), env, out);
  wait_for_rows(killed, 3);
  kill(pid, SIGKILL);
  Exit second = finish(pid, out);
  EXPECT_EQ(second.signal, SIGKILL);
  EXPECT_LT(count(killed, ok_rows), 8);

  for (const fs::path& db : {stopped, killed}) {
    Exit again = sweep(db, {"--devices", "all"});
    ASSERT_EQ(again.code, 0) << again.out;
    EXPECT_EQ(count(db, "SELECT COUNT(*) FROM runs"), 2) << db << ": each device resumed its own run";
    EXPECT_EQ(count(db, "SELECT COUNT(*) FROM runs WHERE status = 'completed' AND resumed = 1"), 2) << db;
    EXPECT_EQ(content_diff(deterministic_content(db), deterministic_content(whole)), "") << db;
  }
}

}  // namespace
}  // namespace coalesce::sweep_test
