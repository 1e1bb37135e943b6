// The report over the fixture database (tests/fixtures/make_fixture.cpp): its comparison agrees
// with the documented v_comparison view, shape parsing, and the diff's verdicts and mean (the
// rules themselves: rules_test.cpp).
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <sstream>

#include "kernels/simt/family.hpp"
#include "reports/report.hpp"

namespace coalesce::report {
namespace {

std::filesystem::path fixture(const char* name) {
  const char* dir = std::getenv("COALESCE_FIXTURE_DIR");
  if (!dir) throw std::runtime_error("COALESCE_FIXTURE_DIR is not set (run through ctest)");
  return std::filesystem::path(dir) / name;
}

TEST(Shapes, ParseNOrMxNxK) {
  auto s = parse_shape("4096");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->m, 4096);
  EXPECT_EQ(s->k, 4096);
  auto r = parse_shape("128x256x64");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->m, 128);
  EXPECT_EQ(r->n, 256);
  EXPECT_EQ(r->k, 64);
  for (const char* bad : {"", "0", "-5", "12x", "1x2", "1x2x3x4", "4096 ", "x", "1e3"})
    EXPECT_FALSE(parse_shape(bad)) << bad;
}

TEST(Filters, UnknownDtypeIsRefused) {
  Filters f;
  f.dtype = "f33";
  EXPECT_THROW(f.validate(), std::invalid_argument);
  f.dtype = "f32";
  f.epilogue = "gelu";
  EXPECT_THROW(f.validate(), std::invalid_argument);
}

// The report opens with its summary: one row per problem in numeric order, the fastest library
// path of the fused row's run named, every ratio > 1 when the fused kernel is faster, and the
// verdict of the [p10, p90] rule against that path.
TEST(Report, SummaryComesFirstWithRatiosAboveOneWhenFusedIsFaster) {
  auto db = db::Database::open(fixture("fixture.db"), db::Mode::read_only);
  Document d = build_report(db, {}, {});
  const Table& t = d.tables.at(0);
  ASSERT_EQ(t.name, "summary");
  ASSERT_EQ(t.rows.size(), 2u);
  auto at = [&](std::size_t r, const char* key) { return t.rows[r][t.index(key)]; };
  EXPECT_EQ(db::as_text(at(0, "shape")), "1024×1024×1024");
  EXPECT_EQ(db::as_text(at(1, "shape")), "4096×4096×4096");
  // 1024: run 2's best (0.0688) against its unfused (0.0688, p10-p90 overlapping); cuBLASLt
  // failed in that run, so it is not a path there.
  EXPECT_EQ(db::as_int(at(0, "run")), 2);
  EXPECT_EQ(db::as_text(at(0, "library_method")), "unfused");
  EXPECT_DOUBLE_EQ(db::as_double(at(0, "vs_library")), 1.0);
  EXPECT_EQ(db::as_text(at(0, "verdict")), "within noise");
  EXPECT_NEAR(db::as_double(at(0, "vs_eager")), 0.0741 / 0.0688, 1e-12);
  // 4096: run 1's best (2.902) is slower than cuBLASLt's fused epilogue (2.745) beyond noise,
  // and faster than eager (2.934) within it.
  EXPECT_EQ(db::as_text(at(1, "library_method")), "cublaslt_fused");
  EXPECT_NEAR(db::as_double(at(1, "vs_library")), 2.745 / 2.902, 1e-12);
  EXPECT_LT(db::as_double(at(1, "vs_library")), 1.0);
  EXPECT_EQ(db::as_text(at(1, "verdict")), "slower");
  EXPECT_GT(db::as_double(at(1, "vs_eager")), 1.0);
  EXPECT_NEAR(db::as_double(at(1, "vs_cublas_gemm")), 2.712 / 2.902, 1e-12);
  // Then the detail, then the environment.
  std::vector<std::string> names;
  for (const Table& table : d.tables) names.push_back(table.name);
  EXPECT_EQ(names.at(1), "comparison");
  EXPECT_EQ(names.back(), "devices");
}

// The device ids the filter selects in `db`.
std::vector<std::int64_t> devices_matched(const db::Database& db, const std::string& device) {
  Filters f;
  f.device = device;
  SqlFilter sql = filter_sql(f, "v");
  auto rs = db.query("SELECT DISTINCT v.device_id FROM v_measurements v WHERE " + sql.where +
                         " ORDER BY v.device_id",
                     sql.params);
  std::vector<std::int64_t> ids;
  for (const auto& row : rs.rows) ids.push_back(db::as_int(row[0]));
  return ids;
}

