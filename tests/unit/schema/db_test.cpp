// The row helpers the tuner calls, the rules the schema enforces on rows (a timing only for an
// ok row, error figures for checked rows, ...), resume, and the views the report reads.
#include <gtest/gtest.h>

#include <cmath>
#include <regex>

#include "kernels/simt/family.hpp"
#include "schema/db.hpp"
#include "schema/rows.hpp"
#include "test_util.hpp"

namespace coalesce::db {
namespace {

using testing::h200;
using testing::ok_row;
using testing::run_info;
using testing::TempDir;

/// A database with one device, one run and the 1024³ bias_gelu problem.
struct Populated {
  TempDir dir;
  Database db = Database::open(dir / "t.db", Mode::read_write);
  DeviceId dev = db.upsert_device(h200());
  RunId run = db.begin_run(run_info(dev));
  ProblemId prob = db.upsert_problem({1024, 1024, 1024, Dtype::f32, Epilogue::bias_gelu});

  ConfigId config(int bm, int bn, std::string hash = "h") {
    SimtConfig c;
    c.bm = bm;
    c.bn = bn;
    return db.upsert_config(config_row(from_simt(c), Dtype::f32, Epilogue::bias_gelu, hash));
  }
};

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no Error thrown";
  return "";
}

TEST(Rows, DeviceUpsertKeepsIdAndKnownClock) {
  Populated p;
  DeviceRow again = h200();
  again.max_sm_clock_mhz = 0;  // NVML missing this time
  EXPECT_EQ(p.db.upsert_device(again), p.dev);
  auto row = p.db.query("SELECT max_sm_clock_mhz, f32_peak_tflops FROM v_devices").rows.at(0);
  EXPECT_EQ(as_int(row[0]), 1980);
  // 132 SMs × 128 lanes × 2 FLOP × 1.98 GHz
  EXPECT_NEAR(as_double(row[1]), 66.908, 1e-3);
  EXPECT_NE(p.db.upsert_device(h200("GPU-other")), p.dev);
  EXPECT_EQ(p.db.find_device("GPU-other"), p.dev + 1);
  EXPECT_EQ(p.db.find_device("GPU-none"), std::nullopt);
}

TEST(Rows, FullUuidFindsTheLegacyTruncatedRow) {
  Populated p;
  const std::string full = "GPU-ef9959e3-bbdc-8730-f3eb-7384ed94ec6a";
  const DeviceId legacy = p.db.upsert_device(h200(full.substr(0, 39)));
  EXPECT_EQ(p.db.find_device(full), legacy);
  EXPECT_EQ(p.db.find_device(full.substr(0, 38)), std::nullopt);  // only the one lost digit
  const DeviceId exact = p.db.upsert_device(h200(full));
  EXPECT_EQ(p.db.find_device(full), exact);  // an exact row comes first
}

TEST(Vocabulary, StatusesAreTheSchemasClosedSet) {
  // The schema's CHECK on measurements.status lists exactly kStatuses, in order.
  const std::string sql(builtin_migrations().front().sql);
  const std::string head = "status              TEXT    NOT NULL CHECK (status IN (";
  const std::size_t at = sql.find(head);
  ASSERT_NE(at, std::string::npos);
  const std::string list = sql.substr(at + head.size(), sql.find("))", at) - at - head.size());
  std::vector<std::string> in_schema;
  const std::regex quoted("'([a-z_]+)'");
  for (auto it = std::sregex_iterator(list.begin(), list.end(), quoted); it != std::sregex_iterator(); ++it)
    in_schema.push_back((*it)[1]);
  std::vector<std::string> known;
  for (Status s : kStatuses) {
    known.emplace_back(to_string(s));
    EXPECT_EQ(parse_status(to_string(s)), s);
  }
  EXPECT_EQ(in_schema, known);
  EXPECT_EQ(parse_status("running"), std::nullopt);
}

TEST(Vocabulary, MethodsAreIdentifiersKnownOnce) {
  for (const MethodInfo& m : kMethods) {
    EXPECT_EQ(find_method(m.name), &m);
    EXPECT_EQ(m.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_"), std::string_view::npos);
  }
  EXPECT_EQ(find_method("torch_eager")->origin, MethodOrigin::peer);
  EXPECT_EQ(find_method("eager")->origin, MethodOrigin::baseline);
  EXPECT_EQ(find_method("coalesce_unfused")->origin, MethodOrigin::tuned);
  EXPECT_EQ(find_method("cublas"), nullptr);
  EXPECT_LT(method_rank("coalesce"), method_rank("cublas_gemm"));
  EXPECT_LT(method_rank("coalesce_unfused"), method_rank("torch_eager"));
  EXPECT_EQ(method_rank("someone_else"), static_cast<int>(std::size(kMethods)));
}

TEST(Vocabulary, FloorsAreTheSchemasUncheckedMethods) {
  // The latest rule on error figures (migration 0006) names exactly kMethods' floors: the methods
  // stored ok without a check.
  const std::string sql(builtin_migrations()[5].sql);
  const std::string head = "CHECK (CASE WHEN method IN (";
  const std::size_t at = sql.find(head);
  ASSERT_NE(at, std::string::npos);
  const std::string list = sql.substr(at + head.size(), sql.find(')', at + head.size()) - at - head.size());
  std::vector<std::string> in_schema;
  const std::regex quoted("'([a-z_0-9]+)'");
  for (auto it = std::sregex_iterator(list.begin(), list.end(), quoted); it != std::sregex_iterator(); ++it)
    in_schema.push_back((*it)[1]);
  std::vector<std::string> floors;
  for (const MethodInfo& m : kMethods)
    if (m.kind == MethodKind::floor) floors.emplace_back(m.name);
  EXPECT_EQ(in_schema, floors);
  EXPECT_EQ(floors, std::vector<std::string>{"read_b"});
  EXPECT_EQ(find_method("read_b")->origin, MethodOrigin::baseline);
  EXPECT_TRUE(is_floor("read_b"));
  EXPECT_FALSE(is_floor("cublas_gemm"));
  EXPECT_FALSE(is_floor("someone_else"));
}

// A floor is timed and never checked: its ok row has no error figures, and may not pretend to
// have any, nor be wrong, nor have a config; every other method still needs its figures.
TEST(Rows, AFloorIsOkWithoutErrorFiguresAndOnlyIt) {
  Populated p;
  auto floor = ok_row(p.run, p.dev, p.prob, "read_b", {}, 0.0078);
  floor.rel_err.reset();
  floor.max_abs_err.reset();
  ASSERT_TRUE(p.db.insert_measurement(floor));
  EXPECT_EQ(as_int(p.db.query("SELECT count(*) FROM measurements WHERE method = 'read_b' AND status = 'ok' "
                              "AND rel_err IS NULL AND max_abs_err IS NULL AND tflops > 0")
                       .rows[0][0]),
            1);
  EXPECT_TRUE(p.db.baseline_measured(p.run, p.dev, p.prob, "read_b"));

  RunId later = p.db.begin_run(run_info(p.dev));
  auto figures = ok_row(later, p.dev, p.prob, "read_b", {}, 0.0078);  // a floor claiming a check
  EXPECT_NE(error_of([&] { p.db.insert_measurement(figures); }).find("CHECK"), std::string::npos);
  figures.rel_err.reset();
  figures.max_abs_err.reset();
  figures.max_scaled_err = 0.0;
  EXPECT_NE(error_of([&] { p.db.insert_measurement(figures); }).find("CHECK"), std::string::npos);
  MeasurementRow wrong;
  wrong.run = later;
  wrong.device = p.dev;
  wrong.problem = p.prob;
  wrong.method = "read_b";
  wrong.status = Status::wrong_result;
  EXPECT_NE(error_of([&] { p.db.insert_measurement(wrong); }).find("CHECK"), std::string::npos);
  auto configured = ok_row(later, p.dev, p.prob, "read_b", p.config(128, 128), 0.0078);
  configured.rel_err.reset();
  configured.max_abs_err.reset();
  EXPECT_NE(error_of([&] { p.db.insert_measurement(configured); }).find("CHECK"), std::string::npos);

  auto unchecked = ok_row(later, p.dev, p.prob, "cublas_gemm", {}, 0.05);  // a GEMM always is checked
  unchecked.rel_err.reset();
  unchecked.max_abs_err.reset();
  EXPECT_NE(error_of([&] { p.db.insert_measurement(unchecked); }).find("CHECK"), std::string::npos);
  MeasurementRow failed = wrong;  // a floor that failed to launch is an ordinary failed row
  failed.status = Status::launch_failed;
  failed.message = "the floor's launch failed (synthetic)";
  EXPECT_TRUE(p.db.insert_measurement(failed));
}

TEST(Rows, Fp32LanesTable) {
  EXPECT_EQ(fp32_lanes_per_sm(9, 0), 128);
  EXPECT_EQ(fp32_lanes_per_sm(8, 0), 64);
  EXPECT_EQ(fp32_lanes_per_sm(8, 6), 128);
  EXPECT_EQ(fp32_lanes_per_sm(1, 0), 0);
}

TEST(Rows, ProblemAndConfigUpsertAreIdempotent) {
  Populated p;
  EXPECT_EQ(p.db.upsert_problem({1024, 1024, 1024, Dtype::f32, Epilogue::bias_gelu}), p.prob);
  EXPECT_NE(p.db.upsert_problem({1024, 1024, 1024, Dtype::f32, Epilogue::none}), p.prob);
  ConfigId c = p.config(128, 128);
  EXPECT_EQ(p.config(128, 128), c);
  EXPECT_NE(p.config(128, 128, "other-source"), c) << "a new source hash is a new config";
  ConfigRow clash{"simt", config_row(from_simt(SimtConfig{}), Dtype::f32, Epilogue::bias_gelu, "h").name,
                  R"({"bm":1})", "h"};
  auto msg = error_of([&] { p.db.upsert_config(clash); });
  EXPECT_NE(msg.find("another family or parameters"), std::string::npos) << msg;
}

TEST(Rows, BuildUpsertReplacesFigures) {
  Populated p;
  BuildRow b;
  b.config = p.config(128, 128);
  b.arch = "sm_90";
  b.toolkit = "13.0";
  b.ok = true;
  b.registers = 128;
  b.smem_bytes = 50688;
  b.threads = 256;
  b.blocks_per_sm = 2;
  BuildId id = p.db.upsert_build(b);
  EXPECT_EQ(as_int(p.db.query("SELECT attempts FROM builds").rows.at(0).at(0)), 1);
  b.registers = 120;
  b.attempts = 2;  // the first compile failed and was retried alone
  EXPECT_EQ(p.db.upsert_build(b), id);
  EXPECT_EQ(as_int(p.db.query("SELECT registers FROM builds").rows.at(0).at(0)), 120);
  EXPECT_EQ(as_int(p.db.query("SELECT attempts FROM builds").rows.at(0).at(0)), 2);
  BuildRow none_tried = b;
  none_tried.attempts = 0;
  EXPECT_NE(error_of([&] { p.db.upsert_build(none_tried); }).find("CHECK constraint failed"), std::string::npos);
  BuildRow failed = b;
  failed.toolkit = "13.1";
  failed.ok = false;
  failed.registers.reset();
  auto msg = error_of([&] { p.db.upsert_build(failed); });  // a failed build must keep its log
  EXPECT_NE(msg.find("CHECK constraint failed"), std::string::npos) << msg;
  failed.log = "error: identifier \"x\" is undefined";
  EXPECT_NE(p.db.upsert_build(failed), id);
}

TEST(Rows, OkMeasurementComputesThroughputAndSpread) {
  Populated p;
  auto row = ok_row(p.run, p.dev, p.prob, "coalesce", p.config(128, 128), 0.5);
  auto id = p.db.insert_measurement(row);
  ASSERT_TRUE(id);
  auto r = p.db.query("SELECT tflops, rel_spread FROM measurements WHERE id = ?1", {*id}).rows.at(0);
  EXPECT_NEAR(as_double(r[0]), 2.0 * 1024 * 1024 * 1024 / 0.5e-3 / 1e12, 1e-9);
  EXPECT_NEAR(as_double(r[1]), 0.04, 1e-12);
}

TEST(Rows, ConfigIsMeasuredOnceAcrossRuns) {
  Populated p;
  ConfigId c = p.config(128, 128);
  EXPECT_FALSE(p.db.measured(p.dev, p.prob, c));
  ASSERT_TRUE(p.db.insert_measurement(ok_row(p.run, p.dev, p.prob, "coalesce", c, 0.5)));
  EXPECT_TRUE(p.db.measured(p.dev, p.prob, c));
  EXPECT_FALSE(p.db.measured(p.dev, p.prob, c, "coalesce_unfused"));
  RunId later = p.db.begin_run(run_info(p.dev));
  EXPECT_EQ(p.db.insert_measurement(ok_row(later, p.dev, p.prob, "coalesce", c, 0.4)), std::nullopt);
  EXPECT_EQ(as_int(p.db.query("SELECT count(*) FROM measurements").rows[0][0]), 1);
}

TEST(Rows, BaselineIsMeasuredOncePerRun) {
  Populated p;
  EXPECT_FALSE(p.db.baseline_measured(p.run, p.dev, p.prob, "eager"));
  ASSERT_TRUE(p.db.insert_measurement(ok_row(p.run, p.dev, p.prob, "eager", {}, 0.7)));
  EXPECT_TRUE(p.db.baseline_measured(p.run, p.dev, p.prob, "eager"));
  EXPECT_FALSE(p.db.insert_measurement(ok_row(p.run, p.dev, p.prob, "eager", {}, 0.7)));
  RunId later = p.db.begin_run(run_info(p.dev));
  EXPECT_FALSE(p.db.baseline_measured(later, p.dev, p.prob, "eager"));
  EXPECT_TRUE(p.db.insert_measurement(ok_row(later, p.dev, p.prob, "eager", {}, 0.71)));
}

TEST(Rows, RulesOfAnHonestRow) {
  Populated p;
  ConfigId c = p.config(128, 128);
  auto wrong = ok_row(p.run, p.dev, p.prob, "coalesce", c, 0.5);
  wrong.status = Status::wrong_result;  // still carrying a timing
  EXPECT_NE(error_of([&] { p.db.insert_measurement(wrong); }).find("no timing"), std::string::npos);
  wrong.timing.reset();
  wrong.rel_err.reset();
  wrong.max_abs_err.reset();  // a wrong answer needs its error figures
  EXPECT_NE(error_of([&] { p.db.insert_measurement(wrong); }).find("CHECK"), std::string::npos);
  wrong.rel_err = 0.3;
  wrong.max_abs_err = 12.5;
  EXPECT_TRUE(p.db.insert_measurement(wrong));

  auto untimed = ok_row(p.run, p.dev, p.prob, "coalesce", p.config(64, 64), 0.5);
  untimed.timing.reset();
  EXPECT_NE(error_of([&] { p.db.insert_measurement(untimed); }).find("CHECK"), std::string::npos);

  MeasurementRow pruned;
  pruned.run = p.run;
  pruned.device = p.dev;
  pruned.problem = p.prob;
  pruned.config = p.config(256, 256);
  pruned.status = Status::pruned;  // without its reason
  EXPECT_NE(error_of([&] { p.db.insert_measurement(pruned); }).find("CHECK"), std::string::npos);
  pruned.prune_reason = "smem";
  EXPECT_TRUE(p.db.insert_measurement(pruned));

  auto misordered = ok_row(p.run, p.dev, p.prob, "cublas_gemm", {}, 0.5);
  std::swap(misordered.timing->p10_ms, misordered.timing->p90_ms);
  EXPECT_NE(error_of([&] { p.db.insert_measurement(misordered); }).find("CHECK"), std::string::npos);

  auto bad_method = ok_row(p.run, p.dev, p.prob, "cuBLAS GEMM", {}, 0.5);
  EXPECT_NE(error_of([&] { p.db.insert_measurement(bad_method); }).find("CHECK"), std::string::npos);

  DeviceId other = p.db.upsert_device(h200("GPU-other"));
  auto elsewhere = ok_row(p.run, other, p.prob, "cublas_gemm", {}, 0.5);
  EXPECT_NE(error_of([&] { p.db.insert_measurement(elsewhere); }).find("device of its run"),
            std::string::npos);
}

// A profile is stored once per kernel of a device × problem × method × config, a library
// kernel (no config) included; its figures obey the schema's ranges.
TEST(Rows, AProfileIsStoredOncePerKernel) {
  Populated p;
  ConfigId c = p.config(128, 128);
  ProfileRow fused;
  fused.device = p.dev;
  fused.problem = p.prob;
  fused.config = c;
  fused.kernel = "simt_f32_bm128_bn128_bias_gelu";
  fused.profiled_at = "2026-11-30T13:10:40Z";
  fused.duration_us = 209.6;
  fused.sm_clock_mhz = 1680.3;
  fused.tensor_pipe_active_pct = 76.7;
  fused.registers = 168;
  fused.metrics_json = R"({"gpu__time_duration.sum":209.568})";
  fused.units_json = R"({"gpu__time_duration.sum":"us"})";
  auto id = p.db.insert_profile(fused);
  ASSERT_TRUE(id);
  EXPECT_EQ(p.db.insert_profile(fused), std::nullopt);
  ProfileRow library = fused;
  library.method = "cublas_gemm";
  library.config.reset();
  library.kernel = "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT";
  ASSERT_TRUE(p.db.insert_profile(library));
  EXPECT_EQ(p.db.insert_profile(library), std::nullopt) << "a NULL config is one key, not a new row each time";
  ProfileRow second_kernel = library;  // eager launches several kernels, one profile each
  second_kernel.method = "eager";
  ASSERT_TRUE(p.db.insert_profile(second_kernel));
  second_kernel.kernel = "vectorized_elementwise_kernel";
  ASSERT_TRUE(p.db.insert_profile(second_kernel));
  EXPECT_EQ(as_int(p.db.query("SELECT count(*) FROM profiles").rows[0][0]), 4);

  ProfileRow bad = fused;
  bad.method = "ncu";
  bad.kernel = "another";
  bad.tensor_pipe_active_pct = 120;
  EXPECT_NE(error_of([&] { p.db.insert_profile(bad); }).find("CHECK"), std::string::npos);
  bad.tensor_pipe_active_pct = 76.7;
  bad.profiled_at = "yesterday";
  EXPECT_NE(error_of([&] { p.db.insert_profile(bad); }).find("CHECK"), std::string::npos);
  bad.profiled_at.reset();
  bad.metrics_json = "[1, 2]";
  EXPECT_NE(error_of([&] { p.db.insert_profile(bad); }).find("CHECK"), std::string::npos);
  bad.metrics_json = "{}";
  bad.device = 99;
  EXPECT_NE(error_of([&] { p.db.insert_profile(bad); }).find("FOREIGN KEY"), std::string::npos);
}

TEST(Runs, InterruptedRunIsFoundAndResumed) {
  TempDir dir;
  auto path = dir / "runs.db";
  RunId run = 0;
  DeviceId dev = 0;
  {
    auto db = Database::open(path, Mode::read_write);
    dev = db.upsert_device(h200());
    run = db.begin_run(run_info(dev, "sweep 4096"));
    // The writer goes away without ending the run (as under kill -9).
  }
  auto db = Database::open(path, Mode::read_write);
  EXPECT_EQ(as_text(db.query("SELECT status FROM runs WHERE id = ?1", {run}).rows[0][0]),
            "interrupted");
  EXPECT_EQ(db.find_unfinished_run("sweep 4096", dev), run);
  EXPECT_EQ(db.find_unfinished_run("sweep 1024", dev), std::nullopt);
  EXPECT_EQ(db.find_unfinished_run("sweep 4096", std::nullopt), std::nullopt);
  db.resume_run(run);
  auto row = db.query("SELECT status, resumed, ended_at FROM runs WHERE id = ?1", {run}).rows[0];
  EXPECT_EQ(as_text(row[0]), "running");
  EXPECT_EQ(as_int(row[1]), 1);
  EXPECT_TRUE(is_null(row[2]));
  db.end_run(run, RunStatus::completed);
  EXPECT_EQ(db.find_unfinished_run("sweep 4096", dev), std::nullopt);
  EXPECT_THROW(db.resume_run(run), Error);
  EXPECT_THROW(db.end_run(run + 100, RunStatus::failed), Error);
}

TEST(Views, ComparisonTakesBaselinesFromTheBestRowsRun) {
  Populated p;
  ConfigId a = p.config(128, 128), b = p.config(64, 128);
  ASSERT_TRUE(p.db.insert_measurement(ok_row(p.run, p.dev, p.prob, "coalesce", a, 0.50)));
  ASSERT_TRUE(p.db.insert_measurement(ok_row(p.run, p.dev, p.prob, "cublas_gemm", {}, 0.45)));
  ASSERT_TRUE(p.db.insert_measurement(ok_row(p.run, p.dev, p.prob, "eager", {}, 0.60)));
  RunId second = p.db.begin_run(run_info(p.dev));
  ASSERT_TRUE(p.db.insert_measurement(ok_row(second, p.dev, p.prob, "coalesce", b, 0.48)));
  ASSERT_TRUE(p.db.insert_measurement(ok_row(second, p.dev, p.prob, "cublas_gemm", {}, 0.44)));
  ASSERT_TRUE(p.db.insert_measurement(ok_row(second, p.dev, p.prob, "unfused", {}, 0.55)));
  ASSERT_TRUE(p.db.insert_measurement(ok_row(second, p.dev, p.prob, "coalesce_unfused", b, 0.52)));
  MeasurementRow lt;  // cuBLASLt refused the epilogue in this run: no time, so NULL in the view
  lt.run = second;
  lt.device = p.dev;
  lt.problem = p.prob;
  lt.method = "cublaslt_fused";
  lt.status = Status::launch_failed;
  lt.message = "CUBLAS_STATUS_NOT_SUPPORTED";
  ASSERT_TRUE(p.db.insert_measurement(lt));

  auto rs = p.db.query("SELECT * FROM v_comparison");
  ASSERT_EQ(rs.rows.size(), 1u);
  auto col = [&](const std::string& name) {
    auto it = std::find(rs.columns.begin(), rs.columns.end(), name);
    return rs.rows[0][static_cast<std::size_t>(it - rs.columns.begin())];
  };
  EXPECT_EQ(as_text(col("config_name")), config_name(from_simt(SimtConfig{.bm = 64}), Dtype::f32,
                                                       Epilogue::bias_gelu));
  EXPECT_DOUBLE_EQ(as_double(col("coalesce_ms")), 0.48);
  EXPECT_DOUBLE_EQ(as_double(col("cublas_gemm_ms")), 0.44);  // run 2's, not run 1's 0.45
  EXPECT_TRUE(is_null(col("eager_ms")));                      // only run 1 measured eager
  EXPECT_DOUBLE_EQ(as_double(col("unfused_ms")), 0.55);
  EXPECT_TRUE(is_null(col("cublaslt_fused_ms")));
  EXPECT_DOUBLE_EQ(as_double(col("coalesce_unfused_ms")), 0.52);
  EXPECT_EQ(as_int(col("run_id")), second);

  auto best = p.db.best_config(p.dev, {1024, 1024, 1024, Dtype::f32, Epilogue::bias_gelu}, "simt");
  ASSERT_TRUE(best);
  EXPECT_EQ(best->config, b);
  EXPECT_DOUBLE_EQ(best->median_ms, 0.48);
  EXPECT_EQ(best->run, second);
  EXPECT_FALSE(p.db.best_config(p.dev, {1024, 1024, 1024, Dtype::f32, Epilogue::bias_gelu}, "mma"));
}

TEST(Query, ReadsOneStatementAndRefusesWrites) {
  Populated p;
  auto rs = p.db.query("SELECT ?1 + 1 AS x, ?2 AS s, NULL AS z; -- trailing comment",
                       {std::int64_t{41}, std::string("hi")});
  EXPECT_EQ(rs.columns, (std::vector<std::string>{"x", "s", "z"}));
  EXPECT_EQ(as_int(rs.rows.at(0)[0]), 42);
  EXPECT_EQ(as_text(rs.rows[0][1]), "hi");
  EXPECT_TRUE(is_null(rs.rows[0][2]));
  EXPECT_THROW(p.db.query("DELETE FROM runs"), QueryRefused);
  EXPECT_THROW(p.db.query("SELECT 1; DELETE FROM runs"), QueryRefused);
  EXPECT_THROW(p.db.query("   "), QueryRefused);
  try {
    p.db.query("SELEC 1");
    FAIL();
  } catch (const QueryRefused&) {
    FAIL() << "a syntax error is an Error, not a refusal";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("syntax error"), std::string::npos);
  }
  EXPECT_EQ(as_int(p.db.query("SELECT count(*) FROM runs").rows[0][0]), 1);
}

TEST(Query, ReadOnlyDatabaseRefusesEveryWrite) {
  TempDir dir;
  auto path = dir / "ro.db";
  { Database::open(path, Mode::read_write).upsert_device(h200()); }
  std::string before = testing::contents(path);
  auto db = Database::open(path, Mode::read_only);
  EXPECT_THROW(db.upsert_device(h200("GPU-x")), Error);
  EXPECT_THROW(db.exec("DELETE FROM devices"), Error);
  EXPECT_THROW(db.query("VACUUM INTO '/tmp/coalesce-copy.db'"), QueryRefused);
  EXPECT_THROW(db.query("ATTACH 'x.db' AS x"), Error);
  EXPECT_EQ(as_int(db.query("SELECT count(*) FROM devices").rows[0][0]), 1);
  EXPECT_EQ(testing::contents(path), before);
}

TEST(Transactions, RollBackWhenTheBodyThrows) {
  Populated p;
  EXPECT_THROW(p.db.in_transaction([&] {
    p.db.insert_measurement(ok_row(p.run, p.dev, p.prob, "eager", {}, 0.7));
    throw std::runtime_error("measurement worker died");
  }),
               std::runtime_error);
  EXPECT_FALSE(p.db.baseline_measured(p.run, p.dev, p.prob, "eager"));
  p.db.in_transaction([&] { p.db.insert_measurement(ok_row(p.run, p.dev, p.prob, "eager", {}, 0.7)); });
  EXPECT_TRUE(p.db.baseline_measured(p.run, p.dev, p.prob, "eager"));
}

TEST(Values, TextOfNumbers) {
  EXPECT_EQ(as_text(Value(0.1)), "0.1");
  EXPECT_EQ(as_text(Value(std::int64_t{7})), "7");
  EXPECT_EQ(as_text(Value()), "");
  EXPECT_DOUBLE_EQ(as_double(Value(std::int64_t{3})), 3.0);
  EXPECT_THROW(as_int(Value()), std::logic_error);
}

}  // namespace
}  // namespace coalesce::db
