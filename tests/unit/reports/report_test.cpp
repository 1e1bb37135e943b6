// The report over the fixture database (tests/fixtures/make_fixture.cpp): its comparison agrees
// with the documented v_comparison view, shape parsing, and the diff's verdicts and mean (the
// rules themselves: rules_test.cpp).
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "kernels/simt/family.hpp"
#include "reports/plots.hpp"
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

// A family's best timed in a more preferred protocol outranks a faster one of another (as the
// compiler ranks them, protocols.preference): here an mma row of a steady-state run at 4096³
// (3.5 ms, steady_b2b) against the fixture's simt sweep (2.902 ms, flush_b2b). The summary takes
// the mma block, its run's own baselines, and says which protocol that run timed by.
TEST(Report, ASteadyStateBestOutranksAFasterOneAndTheSummarySaysSo) {
  const auto dir = std::filesystem::temp_directory_path() / ("report_test_steady_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / "steady.db";
  std::filesystem::copy_file(fixture("fixture.db"), path, std::filesystem::copy_options::overwrite_existing);
  {
    auto db = db::Database::open(path, db::Mode::read_write);
    db::RunInfo info;
    info.device = 1;
    info.tool = "coalesce-tune";
    info.resume_key = "steady";
    info.harness_json = R"({"min_samples":3000,"max_samples":3000})";
    const db::RunId run = db.begin_run(info);
    const db::ProblemId problem = db.upsert_problem({4096, 4096, 4096, Dtype::f32, Epilogue::bias_gelu});
    auto row = [&](const std::string& method, std::optional<db::ConfigId> config, double ms) {
      db::MeasurementRow r;
      r.run = run;
      r.device = 1;
      r.problem = problem;
      r.method = method;
      r.config = config;
      r.timing = db::Timing{ms, ms * 0.99, ms * 1.01, ms * 0.995, ms * 1.005, 3000};
      r.rel_err = 2e-7;
      r.max_abs_err = 4e-5;
      EXPECT_TRUE(db.insert_measurement(r));
    };
    row("coalesce", db.upsert_config({"mma", "mma_f32_steady_test_bias_gelu", "{}", "h"}), 3.5);
    row("cublas_gemm", std::nullopt, 2.8);
    row("eager", std::nullopt, 3.6);
    db.end_run(run, db::RunStatus::completed);
  }
  auto db = db::Database::open(path, db::Mode::read_only);
  Filters f;
  f.shapes = {{4096, 4096, 4096}};
  const std::vector<ComparisonEntry> entries = comparison_entries(db, f);
  const Document doc = build_report(db, f, {});
  const auto summary = std::find_if(doc.tables.begin(), doc.tables.end(), [](const Table& x) { return x.name == "summary"; });
  ASSERT_NE(summary, doc.tables.end());
  const Table& t = *summary;
  ASSERT_EQ(t.rows.size(), 1u);
  auto at = [&](const std::string& key) {
    for (std::size_t i = 0; i < t.columns.size(); ++i)
      if (t.columns[i].key == key) return t.rows[0][i];
    throw std::runtime_error("no column " + key);
  };
  EXPECT_EQ(db::as_text(at("family")), "mma");
  EXPECT_EQ(db::as_text(at("protocol")), "steady_b2b");
  EXPECT_DOUBLE_EQ(db::as_double(at("fused_ms")), 3.5);
  EXPECT_DOUBLE_EQ(db::as_double(at("vs_cublas_gemm")), 2.8 / 3.5);
  EXPECT_DOUBLE_EQ(db::as_double(at("vs_eager")), 3.6 / 3.5);
  // The runs table says which protocol each run timed by.
  const auto runs = std::find_if(doc.tables.begin(), doc.tables.end(), [](const Table& x) { return x.name == "runs"; });
  ASSERT_NE(runs, doc.tables.end());
  std::map<std::string, std::string> sampling;
  for (const auto& row : runs->rows) {
    std::string run, how;
    for (std::size_t i = 0; i < runs->columns.size(); ++i) {
      if (runs->columns[i].key == "run") run = db::as_text(row[i]);
      if (runs->columns[i].key == "protocol") how = db::as_text(row[i]);
    }
    sampling[run] = how;
  }
  EXPECT_EQ(sampling[db::as_text(at("run"))], "steady_b2b");
  EXPECT_EQ(sampling["1"], "flush_b2b");
  // The fixture's own best is still there, ranked within its family, and says it was not.
  const auto simt = std::find_if(entries.begin(), entries.end(),
                                 [](const ComparisonEntry& e) { return e.method == "coalesce" && e.family == "simt"; });
  ASSERT_NE(simt, entries.end());
  EXPECT_FALSE(simt->steady_state);
  EXPECT_EQ(simt->protocol, "flush_b2b");
  EXPECT_DOUBLE_EQ(simt->best_median_ms, 2.902);
  std::filesystem::remove_all(dir);
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

/// A copy of the fixture database in a fresh directory (removed with the object), for tests that
/// add devices and rows to it.
struct FixtureCopy {
  std::filesystem::path dir, path;
  explicit FixtureCopy(const std::string& name)
      : dir(std::filesystem::temp_directory_path() / (name + "_" + std::to_string(::getpid()))),
        path(dir / "fixture.db") {
    std::filesystem::create_directories(dir);
    std::filesystem::copy_file(fixture("fixture.db"), path, std::filesystem::copy_options::overwrite_existing);
  }
  ~FixtureCopy() { std::filesystem::remove_all(dir); }
};

/// A device of `name` (sm_90-like unless told) with one completed run that measured `problem`:
/// `coalesce` under the simt config `config` (source hash "src-" + uuid), the other methods as
/// baselines, each at its median in ms.
db::DeviceId add_measured_device(db::Database& db, db::DeviceRow device, const Problem& problem,
                                 const std::string& config,
                                 const std::vector<std::pair<std::string, double>>& medians) {
  const std::string uuid = device.uuid;
  const db::DeviceId id = db.upsert_device(std::move(device));
  db::RunInfo info;
  info.device = id;
  info.tool = "coalesce-tune";
  info.resume_key = uuid;
  const db::RunId run = db.begin_run(info);
  const db::ConfigId config_id = db.upsert_config({"simt", config, "{}", "src-" + uuid});
  for (const auto& [method, ms] : medians) {
    db::MeasurementRow row;
    row.run = run;
    row.device = id;
    row.problem = db.upsert_problem(problem);
    row.method = method;
    if (method == "coalesce") row.config = config_id;
    row.timing = db::Timing{ms, ms * 0.98, ms * 1.02, ms * 0.99, ms * 1.01, 50};
    row.rel_err = 1e-7;
    row.max_abs_err = 1e-5;
    EXPECT_TRUE(db.insert_measurement(row)) << method;
  }
  db.end_run(run, db::RunStatus::completed);
  return id;
}

db::DeviceRow device_row(const std::string& uuid, const std::string& name, const std::string& arch, int cc_major,
                         int sm_count, int max_sm_clock_mhz = 0) {
  db::DeviceRow d;
  d.uuid = uuid;
  d.name = name;
  d.arch = arch;
  d.cc_major = cc_major;
  d.sm_count = sm_count;
  d.max_sm_clock_mhz = max_sm_clock_mhz;
  return d;
}

const Problem k1024{1024, 1024, 1024, Dtype::f32, Epilogue::bias_gelu};
const std::string kA100Config = "simt_f32_bm64_bn64_bk16_wm32_wn32_tm4_tn8_s3_v4_g8_o2_bias_gelu";

// Two GPUs: each device gets its own section, summed from its own rows only, so a ratio never
// mixes devices; a device that holds only some problems says partial.
TEST(Workloads, EachDeviceIsSummedOnItsOwn) {
  FixtureCopy copy("report_test_workloads");
  const auto& path = copy.path;
  {
    auto db = db::Database::open(path, db::Mode::read_write);
    add_measured_device(db, device_row("GPU-00000000-0000-4000-8000-workload0002", "NVIDIA A100", "sm_80", 8, 108), k1024,
                        kA100Config, {{"coalesce", 0.2}, {"cublas_gemm", 0.15}, {"eager", 0.3}, {"unfused", 0.25}});
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
}

// A problem measured on two devices gets a "devices side by side" block: each device's best
// fused time with its own run's ratios, and its time against the fastest device's. The
// one-device fixture has no such table.
TEST(Report, DevicesSideBySideKeepEachDevicesRatiosItsOwn) {
  {
    auto db = db::Database::open(fixture("fixture.db"), db::Mode::read_only);
    for (const Table& t : build_report(db, {}, {}).tables) EXPECT_NE(t.name, "devices_side_by_side");
  }
  FixtureCopy copy("report_test_side");
  const auto& path = copy.path;
  {
    auto db = db::Database::open(path, db::Mode::read_write);
    add_measured_device(db, device_row("GPU-00000000-0000-4000-8000-sidebyside02", "NVIDIA A100", "sm_80", 8, 108), k1024,
                        kA100Config, {{"coalesce", 0.2}, {"cublas_gemm", 0.15}, {"eager", 0.3}});
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
    EXPECT_EQ(db::as_text(at(1, "config")), kA100Config);
  }
}

// A workload split between two GPUs of one model (as --devices or a Slurm array splits it) is
// also summed over the pair, each problem from the device that measured it; a GPU of another
// model holding a problem of it stays out of the pair.
TEST(Workloads, DevicesOfOneModelAreSummedTogetherEachProblemFromOne) {
  FixtureCopy copy("report_test_model");
  const auto& path = copy.path;
  {
    auto db = db::Database::open(path, db::Mode::read_write);
    const auto h200 = db.query("SELECT name, arch, cc_major, sm_count, max_sm_clock_mhz FROM devices WHERE id = 1").rows.at(0);
    const Problem bias{1024, 1024, 1024, Dtype::f32, Epilogue::bias};
    const std::string config = "simt_f32_bm64_bn64_bk16_wm32_wn32_tm4_tn8_s3_v4_g8_o2_bias";
    const std::vector<std::pair<std::string, double>> baselines = {{"cublas_gemm", 0.04}, {"eager", 0.07}, {"unfused", 0.06}};
    auto with_fused = [&](double ms) {
      auto medians = baselines;
      medians.insert(medians.begin(), {"coalesce", ms});
      return medians;
    };
    add_measured_device(db,
                        device_row("GPU-00000000-0000-4000-8000-samemodel002", db::as_text(h200[0]), db::as_text(h200[1]),
                                   static_cast<int>(db::as_int(h200[2])), static_cast<int>(db::as_int(h200[3])),
                                   static_cast<int>(db::as_int(h200[4]))),
                        bias, config, with_fused(0.05));
    add_measured_device(db,
                        device_row("GPU-00000000-0000-4000-8000-othermodel03", "NVIDIA A100", db::as_text(h200[1]),
                                   static_cast<int>(db::as_int(h200[2])), 108, static_cast<int>(db::as_int(h200[4]))),
                        bias, config, with_fused(0.01));
  }
  {
    auto db = db::Database::open(path, db::Mode::read_only);
    const auto t = workload_tables(db, {}, {fixture_workload()});
    std::map<std::string, std::vector<Value>> pair;
    for (const auto& row : t[0].rows) {
      const std::string device = db::as_text(row[t[0].index("device")]);
      if (device.find(" ×2 ") != std::string::npos) {
        EXPECT_EQ(device, "NVIDIA H200 ×2 (devices 1, 2, each problem from one)");
        pair[db::as_text(row[t[0].index("part")])] = row;
      }
    }
    ASSERT_EQ(pair.size(), 3u) << "M = 1024, M = 4096, every row";
    auto at = [&](const char* key) { return pair.at("every row")[t[0].index(key)]; };
    EXPECT_EQ(db::as_text(at("sum")), "complete");
    EXPECT_EQ(db::as_int(at("measured")), 3);
    // The A100's 0.01 ms is not taken: the bias problem comes from device 2.
    EXPECT_NEAR(db::as_double(at("coalesce_ms")), 0.0688 * 3 + 2.902 + 0.05 * 3, 1e-12);
    EXPECT_NEAR(db::as_double(at("eager_ms")), 0.0741 * 3 + 2.934 + 0.07 * 3, 1e-12);
    EXPECT_NEAR(db::as_double(at("vs_eager")), (0.0741 * 3 + 2.934 + 0.07 * 3) / (0.0688 * 3 + 2.902 + 0.05 * 3), 1e-12);
    EXPECT_NE(db::as_text(at("runs")).find(", "), std::string::npos) << "the fused rows of both devices' runs";
    EXPECT_NE(t[0].notes.back().find("only the sum spans devices"), std::string::npos);
  }
}

/// A device like the fixture's H200 (sm_90, 132 SMs), with its own UUID, name and max SM clock.
db::DeviceId add_device(db::Database& db, const std::string& uuid, const std::string& name, int max_sm_clock_mhz,
                        const std::string& arch = "sm_90", int sm_count = 132) {
  db::DeviceRow d;
  d.uuid = uuid;
  d.name = name;
  d.arch = arch;
  d.cc_major = arch == "sm_90" ? 9 : 8;
  d.sm_count = sm_count;
  d.l2_bytes = 62914560;
  d.max_sm_clock_mhz = max_sm_clock_mhz;
  return db.upsert_device(d);
}

/// A peer row of a torch_peers.py run: method, config, n (of n³ f32 bias_gelu), its median (0:
/// the compile failed).
struct Peer {
  const char* method;
  const char* config;
  int n;
  double median_ms;
};

/// A run of scripts/torch_peers.py on `device`, as `coalesce-tune record` stores it; its id.
db::RunId add_peer_run(db::Database& db, db::DeviceId device, const std::string& key, const std::vector<Peer>& peers) {
  db::RunInfo info;
  info.device = device;
  info.tool = "torch_peers.py";
  info.resume_key = key;
  const db::RunId run = db.begin_run(info);
  for (const Peer& p : peers) {
    db::MeasurementRow row;
    row.run = run;
    row.device = device;
    row.problem = db.upsert_problem({p.n, p.n, p.n, Dtype::f32, Epilogue::bias_gelu});
    row.method = p.method;
    row.config = db.upsert_config({p.method == std::string("triton") ? "triton" : "torch", p.config, "{}", key});
    if (p.median_ms > 0) {
      const double ms = p.median_ms;
      row.timing = db::Timing{ms, ms * 0.99, ms * 1.01, ms * 0.995, ms * 1.005, 50};
      row.rel_err = 2e-7;
      row.max_abs_err = 4e-5;
      row.message = key + " " + p.method;
    } else {
      row.status = db::Status::compile_failed;
      row.message = "synthetic compile failure";
    }
    EXPECT_TRUE(db.insert_measurement(row));
  }
  db.end_run(run, db::RunStatus::completed);
  return run;
}

const char* kTorchEager = "torch_eager_f32_bias_gelu";
const char* kTorchCompile = "torch_compile_default_f32_bias_gelu";
const char* kTriton = "triton_f32_bm128_bn128_bk32_w8_s3_bias_gelu";

/// The fixture (one H200, device 1: the fused sweeps of 1024³ and 4096³, no peers) and, for
/// --same-model:
///   run 3, device 1: its own triton at 1024 (0.0951);
///   run 4, device 2, an H200 like it (same name, arch, SMs, 1980 MHz): torch_eager at 1024
///     (0.0760) and 4096 (2.950), triton at 1024 (0.0900, later than device 1's own) and 4096
///     (3.200), torch_compile failed at 4096;
///   run 5, device 3, an A100: every peer at both shapes (another model: never taken);
///   run 6, device 4, an H200 whose max SM clock is 1755 MHz: torch_compile at 1024 (never taken);
///   device 5, an H200 of unknown clock (0), with no run.
std::filesystem::path same_model_fixture(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  const auto path = dir / "same_model.db";
  std::filesystem::copy_file(fixture("fixture.db"), path, std::filesystem::copy_options::overwrite_existing);
  auto db = db::Database::open(path, db::Mode::read_write);
  EXPECT_EQ(add_peer_run(db, 1, "own", {{"triton", kTriton, 1024, 0.0951}}), 3);
  const db::DeviceId twin = add_device(db, "GPU-00000000-0000-4000-8000-samemodel002", "NVIDIA H200", 1980);
  EXPECT_EQ(twin, 2);
  EXPECT_EQ(add_peer_run(db, twin, "twin",
                         {{"torch_eager", kTorchEager, 1024, 0.0760},
                          {"triton", kTriton, 1024, 0.0900},
                          {"torch_eager", kTorchEager, 4096, 2.950},
                          {"torch_compile", kTorchCompile, 4096, 0},
                          {"triton", kTriton, 4096, 3.200}}),
            4);
  const db::DeviceId a100 = add_device(db, "GPU-00000000-0000-4000-8000-samemodel003", "NVIDIA A100", 1410, "sm_80", 108);
  std::vector<Peer> everything;
  for (int n : {1024, 4096})
    for (const auto& [method, config] : {std::pair{"torch_eager", kTorchEager}, {"torch_compile", kTorchCompile}, {"triton", kTriton}})
      everything.push_back({method, config, n, 0.5});
  EXPECT_EQ(add_peer_run(db, a100, "a100", everything), 5);
  const db::DeviceId slower_clock = add_device(db, "GPU-00000000-0000-4000-8000-samemodel004", "NVIDIA H200", 1755);
  EXPECT_EQ(add_peer_run(db, slower_clock, "1755", {{"torch_compile", kTorchCompile, 1024, 0.0650}}), 6);
  add_device(db, "GPU-00000000-0000-4000-8000-samemodel005", "NVIDIA H200", 0);
  return path;
}

// --same-model groups devices of one name, architecture, SM count and known max SM clock: the
// fixture's H200 and its twin; not the A100, nor an H200 of another clock or of an unknown one.
TEST(SameModel, DevicesOfOneNameArchSmsAndKnownClock) {
  const auto dir = std::filesystem::temp_directory_path() / ("report_test_same_" + std::to_string(::getpid()));
  const auto path = same_model_fixture(dir);
  {
    auto db = db::Database::open(path, db::Mode::read_only);
    EXPECT_EQ(same_model_devices(db, 1), (std::vector<std::int64_t>{1, 2}));
    EXPECT_EQ(same_model_devices(db, 2), (std::vector<std::int64_t>{1, 2}));
    EXPECT_EQ(same_model_devices(db, 3), std::vector<std::int64_t>{3});
    EXPECT_EQ(same_model_devices(db, 4), std::vector<std::int64_t>{4});
    EXPECT_EQ(same_model_devices(db, 5), std::vector<std::int64_t>{5});
  }
  std::filesystem::remove_all(dir);
}

// With PeerScope::same_model, a peer device 1 never measured on a problem comes from its twin,
// marked with the twin's label, and is compared with device 1's best; device 1's own peer stays
// (its triton at 1024, though the twin's is later); the A100's and the 1755-MHz H200's never come.
// Without it, only device 1's own.
TEST(SameModel, PeersOfAnotherDeviceOfTheModelAreTakenAndMarked) {
  const auto dir = std::filesystem::temp_directory_path() / ("report_test_same_" + std::to_string(::getpid()));
  const auto path = same_model_fixture(dir);
  {
    auto db = db::Database::open(path, db::Mode::read_only);
    auto peers = [&](int n, PeerScope scope) {
      Filters f;
      f.shapes = {{n, n, n}};
      std::map<std::string, ComparisonEntry> out;
      for (const auto& e : comparison_entries(db, f, scope))
        if (e.method == "torch_eager" || e.method == "torch_compile" || e.method == "triton")
          EXPECT_TRUE(out.emplace(e.method, e).second) << "two " << e.method << " rows at " << n;
      return out;
    };
    auto small = peers(1024, PeerScope::same_model);
    ASSERT_EQ(small.size(), 2u) << "no torch_compile: only the A100 and the 1755-MHz H200 ran it at 1024";
    EXPECT_TRUE(small["torch_eager"].cross_device());
    EXPECT_EQ(small["torch_eager"].measured_on_id, 2);
    EXPECT_EQ(small["torch_eager"].measured_on, "NVIDIA H200 (device 2)");
    EXPECT_EQ(small["torch_eager"].run, 4);
    EXPECT_EQ(small["torch_eager"].device_id, 1);  // in device 1's block, against its best
    EXPECT_DOUBLE_EQ(*small["torch_eager"].median_ms, 0.0760);
    EXPECT_DOUBLE_EQ(small["torch_eager"].best_median_ms, 0.0688);
    EXPECT_FALSE(small["triton"].cross_device());
    EXPECT_EQ(small["triton"].run, 3);
    EXPECT_DOUBLE_EQ(*small["triton"].median_ms, 0.0951);

    auto large = peers(4096, PeerScope::same_model);
    ASSERT_EQ(large.size(), 3u);
    for (const auto& [method, e] : large) {
      EXPECT_EQ(e.measured_on_id, 2) << method;
      EXPECT_EQ(e.run, 4) << method;
    }
    EXPECT_DOUBLE_EQ(*large["torch_eager"].median_ms, 2.950);
    EXPECT_EQ(large["torch_compile"].status, "compile_failed");
    EXPECT_DOUBLE_EQ(*large["triton"].median_ms, 3.200);

    auto own = peers(1024, PeerScope::same_device);
    ASSERT_EQ(own.size(), 1u);
    EXPECT_EQ(own["triton"].run, 3);
    EXPECT_TRUE(peers(4096, PeerScope::same_device).empty());
    for (const auto& e : comparison_entries(db, {})) EXPECT_FALSE(e.cross_device()) << e.method;
  }
  std::filesystem::remove_all(dir);
}

// In the report, each cross-device row's note starts with where it was measured, and machines get
// the device in measured_on; the summary is the same with or without --same-model (same run, same
// device only); the runs and devices tables list the twin's run and the twin even under
// --device 1, and nothing of the A100's.
TEST(SameModel, ReportMarksCrossDeviceRowsAndKeepsTheSummaryOnOneDevice) {
  const auto dir = std::filesystem::temp_directory_path() / ("report_test_same_" + std::to_string(::getpid()));
  const auto path = same_model_fixture(dir);
  {
    auto db = db::Database::open(path, db::Mode::read_only);
    Filters device1;
    device1.device = "1";
    ReportOptions same;
    same.peers = PeerScope::same_model;
    const Document with = build_report(db, device1, same);
    const Document without = build_report(db, device1, {});
    auto table = [](const Document& d, const std::string& name) -> const Table& {
      for (const Table& t : d.tables)
        if (t.name == name) return t;
      throw std::runtime_error("no table " + name);
    };
    EXPECT_EQ(table(with, "summary").rows, table(without, "summary").rows);
    EXPECT_EQ(table(with, "summary").columns.size(), table(without, "summary").columns.size());

    const Table& c = table(with, "comparison");
    int cross = 0;
    for (const auto& row : c.rows) {
      const std::string method = db::as_text(row[c.index("method")]);
      const std::string note = db::as_text(row[c.index("note")]);
      const bool marked = note.rfind("measured on NVIDIA H200 (device 2), same model: cross-device", 0) == 0;
      if (marked) {
        ++cross;
        EXPECT_EQ(db::as_text(row[c.index("measured_on")]), "NVIDIA H200 (device 2)");
        EXPECT_EQ(db::as_int(row[c.index("run")]), 4);
      } else {
        EXPECT_TRUE(db::is_null(row[c.index("measured_on")])) << method;
        EXPECT_EQ(note.find("cross-device"), std::string::npos) << method << ": " << note;
      }
    }
    EXPECT_EQ(cross, 4);  // torch_eager at 1024; torch_eager, torch_compile, triton at 4096
    EXPECT_NE(c.notes.back().find("--same-model"), std::string::npos);
    EXPECT_NE(table(with, "summary").notes.back().find("in the comparison only"), std::string::npos);
    const std::pair<std::string, std::string> scope{"peers", "same model (--same-model)"};
    EXPECT_NE(std::find(with.meta.begin(), with.meta.end(), scope), with.meta.end());
    EXPECT_EQ(std::find(without.meta.begin(), without.meta.end(), scope), without.meta.end());

    const Table& old = table(without, "comparison");
    EXPECT_EQ(old.columns.size() + 1, c.columns.size());
    for (const auto& row : old.rows)
      EXPECT_EQ(db::as_text(row[old.index("note")]).find("cross-device"), std::string::npos);

    auto ids = [](const Table& t, const char* key) {
      std::vector<std::int64_t> out;
      for (const auto& row : t.rows) out.push_back(db::as_int(row[t.index(key)]));
      return out;
    };
    EXPECT_EQ(ids(table(with, "runs"), "run"), (std::vector<std::int64_t>{1, 2, 3, 4}));
    EXPECT_EQ(ids(table(without, "runs"), "run"), (std::vector<std::int64_t>{1, 2, 3}));
    EXPECT_EQ(ids(table(with, "devices"), "device_id"), (std::vector<std::int64_t>{1, 2}));
    EXPECT_EQ(ids(table(without, "devices"), "device_id"), std::vector<std::int64_t>{1});
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

// --- Throughput against M: fixture_msweep.db (make_fixture's add_m_sweep) ---------------------

std::vector<int> ms_of(const MSweepGroup& g) {
  std::vector<int> out;
  for (const MSweepPoint& p : g.points) out.push_back(p.m);
  return out;
}

/// The m_sweep row of `t` at device id 1, `dtype` and `m`, as key -> value.
std::map<std::string, Value> sweep_row(const Table& t, const char* dtype, int m) {
  for (const auto& row : t.rows)
    if (db::as_text(row[t.index("dtype")]) == dtype && db::as_int(row[t.index("m")]) == m &&
        db::as_text(row[t.index("device")]) == "NVIDIA H200 (device 1)") {
      std::map<std::string, Value> out;
      for (std::size_t c = 0; c < t.columns.size(); ++c) out[t.columns[c].key] = row[c];
      return out;
    }
  ADD_FAILURE() << "no m_sweep row " << dtype << " M = " << m;
  return {};
}

// A group is one device, dtype, epilogue, N and K with an ok fused row at three or more M, in
// ascending M: device 1's f32 (the skinny 1 and 8 with the base's 4096³) and bf16 (1, 8, 64, 512);
// device 2 measured M = 8 only. Each point is the fastest family there, as in the summary (mma at
// 1 and 8, wgmma at 64 and 512). Filters that leave fewer than three M leave no group.
TEST(MSweep, AGroupIsOneDeviceDtypeEpilogueNAndKAtThreeOrMoreM) {
  auto db = db::Database::open(fixture("fixture_msweep.db"), db::Mode::read_only);
  const auto groups = m_sweep_groups(db, comparison_entries(db, {}));
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].device_id, 1);
  EXPECT_EQ(groups[0].dtype, "f32");
  EXPECT_EQ(ms_of(groups[0]), (std::vector<int>{1, 8, 4096}));
  EXPECT_EQ(groups[1].dtype, "bf16");
  EXPECT_EQ(groups[1].epilogue, "bias_gelu");
  EXPECT_EQ(groups[1].n, 4096);
  EXPECT_EQ(groups[1].k, 4096);
  EXPECT_EQ(ms_of(groups[1]), (std::vector<int>{1, 8, 64, 512}));
  std::vector<std::string> families;
  for (const MSweepPoint& p : groups[1].points) families.push_back(p.family);
  EXPECT_EQ(families, (std::vector<std::string>{"mma", "mma", "wgmma", "wgmma"}));
  EXPECT_DOUBLE_EQ(groups[1].b_bytes(), 4096.0 * 4096 * 2);
  EXPECT_DOUBLE_EQ(groups[0].b_bytes(), 4096.0 * 4096 * 4);

  Filters two;
  two.shapes = {{1, 4096, 4096}, {8, 4096, 4096}};
  EXPECT_TRUE(m_sweep_groups(db, comparison_entries(db, two)).empty());
  Filters second;
  second.device = "2";
  EXPECT_TRUE(m_sweep_groups(db, comparison_entries(db, second)).empty());
  Filters mma;
  mma.family = "mma";  // the fastest of one family: mma at every M
  const auto only_mma = m_sweep_groups(db, comparison_entries(db, mma));
  ASSERT_EQ(only_mma.size(), 1u);
  EXPECT_EQ(only_mma[0].points[2].family, "mma");
  EXPECT_DOUBLE_EQ(only_mma[0].points[2].fused_ms, 0.0300);
  // The base fixture has no N and K at several M: the report has no such table.
  auto base = db::Database::open(fixture("fixture.db"), db::Mode::read_only);
  for (const Table& t : build_report(base, {}, {}).tables) EXPECT_NE(t.name, "m_sweep");
}

// Every ratio of a row compares numbers of the fused row's run: fused % of cuBLAS GEMM's speed =
// cuBLAS ÷ fused × 100, fused vs eager = eager ÷ fused; the floor is that run's read_b, with
// fused ÷ floor, cuBLAS ÷ floor and B's bytes ÷ floor. At M = 64 the run measured no floor and the
// floor of run 5 (same device, same problem) is not borrowed; at 4096³ (run 1) there is none. The
// peers come from their own runs (torch_compile, run 4); a peer with only a failure has no column.
TEST(MSweep, RatiosAndTheFloorComeFromTheFusedRowsRun) {
  auto db = db::Database::open(fixture("fixture_msweep.db"), db::Mode::read_only);
  const Table t = m_sweep_table(m_sweep_groups(db, comparison_entries(db, {})));
  ASSERT_EQ(t.name, "m_sweep");
  ASSERT_EQ(t.rows.size(), 7u);
  auto one = sweep_row(t, "bf16", 1);
  EXPECT_EQ(db::as_int(one["run"]), 3);
  EXPECT_EQ(db::as_text(one["family"]), "mma");
  EXPECT_EQ(db::as_text(one["config"]), "mma_bf16_bm64_bn64_bk32_wm32_wn32_s3_sw1_g8_bias_gelu");
  EXPECT_EQ(db::as_text(one["shape"]), "M×4096×4096");
  EXPECT_NEAR(db::as_double(one["fused_us"]), 11.0, 1e-9);
  EXPECT_NEAR(db::as_double(one["fused_tflops"]), 2.0 * 4096 * 4096 / 0.0110e-3 / 1e12, 1e-9);
  EXPECT_NEAR(db::as_double(one["cublas_gemm_us"]), 17.9, 1e-9);
  EXPECT_NEAR(db::as_double(one["coalesce_unfused_us"]), 13.1, 1e-9);
  EXPECT_NEAR(db::as_double(one["pct_cublas"]), 0.0179 / 0.0110 * 100, 1e-9);
  EXPECT_NEAR(db::as_double(one["vs_eager"]), 0.0235 / 0.0110, 1e-12);
  EXPECT_NEAR(db::as_double(one["floor_us"]), 7.8, 1e-9);
  EXPECT_NEAR(db::as_double(one["vs_floor"]), 0.0110 / 0.0078, 1e-12);
  EXPECT_LE(db::as_double(one["vs_floor"]), 1.5);  // the synthetic M = 1 meets issue 12's bound
  EXPECT_NEAR(db::as_double(one["cublas_vs_floor"]), 0.0179 / 0.0078, 1e-12);
  EXPECT_NEAR(db::as_double(one["b_read_tb_per_s"]), 4096.0 * 4096 * 2 / 0.0078e-3 / 1e12, 1e-9);
  EXPECT_NEAR(db::as_double(one["torch_compile_us"]), 86.4, 1e-9);
  auto eight = sweep_row(t, "bf16", 8);
  EXPECT_NEAR(db::as_double(eight["vs_floor"]), 0.0150 / 0.0078, 1e-12);
  EXPECT_TRUE(db::is_null(eight["torch_compile_us"]));
  auto sixty_four = sweep_row(t, "bf16", 64);
  EXPECT_EQ(db::as_text(sixty_four["family"]), "wgmma");
  for (const char* key : {"floor_us", "vs_floor", "cublas_vs_floor", "b_read_tb_per_s", "coalesce_unfused_us"})
    EXPECT_TRUE(db::is_null(sixty_four[key])) << key;
  auto five_twelve = sweep_row(t, "bf16", 512);
  EXPECT_TRUE(db::is_null(five_twelve["cublaslt_fused_us"]));  // launch_failed in run 3
  EXPECT_NEAR(db::as_double(five_twelve["vs_floor"]), 0.0321 / 0.0079, 1e-12);
  EXPECT_NEAR(db::as_double(five_twelve["torch_compile_us"]), 25.9, 1e-9);
  auto cube = sweep_row(t, "f32", 4096);
  EXPECT_EQ(db::as_int(cube["run"]), 1);
  EXPECT_NEAR(db::as_double(cube["eager_us"]), 2934.0, 1e-9);
  EXPECT_TRUE(db::is_null(cube["floor_us"]));
  EXPECT_NEAR(db::as_double(sweep_row(t, "f32", 1)["b_read_tb_per_s"]), 4096.0 * 4096 * 4 / 0.0155e-3 / 1e12, 1e-9);
  std::vector<std::string> keys;
  for (const Column& c : t.columns) keys.push_back(c.key);
  for (const char* absent : {"triton_us", "torch_eager_us", "read_b_us", "coalesce_us"})
    EXPECT_EQ(std::find(keys.begin(), keys.end(), absent), keys.end()) << absent;
  EXPECT_TRUE(t.hide_empty_columns);
}

// The floor is a bound, never a peer: no comparison block, summary path, why row or workload sum
// holds it.
TEST(MSweep, TheFloorIsInNoOtherTable) {
  auto db = db::Database::open(fixture("fixture_msweep.db"), db::Mode::read_only);
  for (const ComparisonEntry& e : comparison_entries(db, {}, PeerScope::same_model)) EXPECT_NE(e.method, "read_b");
  ReportOptions options;
  options.workloads = {fixture_workload()};
  const Document d = build_report(db, {}, options);
  std::vector<std::string> names;
  for (const Table& t : d.tables) {
    names.push_back(t.name);
    if (t.name == "m_sweep") continue;
    for (const Column& c : t.columns) EXPECT_EQ(c.key.find("read_b"), std::string::npos) << t.name << " " << c.key;
    for (const auto& row : t.rows)
      for (const Value& v : row)
        if (std::holds_alternative<std::string>(v)) EXPECT_NE(db::as_text(v), "read_b") << t.name;
  }
  // After the summary and the workloads, before the detail.
  ASSERT_GE(names.size(), 4u);
  EXPECT_EQ(names[0], "summary");
  EXPECT_EQ(names[3], "m_sweep");
  EXPECT_EQ(names[4], "comparison");
}

// --same-model brings the second H200's torch_eager into device 1's comparison at M = 1, marked;
// the group stays one device's: no torch_eager there, and a note says where it went.
TEST(MSweep, PeersOfAnotherDeviceStayOutOfAGroup) {
  auto db = db::Database::open(fixture("fixture_msweep.db"), db::Mode::read_only);
  const auto entries = comparison_entries(db, {}, PeerScope::same_model);
  EXPECT_TRUE(std::any_of(entries.begin(), entries.end(),
                          [](const ComparisonEntry& e) { return e.method == "torch_eager" && e.cross_device(); }));
  const auto groups = m_sweep_groups(db, entries);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_TRUE(groups[1].cross_device_peers_left_out);
  EXPECT_FALSE(groups[0].cross_device_peers_left_out);
  EXPECT_EQ(groups[1].points[0].others.count("torch_eager"), 0u);
  EXPECT_EQ(groups[1].points[0].others.at("torch_compile").run, 4);
  const Table t = m_sweep_table(groups);
  for (const Column& c : t.columns) EXPECT_NE(c.key, "torch_eager_us");
  EXPECT_NE(t.notes.back().find("A group is one device"), std::string::npos);
  EXPECT_EQ(m_sweep_table(m_sweep_groups(db, comparison_entries(db, {}))).notes.size(), 2u);
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