// --device reads digits as an id, never as part of a name: the fixture's one device is
// "NVIDIA H200", id 1, and --device 2 used to match it by the "2" in its name.
TEST(Filters, DeviceDigitsAreAnIdAndNeverPartOfTheName) {
  EXPECT_EQ(device_key_kind("2"), DeviceKey::id);
  EXPECT_EQ(device_key_kind("GPU-5e1f0c2a"), DeviceKey::uuid);
  EXPECT_EQ(device_key_kind("H200"), DeviceKey::name);
  EXPECT_EQ(device_key_kind("A100-80GB"), DeviceKey::name);
  auto db = db::Database::open(fixture("fixture.db"), db::Mode::read_only);
  EXPECT_EQ(devices_matched(db, "1"), std::vector<std::int64_t>{1});
  EXPECT_TRUE(devices_matched(db, "2").empty());
  EXPECT_TRUE(devices_matched(db, "0").empty());
  EXPECT_TRUE(devices_matched(db, "99999999999999999999999").empty());
  EXPECT_EQ(devices_matched(db, "H200"), std::vector<std::int64_t>{1});
  EXPECT_EQ(devices_matched(db, "GPU-5e1f0c2a-0000-4000-8000-fixture00001"), std::vector<std::int64_t>{1});
  EXPECT_TRUE(devices_matched(db, "GPU-5e1f0c2a").empty());  // a UUID is matched whole
}

// A second H200 stored, as databases before 2026-11-29 stored it, under its UUID's first 39
// characters: the full UUID finds it, and so does the stored form; its id finds only it; the
// name finds both.
TEST(Filters, DeviceByFullUuidFindsTheStoredShortForm) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("report_test_devices_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / "two_devices.db";
  std::filesystem::copy_file(fixture("fixture.db"), path, std::filesystem::copy_options::overwrite_existing);
  const std::string full = "GPU-a1f23bfd-0ce3-ffce-ff38-8340399765fe";
  {
    auto db = db::Database::open(path, db::Mode::read_write);
    db::DeviceRow second;
    second.uuid = full.substr(0, 39);
    second.name = "NVIDIA H200";
    second.arch = "sm_90";
    second.cc_major = 9;
    second.sm_count = 132;
    const db::DeviceId id = db.upsert_device(second);
    ASSERT_EQ(id, 2);
    db::RunInfo info;
    info.device = id;
    info.tool = "coalesce-tune";
    info.resume_key = "second device";
    const db::RunId run = db.begin_run(info);
    db::MeasurementRow row;
    row.run = run;
    row.device = id;
    row.problem = db.upsert_problem({1024, 1024, 1024, Dtype::f32, Epilogue::bias_gelu});
    row.method = "cublas_gemm";
    row.status = db::Status::launch_failed;
    row.message = "synthetic";
    ASSERT_TRUE(db.insert_measurement(row));
    db.end_run(run, db::RunStatus::completed);
  }
  {
    auto db = db::Database::open(path, db::Mode::read_only);
    EXPECT_EQ(devices_matched(db, "2"), std::vector<std::int64_t>{2});
    EXPECT_EQ(devices_matched(db, full), std::vector<std::int64_t>{2});
    EXPECT_EQ(devices_matched(db, full.substr(0, 39)), std::vector<std::int64_t>{2});
    EXPECT_EQ(devices_matched(db, "H200"), (std::vector<std::int64_t>{1, 2}));
  }
  std::filesystem::remove_all(dir);
}

// The why table from the fixture's 4096 run: the epilogue's measured cost (eager 2.934 and
// unfused 2.861 against cuBLAS GEMM's 2.712 ms), its DRAM model (4 and 2 passes of a 64 MiB C
// at 4.3 TB/s), the waves of the winner's 1024 blocks at 2 per SM on 132 SMs, the winner's own
// unfused build (3.015 ms) against it (2.902 ms), and the one config that spilled.
TEST(Report, WhySaysWhatTheEpilogueCostsAndWhatFusionBuys) {
  auto db = db::Database::open(fixture("fixture.db"), db::Mode::read_only);
  Document d = build_report(db, {}, {});
  const Table* why = nullptr;
  for (const Table& t : d.tables)
    if (t.name == "why") why = &t;
  ASSERT_NE(why, nullptr);
  ASSERT_EQ(why->rows.size(), 2u);
  const auto& r = why->rows[1];
  auto at = [&](const char* key) { return r[why->index(key)]; };
  EXPECT_EQ(db::as_int(at("m")), 4096);
  EXPECT_DOUBLE_EQ(db::as_double(at("c_mib")), 64.0);
  EXPECT_EQ(db::as_text(at("c_in_l2")), "no");
  EXPECT_NEAR(db::as_double(at("eager_cost_us")), 222.0, 1e-9);
  EXPECT_NEAR(db::as_double(at("unfused_cost_us")), 149.0, 1e-9);
  EXPECT_NEAR(db::as_double(at("eager_cost_pct")), 222.0 / 2712.0 * 100, 1e-9);
  const double c_bytes = 4096.0 * 4096 * 4;
  EXPECT_NEAR(db::as_double(at("eager_model_us")), 4 * c_bytes / 4.3e12 * 1e6, 1e-9);
  EXPECT_NEAR(db::as_double(at("unfused_model_us")), 2 * c_bytes / 4.3e12 * 1e6, 1e-9);
  EXPECT_EQ(db::as_int(at("blocks")), 1024);
  EXPECT_NEAR(db::as_double(at("waves")), 1024.0 / (132 * 2), 1e-12);
  EXPECT_NEAR(db::as_double(at("fusion_gain")), 3.015 / 2.902, 1e-12);
  EXPECT_EQ(db::as_int(at("spilled")), 1);
  EXPECT_EQ(db::as_int(why->rows[0][why->index("spilled")]), 0);
  EXPECT_EQ(db::as_text(why->rows[0][why->index("c_in_l2")]), "yes");  // 4 MiB at 1024
}

TEST(Report, ComparisonAgreesWithTheView) {
  auto db = db::Database::open(fixture("fixture.db"), db::Mode::read_only);
  auto entries = comparison_entries(db, {});
  auto view = db.query(
      "SELECT m, config_name, coalesce_ms, cublas_gemm_ms, eager_ms, unfused_ms, "
      "cublaslt_fused_ms, coalesce_unfused_ms, run_id FROM v_comparison ORDER BY m");
  ASSERT_EQ(view.rows.size(), 2u);
  for (const auto& row : view.rows) {
    int m = static_cast<int>(db::as_int(row[0]));
    std::map<std::string, std::optional<double>> times;
    std::string best_config;
    std::int64_t run = 0;
    for (const auto& e : entries) {
      if (e.m != m) continue;
      if (e.method == "coalesce") best_config = e.config, run = e.run;
      if (e.status == "ok") times[e.method] = e.median_ms;
    }
    EXPECT_EQ(best_config, db::as_text(row[1]));
    EXPECT_EQ(run, db::as_int(row[8]));
    const char* methods[] = {"coalesce", "cublas_gemm", "eager", "unfused", "cublaslt_fused",
                             "coalesce_unfused"};
    for (int i = 0; i < 6; ++i) {
      if (db::is_null(row[2 + i])) {
        EXPECT_FALSE(times[methods[i]]) << m << " " << methods[i];
      } else {
        ASSERT_TRUE(times[methods[i]]) << m << " " << methods[i];
        EXPECT_DOUBLE_EQ(*times[methods[i]], db::as_double(row[2 + i])) << methods[i];
      }
    }
  }
}

TEST(Report, SecondRunsBestUsesItsOwnBaselines) {
  auto db = db::Database::open(fixture("fixture.db"), db::Mode::read_only);
  Filters f;
  f.shapes = {{1024, 1024, 1024}};
  auto entries = comparison_entries(db, f);
  ASSERT_FALSE(entries.empty());
  EXPECT_EQ(entries[0].method, "coalesce");
  EXPECT_EQ(entries[0].run, 2);  // config M, found by the second run
  for (const auto& e : entries) EXPECT_EQ(e.run, 2);
  // The second run's cuBLASLt failed: its row is shown with its status and no time.
  auto lt = std::find_if(entries.begin(), entries.end(),
                         [](const auto& e) { return e.method == "cublaslt_fused"; });
  ASSERT_NE(lt, entries.end());
  EXPECT_EQ(lt->status, "launch_failed");
  EXPECT_FALSE(lt->median_ms);
}

TEST(Report, RunFilterRanksWithinTheRun) {
  auto db = db::Database::open(fixture("fixture.db"), db::Mode::read_only);
  Filters f;
  f.shapes = {{1024, 1024, 1024}};
  f.run = 1;
  auto entries = comparison_entries(db, f);
  ASSERT_FALSE(entries.empty());
  EXPECT_EQ(entries[0].run, 1);
  EXPECT_NE(entries[0].config.find("_bk16_"), std::string::npos) << entries[0].config;  // A
}

/// The peer rows (method -> entry) shown beside the best of one problem.
std::map<std::string, ComparisonEntry> peers_at(const db::Database& db, int n, Filters f = {}) {
  f.shapes = {{n, n, n}};
  std::map<std::string, ComparisonEntry> out;
  for (const auto& e : comparison_entries(db, f))
    if (e.method == "torch_eager" || e.method == "torch_compile" || e.method == "triton")
      EXPECT_TRUE(out.emplace(e.method, e).second) << "two " << e.method << " rows at " << n;
  return out;
}

TEST(Report, PeersComeFromTheLatestRunThatMeasuredThem) {
  auto db = db::Database::open(fixture("fixture_peers.db"), db::Mode::read_only);
  // 1024: run 4 measured torch_eager and torch_compile (which failed) but not triton.
  auto small = peers_at(db, 1024);
  ASSERT_EQ(small.size(), 3u);
  EXPECT_EQ(small["torch_eager"].run, 4);
  EXPECT_DOUBLE_EQ(*small["torch_eager"].median_ms, 0.0758);
  EXPECT_EQ(small["torch_compile"].run, 4);
  EXPECT_EQ(small["torch_compile"].status, "compile_failed");
  EXPECT_FALSE(small["torch_compile"].median_ms);
  EXPECT_EQ(small["triton"].run, 3);
  EXPECT_DOUBLE_EQ(*small["triton"].median_ms, 0.0951);
  // 4096: all from run 4; triton's fastest ok config, ahead of its failures.
  auto large = peers_at(db, 4096);
  ASSERT_EQ(large.size(), 3u);
  for (const auto& [method, e] : large) EXPECT_EQ(e.run, 4) << method;
  EXPECT_DOUBLE_EQ(*large["torch_eager"].median_ms, 2.941);
  EXPECT_EQ(large["triton"].config, "triton_f32_bm128_bn64_bk32_w4_s3_bias_gelu");
  EXPECT_EQ(large["triton"].status, "ok");
  EXPECT_DOUBLE_EQ(large["triton"].best_median_ms, 2.902);  // compared with run 1's best
}

TEST(Report, PeersFollowTheBaselinesAndLeaveWithRunFilter) {
  auto db = db::Database::open(fixture("fixture_peers.db"), db::Mode::read_only);
  Filters f;
  f.shapes = {{4096, 4096, 4096}};
  auto entries = comparison_entries(db, f);
  ASSERT_GE(entries.size(), 3u);
  EXPECT_EQ(entries[entries.size() - 3].method, "torch_eager");
  EXPECT_EQ(entries[entries.size() - 2].method, "torch_compile");
  EXPECT_EQ(entries.back().method, "triton");
  f.run = 1;  // one run's rows only: the peers are of other runs
  EXPECT_TRUE(peers_at(db, 4096, f).empty());
  Filters simt;
  simt.family = "simt";  // the family filter picks the best rows, not the peers beside them
  EXPECT_EQ(peers_at(db, 4096, simt).size(), 3u);
  // The base fixture has no peers: its comparison is unchanged.
  auto base = db::Database::open(fixture("fixture.db"), db::Mode::read_only);
  EXPECT_TRUE(peers_at(base, 4096).empty());
}

/// A workload over the fixture's problems: 1024³ bias_gelu on two rows (the second with an empty
/// epilogue), 4096³, and 1024³ bias, which no fixture holds.
Workload fixture_workload() {
  std::istringstream in(
      "1024,1024,1024,,bias_gelu,up,2\n"
      "1024,1024,1024,,,up again,1\n"
      "4096,4096,4096,f32,bias_gelu,big,1\n"
      "1024,1024,1024,,bias,out,3\n");
  return parse_workload(in, "w.csv");
}

/// The `workloads` rows of `doc`'s workload tables as (which rows) → row.
std::map<std::string, std::vector<Value>> workload_rows(const Table& t, const std::string& device = "") {
  std::map<std::string, std::vector<Value>> out;
  for (const auto& row : t.rows)
    if (device.empty() || db::as_text(row[t.index("device")]) == device)
      out[db::as_text(row[t.index("part")])] = row;
  return out;
}

// Each method's time for the whole workload is Σ median × count over the rows, from the same
// per-problem picks as the summary (1024: run 2's best 0.0688 and its baselines; 4096: run 1's
// 2.902 and its baselines); the missing problem makes the sums partial and is listed with its
// rows; cuBLASLt, which failed at 1024, has no total rather than a smaller one.
TEST(Workloads, SumEachMethodOverTheRowsAndSayWhatIsMissing) {
  auto db = db::Database::open(fixture("fixture.db"), db::Mode::read_only);
  const std::vector<Table> tables = workload_tables(db, {}, {fixture_workload()});
  ASSERT_EQ(tables.size(), 2u);
  const Table& t = tables[0];
  ASSERT_EQ(t.name, "workloads");
  auto rows = workload_rows(t);
  ASSERT_EQ(rows.size(), 3u);  // M = 1024, M = 4096, every row
  auto at = [&](const std::string& part, const char* key) { return rows.at(part)[t.index(key)]; };
  EXPECT_NEAR(db::as_double(at("every row", "coalesce_ms")), 0.0688 * 3 + 2.902, 1e-12);
  EXPECT_NEAR(db::as_double(at("every row", "eager_ms")), 0.0741 * 3 + 2.934, 1e-12);
  EXPECT_NEAR(db::as_double(at("every row", "cublas_gemm_ms")), 0.0609 * 3 + 2.712, 1e-12);
  EXPECT_NEAR(db::as_double(at("every row", "vs_eager")), (0.0741 * 3 + 2.934) / (0.0688 * 3 + 2.902), 1e-12);
  EXPECT_NEAR(db::as_double(at("every row", "vs_cublas_gemm")), (0.0609 * 3 + 2.712) / (0.0688 * 3 + 2.902), 1e-12);
  EXPECT_TRUE(db::is_null(at("every row", "cublaslt_fused_ms")));
  EXPECT_NE(db::as_text(at("every row", "note")).find("cublaslt_fused (no ok row on 1 problem)"), std::string::npos);
  EXPECT_EQ(db::as_text(at("every row", "sum")), "partial");
  EXPECT_EQ(db::as_int(at("every row", "problems")), 3);
  EXPECT_EQ(db::as_int(at("every row", "measured")), 2);
  EXPECT_EQ(db::as_text(at("every row", "runs")), "1, 2");
  EXPECT_EQ(db::as_text(at("M = 4096", "sum")), "complete");
  EXPECT_NEAR(db::as_double(at("M = 4096", "cublaslt_fused_ms")), 2.745, 1e-12);
  EXPECT_EQ(db::as_int(at("M = 1024", "m")), 1024);
  EXPECT_TRUE(db::is_null(at("every row", "m")));

  const Table& missing = tables[1];
  ASSERT_EQ(missing.rows.size(), 1u);
  const auto& row = missing.rows[0];
  EXPECT_EQ(db::as_text(row[missing.index("problem")]), "1024×1024×1024 f32 bias");
  EXPECT_EQ(db::as_int(row[missing.index("count")]), 3);
  EXPECT_EQ(db::as_text(row[missing.index("rows")]), "out (line 4)");
}

// --epilogue fills the empty epilogue field (and hides no row that names another); --shape does
// not narrow a workload; --run 1 takes 1024's best of run 1 (0.0703) and its baselines.
TEST(Workloads, FiltersFillDefaultsOrNarrowTheRows) {
  auto db = db::Database::open(fixture("fixture.db"), db::Mode::read_only);
  Filters bias;
  bias.epilogue = "bias";
  bias.shapes = {{4096, 4096, 4096}};
  auto t = workload_tables(db, bias, {fixture_workload()});
  auto rows = workload_rows(t[0]);
  EXPECT_NEAR(db::as_double(rows.at("M = 1024")[t[0].index("coalesce_ms")]), 0.0688 * 2, 1e-12);
  EXPECT_NEAR(db::as_double(rows.at("M = 4096")[t[0].index("coalesce_ms")]), 2.902, 1e-12);
  EXPECT_EQ(t[1].rows.size(), 1u);  // 1024³ bias, now on two rows
  EXPECT_EQ(db::as_int(t[1].rows[0][t[1].index("count")]), 4);
  EXPECT_EQ(db::as_text(t[1].rows[0][t[1].index("rows")]), "up again (line 2); out (line 4)");

  Filters run1;
  run1.run = 1;
  t = workload_tables(db, run1, {fixture_workload()});
  rows = workload_rows(t[0]);
  EXPECT_NEAR(db::as_double(rows.at("M = 1024")[t[0].index("coalesce_ms")]), 0.0703 * 3, 1e-12);
  EXPECT_EQ(db::as_text(rows.at("every row")[t[0].index("runs")]), "1");

  Filters bf16;
  bf16.dtype = "bf16";
  t = workload_tables(db, bf16, {fixture_workload()});
  EXPECT_TRUE(t[0].rows.empty());
  ASSERT_FALSE(t[0].notes.empty());
  EXPECT_NE(t[0].notes.back().find("w.csv: no problem of it is in the database"), std::string::npos);
  EXPECT_NE(t[0].notes.back().find("--shapes-file w.csv --dtype bf16"), std::string::npos);
}

// Two GPUs: each device gets its own section, summed from its own rows only, so a ratio never
// mixes devices; a device that holds only some problems says partial.
TEST(Workloads, EachDeviceIsSummedOnItsOwn) {
  const auto dir = std::filesystem::temp_directory_path() / ("report_test_workloads_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / "two_devices.db";
  std::filesystem::copy_file(fixture("fixture.db"), path, std::filesystem::copy_options::overwrite_existing);
  {
    auto db = db::Database::open(path, db::Mode::read_write);
    db::DeviceRow a100;
    a100.uuid = "GPU-00000000-0000-4000-8000-workload0002";
    a100.name = "NVIDIA A100";
    a100.arch = "sm_80";
    a100.cc_major = 8;
    a100.sm_count = 108;
    const db::DeviceId id = db.upsert_device(a100);
    db::RunInfo info;
    info.device = id;
    info.tool = "coalesce-tune";
    info.resume_key = "a100";
    const db::RunId run = db.begin_run(info);
    const db::ConfigId config = db.upsert_config(
        {"simt", "simt_f32_bm64_bn64_bk16_wm32_wn32_tm4_tn8_s3_v4_g8_o2_bias_gelu", "{}", "src-a100"});
    for (const auto& [method, ms] : std::vector<std::pair<std::string, double>>{
             {"coalesce", 0.2}, {"cublas_gemm", 0.15}, {"eager", 0.3}, {"unfused", 0.25}}) {
      db::MeasurementRow row;
      row.run = run;
      row.device = id;
      row.problem = db.upsert_problem({1024, 1024, 1024, Dtype::f32, Epilogue::bias_gelu});
      row.method = method;
      if (method == "coalesce") row.config = config;
      row.timing = db::Timing{ms, ms * 0.98, ms * 1.02, ms * 0.99, ms * 1.01, 50};
      row.rel_err = 1e-7;
      row.max_abs_err = 1e-5;
      ASSERT_TRUE(db.insert_measurement(row));
    }
    db.end_run(run, db::RunStatus::completed);
  }
  {
    auto db = db::Database::open(path, db::Mode::read_only);
    const auto t = workload_tables(db, {}, {fixture_workload()});
    const auto h200 = workload_rows(t[0], "NVIDIA H200");
    const auto a100 = workload_rows(t[0], "NVIDIA A100");
    ASSERT_EQ(a100.size(), 3u);
    auto at = [&](const auto& rows, const char* key) { return rows.at("every row")[t[0].index(key)]; };
    EXPECT_NEAR(db::as_double(at(h200, "coalesce_ms")), 0.0688 * 3 + 2.902, 1e-12);
    EXPECT_NEAR(db::as_double(at(a100, "coalesce_ms")), 0.2 * 3, 1e-12);
    EXPECT_NEAR(db::as_double(at(a100, "vs_eager")), 1.5, 1e-12);
    EXPECT_NEAR(db::as_double(at(a100, "vs_cublas_gemm")), 0.75, 1e-12);
    EXPECT_EQ(db::as_int(at(a100, "measured")), 1);
    EXPECT_EQ(db::as_text(at(a100, "sum")), "partial");
    EXPECT_EQ(db::as_text(a100.at("M = 4096")[t[0].index("sum")]), "nothing measured");
    EXPECT_TRUE(db::is_null(a100.at("M = 4096")[t[0].index("coalesce_ms")]));
    int missing_on_a100 = 0;
    for (const auto& row : t[1].rows) missing_on_a100 += db::as_text(row[t[1].index("device")]) == "NVIDIA A100";
    EXPECT_EQ(missing_on_a100, 2);  // 4096³ bias_gelu and 1024³ bias
  }
  std::filesystem::remove_all(dir);
}

// A problem measured on two devices gets a "devices side by side" block: each device's best
// fused time with its own run's ratios, and its time against the fastest device's. The
// one-device fixture has no such table.
TEST(Report, DevicesSideBySideKeepEachDevicesRatiosItsOwn) {
  {
    auto db = db::Database::open(fixture("fixture.db"), db::Mode::read_only);
    for (const Table& t : build_report(db, {}, {}).tables) EXPECT_NE(t.name, "devices_side_by_side");
  }
  const auto dir = std::filesystem::temp_directory_path() / ("report_test_side_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / "two_devices.db";
  std::filesystem::copy_file(fixture("fixture.db"), path, std::filesystem::copy_options::overwrite_existing);
  {
    auto db = db::Database::open(path, db::Mode::read_write);
    db::DeviceRow second;
    second.uuid = "GPU-00000000-0000-4000-8000-sidebyside02";
    second.name = "NVIDIA A100";
    second.arch = "sm_80";
    second.cc_major = 8;
    second.sm_count = 108;
    const db::DeviceId id = db.upsert_device(second);
    db::RunInfo info;
    info.device = id;
    info.tool = "coalesce-tune";
    info.resume_key = "side by side";
    const db::RunId run = db.begin_run(info);
    const db::ConfigId config = db.upsert_config(
        {"simt", "simt_f32_bm64_bn64_bk16_wm32_wn32_tm4_tn8_s3_v4_g8_o2_bias_gelu", "{}", "src-side"});
    for (const auto& [method, ms] : std::vector<std::pair<std::string, double>>{
             {"coalesce", 0.2}, {"cublas_gemm", 0.15}, {"eager", 0.3}}) {
      db::MeasurementRow row;
      row.run = run;
      row.device = id;
      row.problem = db.upsert_problem({1024, 1024, 1024, Dtype::f32, Epilogue::bias_gelu});
      row.method = method;
      if (method == "coalesce") row.config = config;
      row.timing = db::Timing{ms, ms * 0.98, ms * 1.02, ms * 0.99, ms * 1.01, 50};
      row.rel_err = 1e-7;
      row.max_abs_err = 1e-5;
      ASSERT_TRUE(db.insert_measurement(row));
    }
    db.end_run(run, db::RunStatus::completed);
  }
  {
    auto db = db::Database::open(path, db::Mode::read_only);
    const Document d = build_report(db, {}, {});
    const Table* side = nullptr;
    for (const Table& t : d.tables)
      if (t.name == "devices_side_by_side") side = &t;
    ASSERT_NE(side, nullptr);
    ASSERT_EQ(side->rows.size(), 2u) << "only the 1024³ problem is on both devices";
    auto at = [&](std::size_t r, const char* key) { return side->rows[r][side->index(key)]; };
    EXPECT_EQ(db::as_text(at(0, "problem")), "1024×1024×1024 f32 bias_gelu");
    EXPECT_EQ(db::as_text(at(0, "device")), "NVIDIA H200");
    EXPECT_EQ(db::as_text(at(1, "device")), "NVIDIA A100");
    EXPECT_NEAR(db::as_double(at(0, "fused_ms")), 0.0688, 1e-12);
    EXPECT_NEAR(db::as_double(at(0, "vs_fastest")), 1.0, 1e-12);
    EXPECT_NEAR(db::as_double(at(1, "vs_fastest")), 0.2 / 0.0688, 1e-12);
    // The A100's ratios are against its own run's baselines, never the H200's.
    EXPECT_NEAR(db::as_double(at(1, "pct_cublas")), 75.0, 1e-9);
    EXPECT_NEAR(db::as_double(at(1, "vs_eager")), 1.5, 1e-12);
    EXPECT_EQ(db::as_text(at(1, "config")), "simt_f32_bm64_bn64_bk16_wm32_wn32_tm4_tn8_s3_v4_g8_o2_bias_gelu");
  }
  std::filesystem::remove_all(dir);
}

// Profiles follow the why table, per device and problem: the family's best (current best: yes)
// whether profiled here or on another H200 (then named), a config that is no longer the best where
// it was profiled (no), the library's kernel; never another model's profile nor a profile on
// another GPU of a config that is not this device's best. A database without profiles has no
// such table.
TEST(Report, ProfilesShowBesideTheWinnersAndMarkWhereTheyWereTaken) {
  {
    auto db = db::Database::open(fixture("fixture.db"), db::Mode::read_only);
    for (const Table& t : build_report(db, {}, {}).tables) EXPECT_NE(t.name, "profiles");
  }
  auto db = db::Database::open(fixture("fixture_profiles.db"), db::Mode::read_only);
  const Document d = build_report(db, {}, {});
  std::vector<std::string> names;
  for (const Table& t : d.tables) names.push_back(t.name);
  const auto why = std::find(names.begin(), names.end(), "why");
  ASSERT_NE(why, names.end());
  ASSERT_NE(why + 1, names.end());
  EXPECT_EQ(*(why + 1), "profiles");
  const Table& t = d.tables.at(static_cast<std::size_t>(why + 1 - names.begin()));
  auto at = [&](std::size_t r, const char* key) { return db::as_text(t.rows.at(r)[t.index(key)]); };
  ASSERT_EQ(t.rows.size(), 4u);
  const std::string m_name = "simt_f32_bm128_bn128_bk8_wm64_wn32_tm8_tn8_s3_v4_g4_o2_bias_gelu";
  const std::string a_name = "simt_f32_bm128_bn128_bk16_wm64_wn32_tm8_tn8_s3_v4_g8_o2_bias_gelu";
  // 1024³: M, run 2's best, profiled on the second H200; A, run 1's best, profiled here.
  EXPECT_EQ(at(0, "problem"), "1024×1024×1024 f32 bias_gelu");
  EXPECT_EQ(at(0, "device"), "NVIDIA H200 (device 1)");
  EXPECT_EQ(at(0, "config"), m_name);
  EXPECT_EQ(at(0, "current_best"), "yes");
  EXPECT_EQ(at(0, "profiled_on"), "NVIDIA H200 (device 2)");
  EXPECT_EQ(at(1, "config"), a_name);
  EXPECT_EQ(at(1, "current_best"), "no");
  EXPECT_EQ(at(1, "profiled_on"), "");
  // 4096³: A, the best, then cuBLAS's kernel (no family, no config, no verdict).
  EXPECT_EQ(at(2, "problem"), "4096×4096×4096 f32 bias_gelu");
  EXPECT_EQ(at(2, "config"), a_name);
  EXPECT_EQ(at(2, "current_best"), "yes");
  EXPECT_EQ(at(2, "tool"), "ncu 2025.3.1.0");
  EXPECT_EQ(at(2, "profiled_at"), "2025-01-05T10:00:00Z");
  EXPECT_NEAR(db::as_double(t.rows[2][t.index("duration_us")]), 2890.5, 1e-9);
  EXPECT_NEAR(db::as_double(t.rows[2][t.index("sm_throughput_pct")]), 60.0, 1e-9);
  EXPECT_EQ(db::as_int(t.rows[2][t.index("registers")]), 118);
  EXPECT_EQ(at(2, "top_stalls"), "long_scoreboard 2.00, barrier 1.50, mio_throttle 1.25");
  EXPECT_EQ(at(3, "method"), "cublas_gemm");
  EXPECT_EQ(at(3, "kernel"), "sm90_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x128x8_cublas");
  EXPECT_EQ(at(3, "family"), "");
  EXPECT_EQ(at(3, "config"), "");
  EXPECT_EQ(at(3, "current_best"), "");
  EXPECT_EQ(db::as_int(t.rows[3][t.index("bank_conflicts_loads")]), 1000);
  // The filters narrow it like the other tables.
  Filters only_4096;
  only_4096.shapes = {{4096, 4096, 4096}};
  auto narrowed = build_report(db, only_4096, {});
  for (const Table& table : narrowed.tables)
    if (table.name == "profiles") EXPECT_EQ(table.rows.size(), 2u);
}

// --workload puts its tables right after the summary and names the files in the meta.
TEST(Workloads, FollowTheSummaryInTheReport) {
  auto db = db::Database::open(fixture("fixture.db"), db::Mode::read_only);
  ReportOptions options;
  options.workloads = {fixture_workload()};
  Document d = build_report(db, {}, options);
  ASSERT_GE(d.tables.size(), 3u);
  EXPECT_EQ(d.tables[0].name, "summary");
  EXPECT_EQ(d.tables[1].name, "workloads");
  EXPECT_EQ(d.tables[2].name, "workload_missing");
  EXPECT_EQ(d.meta.back(), (std::pair<std::string, std::string>{"workloads", "w.csv"}));
}

TEST(Diff, VerdictsFollowTheNoiseRule) {
  auto a = db::Database::open(fixture("fixture.db"), db::Mode::read_only);
  auto b = db::Database::open(fixture("fixture_b.db"), db::Mode::read_only);
  Document d = build_diff(a, b, {}, {"a", "b", false, /*all=*/true});
  ASSERT_EQ(d.tables.at(0).name, "summary");  // the summary first
  const Table& t = d.tables.at(1);
  std::map<std::string, std::string> verdict;  // "<m> <method> <config>" -> verdict
  for (const auto& row : t.rows)
    verdict[db::as_text(row[t.index("m")]) + " " + db::as_text(row[t.index("method")]) + " " +
            db::as_text(row[t.index("config")])] = db::as_text(row[t.index("verdict")]);
  auto name = [](SimtConfig c) { return config_name(from_simt(c), Dtype::f32, Epilogue::bias_gelu); };
  EXPECT_EQ(verdict["4096 coalesce " + name({128, 128, 16, 64, 32, 8, 8, 3, 4, 8})], "faster");
  EXPECT_EQ(verdict["4096 coalesce " + name({128, 128, 8, 64, 32, 8, 8, 2, 4, 8})], "slower");
  EXPECT_EQ(verdict["4096 coalesce " + name({128, 64, 16, 32, 32, 4, 8, 3, 4, 8})], "within noise");
  EXPECT_EQ(verdict["1024 coalesce " + name({64, 64, 8, 32, 32, 4, 8, 2, 2, 1})], "now ok");
  EXPECT_EQ(verdict["1024 coalesce " + name({64, 64, 16, 32, 32, 4, 8, 2, 4, 4})],
            "now launch_failed");
  const Table& s = d.tables.at(0);
  EXPECT_EQ(db::as_int(s.rows[0][s.index("only_in_a")]), 1);  // D at 1024
  EXPECT_EQ(db::as_int(s.rows[0][s.index("only_in_b")]), 1);  // N at 1024
  EXPECT_EQ(db::as_int(s.rows[0][s.index("faster")]), 1);
  EXPECT_EQ(db::as_int(s.rows[0][s.index("slower")]), 1);
  // The summary's mean is the geometric mean of the ratio column.
  std::vector<double> ratios;
  for (const auto& row : t.rows)
    if (!db::is_null(row[t.index("ratio")])) ratios.push_back(db::as_double(row[t.index("ratio")]));
  ASSERT_GE(ratios.size(), 2u);
  EXPECT_DOUBLE_EQ(db::as_double(s.rows[0][s.index("geomean_ratio")]), geometric_mean(ratios));
}

// By default a diff lists only what changed beyond noise (and changes of status); the summary
// still counts every compared row.
TEST(Diff, ListsOnlyChangesBeyondNoiseUnlessAll) {
  auto a = db::Database::open(fixture("fixture.db"), db::Mode::read_only);
  auto b = db::Database::open(fixture("fixture_b.db"), db::Mode::read_only);
  Document all = build_diff(a, b, {}, {"a", "b", false, true});
  Document changed = build_diff(a, b, {}, {"a", "b", false, false});
  const Table& s = changed.tables.at(0);
  const Table& t = changed.tables.at(1);
  const std::int64_t within = db::as_int(s.rows[0][s.index("within_noise")]);
  ASSERT_GT(within, 0);
  EXPECT_EQ(static_cast<std::int64_t>(all.tables.at(1).rows.size()),
            static_cast<std::int64_t>(t.rows.size()) + within);
  for (const auto& row : t.rows) EXPECT_NE(db::as_text(row[t.index("verdict")]), "within noise");
  EXPECT_EQ(all.tables.at(0).rows, changed.tables.at(0).rows);  // the same summary
}

// --fail-on-slower PCT: rows slower beyond noise by more than PCT percent. The fixture's B
// config is 10% slower in b (beyond its noise), nothing else is slower.
TEST(Diff, FailOnSlowerCountsRowsSlowerBeyondTheThreshold) {
  auto a = db::Database::open(fixture("fixture.db"), db::Mode::read_only);
  auto b = db::Database::open(fixture("fixture_b.db"), db::Mode::read_only);
  Document d = build_diff(a, b, {}, {"a", "b", false, false});
  EXPECT_EQ(slower_by_more_than(d, 0).size(), 1u);
  EXPECT_EQ(slower_by_more_than(d, 9.9).size(), 1u);
  EXPECT_TRUE(slower_by_more_than(d, 10.1).empty());
  ASSERT_EQ(slower_by_more_than(d, 5).size(), 1u);
  EXPECT_NE(slower_by_more_than(d, 5)[0].find("(B/A 1.100)"), std::string::npos);
  Document reversed = build_diff(b, a, {}, {"b", "a", false, false});  // now A's best got slower
  EXPECT_EQ(slower_by_more_than(reversed, 5).size(), 1u);
}

}  // namespace
}  // namespace coalesce::report
