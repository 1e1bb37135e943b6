// Opening a results database: a fresh file is initialized, a re-open changes nothing, and every
// file that is not a current Coalesce database is refused with one sentence and left untouched.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "harness/timing_settings.hpp"
#include "schema/db.hpp"
#include "test_util.hpp"

namespace coalesce::db {
namespace {

using testing::contents;
using testing::raw_sql;
using testing::TempDir;
using testing::write_file;

std::int64_t raw_scalar(const std::filesystem::path& p, const char* sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(p.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql, -1, &s, nullptr), SQLITE_OK);
  EXPECT_EQ(sqlite3_step(s), SQLITE_ROW);
  std::int64_t v = sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  sqlite3_close(db);
  return v;
}

template <class E>
std::string error_of(const std::filesystem::path& p, Mode mode) {
  try {
    Database::open(p, mode);
  } catch (const E& e) {
    return e.what();
  }
  ADD_FAILURE() << "opening " << p << " did not throw the expected error";
  return "";
}

TEST(Migrations, BuiltinAreNumberedFromOne) {
  auto all = builtin_migrations();
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(all[0].version, 1);
  EXPECT_EQ(all[0].name, "0001_init.sql");
  EXPECT_NE(all[0].sql.find("CREATE TABLE measurements"), std::string_view::npos);
  ASSERT_GE(all.size(), 2u);
  EXPECT_EQ(all[1].version, 2);
  EXPECT_EQ(all[1].name, "0002_build_attempts.sql");
  EXPECT_EQ(latest_schema_version(), static_cast<int>(all.size()));
}

// The row counts of every table: what an upgrade in place must keep.
std::vector<std::int64_t> row_counts(const std::filesystem::path& p) {
  std::vector<std::int64_t> counts;
  for (const char* table : {"devices", "runs", "problems", "configs", "builds", "measurements"})
    counts.push_back(raw_scalar(p, (std::string("SELECT count(*) FROM ") + table).c_str()));
  return counts;
}

// A database written at version 1 (before builds.attempts) upgrades in place: every build
// keeps its figures and reads as one attempt, and new builds may record two.
TEST(Migrations, VersionOneBuildsUpgradeToOneAttempt) {
  TempDir dir;
  auto path = dir / "v1.db";
  const std::vector<Migration> v1(builtin_migrations().begin(), builtin_migrations().begin() + 1);
  { EXPECT_EQ(Database::open(path, Mode::read_write, v1).schema_version(), 1); }
  raw_sql(path,
          "INSERT INTO configs (family, name, params_json, source_hash) VALUES ('simt', 'simt_f32_x', '{}', 'h');"
          "INSERT INTO builds (config_id, arch, toolkit, status, registers, spill_stores_bytes, spill_loads_bytes,"
          " stack_bytes, smem_bytes, log) VALUES (1, 'sm_90', '13.0', 'ok', 168, 0, 0, 0, 50688, '');"
          "INSERT INTO builds (config_id, arch, toolkit, status, log) VALUES (1, 'sm_90', '12.8', 'failed', 'error: x');");
  const auto before = row_counts(path);
  {
    auto db = Database::open(path, Mode::read_write);
    EXPECT_EQ(db.schema_version(), latest_schema_version());
    auto rows = db.query("SELECT registers, smem_bytes, attempts FROM builds WHERE status = 'ok'").rows;
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(as_int(rows[0][0]), 168);
    EXPECT_EQ(as_int(rows[0][1]), 50688);
    EXPECT_EQ(as_int(rows[0][2]), 1);
    EXPECT_EQ(as_int(db.query("SELECT count(*) FROM builds WHERE attempts = 1").rows[0][0]), 2);
    BuildRow retried;
    retried.config = 1;
    retried.arch = "sm_90";
    retried.toolkit = "13.1";
    retried.ok = true;
    retried.registers = 160;
    retried.smem_bytes = 50688;
    retried.attempts = 2;
    db.upsert_build(retried);
    EXPECT_EQ(as_int(db.query("SELECT attempts FROM builds WHERE toolkit = '13.1'").rows[0][0]), 2);
  }
  auto after = row_counts(path);
  after[4] -= 1;  // the build stored after the upgrade
  EXPECT_EQ(after, before);
  EXPECT_EQ(raw_scalar(path, "PRAGMA user_version"), latest_schema_version());
}

// The committed results database (results/coalesce.db, written at schema version 1 on the
// H200) upgrades in place on a copy: every row of every table is kept, every build written
// before the retry existed reads as one attempt, and the views answer as before.
TEST(Migrations, TheCommittedResultsDatabaseUpgradesKeepingEveryRow) {
  TempDir dir;
  auto path = dir / "coalesce.db";
  std::filesystem::copy_file(COALESCE_RESULTS_DB, path);
  const auto from = raw_scalar(path, "PRAGMA user_version");
  ASSERT_LE(from, latest_schema_version());
  const auto before = row_counts(path);
  const auto comparison = raw_scalar(path, "SELECT count(*) FROM v_comparison");
  const auto ok_builds = raw_scalar(path, "SELECT count(*) FROM builds WHERE status = 'ok' AND registers > 0");
  ASSERT_GT(before[4], 0);
  { EXPECT_EQ(Database::open(path, Mode::read_write).schema_version(), latest_schema_version()); }
  EXPECT_EQ(raw_scalar(path, "PRAGMA user_version"), latest_schema_version());
  EXPECT_EQ(row_counts(path), before);
  if (from < 2) EXPECT_EQ(raw_scalar(path, "SELECT count(*) FROM builds WHERE attempts = 1"), before[4]);
  EXPECT_EQ(raw_scalar(path, "SELECT count(*) FROM builds WHERE status = 'ok' AND registers > 0"), ok_builds);
  EXPECT_EQ(raw_scalar(path, "SELECT count(*) FROM v_comparison"), comparison);
  { EXPECT_EQ(Database::open(path, Mode::read_only).schema_version(), latest_schema_version()); }
  EXPECT_EQ(dir.listing(), "coalesce.db");
}

// A database written at version 3 (before profiles) upgrades in place: every row of every table
// is kept, the comparison reads the same, and the new table starts empty and takes profiles.
TEST(Migrations, VersionThreeUpgradesToProfilesKeepingEveryRow) {
  TempDir dir;
  auto path = dir / "v3.db";
  const std::vector<Migration> v3(builtin_migrations().begin(), builtin_migrations().begin() + 3);
  { EXPECT_EQ(Database::open(path, Mode::read_write, v3).schema_version(), 3); }
  raw_sql(path,
          "INSERT INTO devices (uuid, name, arch, cc_major, cc_minor, sm_count, l2_bytes, global_mem_bytes,"
          " max_sm_clock_mhz, fp32_lanes_per_sm, smem_per_block_optin, smem_per_sm, max_threads_per_block,"
          " max_threads_per_sm, regs_per_sm, max_regs_per_thread, max_blocks_per_sm)"
          " VALUES ('GPU-v3', 'NVIDIA H200', 'sm_90', 9, 0, 132, 62914560, 1, 1980, 128, 232448, 233472, 1024,"
          " 2048, 65536, 255, 32);"
          "INSERT INTO runs (device_id, resume_key, tool, tool_version, git_revision, command_line, host)"
          " VALUES (1, 'k', 'coalesce-tune', '0.1.0', 'abc', 'sweep', 'h');"
          "INSERT INTO problems (m, n, k, dtype, epilogue) VALUES (4096, 4096, 4096, 'bf16', 'bias_gelu');"
          "INSERT INTO configs (family, name, params_json, source_hash) VALUES ('wgmma', 'wgmma_x', '{}', 'h');"
          "INSERT INTO builds (config_id, arch, toolkit, status, registers, smem_bytes, log)"
          " VALUES (1, 'sm_90a', '13.0', 'ok', 168, 200000, '');"
          "INSERT INTO measurements (run_id, device_id, problem_id, method, config_id, build_id, status, median_ms,"
          " min_ms, max_ms, p10_ms, p90_ms, rel_spread, samples, tflops, rel_err, max_abs_err)"
          " VALUES (1, 1, 1, 'coalesce', 1, 1, 'ok', 0.23, 0.22, 0.25, 0.225, 0.24, 0.065, 50, 597.6, 1e-3, 1e-2),"
          " (1, 1, 1, 'cublas_gemm', NULL, NULL, 'ok', 0.19, 0.18, 0.2, 0.185, 0.195, 0.05, 50, 723.4, 1e-3, 1e-2);");
  const auto before = row_counts(path);
  const auto peaks = raw_scalar(path, "SELECT count(*) FROM math_peaks");
  const auto comparison = raw_scalar(path, "SELECT count(*) FROM v_comparison WHERE cublas_gemm_ms = 0.19");
  ASSERT_EQ(comparison, 1);
  {
    auto db = Database::open(path, Mode::read_write);
    EXPECT_EQ(db.schema_version(), latest_schema_version());
    EXPECT_EQ(as_int(db.query("SELECT count(*) FROM profiles").rows[0][0]), 0);
    ProfileRow profile;
    profile.device = 1;
    profile.problem = 1;
    profile.config = 1;
    profile.kernel = "wgmma_x";
    profile.duration_us = 209.6;
    EXPECT_TRUE(db.insert_profile(profile));
  }
  EXPECT_EQ(row_counts(path), before);
  EXPECT_EQ(raw_scalar(path, "SELECT count(*) FROM math_peaks"), peaks);
  EXPECT_EQ(raw_scalar(path, "SELECT count(*) FROM v_comparison WHERE cublas_gemm_ms = 0.19"), comparison);
  EXPECT_EQ(raw_scalar(path, "PRAGMA user_version"), latest_schema_version());
  EXPECT_EQ(dir.listing(), "v3.db");
}

// Every column of every measurement as text, in id order: what rebuilding the table must keep.
std::string measurement_dump(const std::filesystem::path& p) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(p.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, "SELECT * FROM measurements ORDER BY id", -1, &s, nullptr), SQLITE_OK);
  std::string out;
  while (sqlite3_step(s) == SQLITE_ROW) {
    for (int c = 0; c < sqlite3_column_count(s); ++c) {
      const unsigned char* text = sqlite3_column_text(s, c);
      out += std::string(sqlite3_column_name(s, c)) + "=" + (text ? reinterpret_cast<const char*>(text) : "NULL") + ";";
    }
    out += "\n";
  }
  sqlite3_finalize(s);
  sqlite3_close(db);
  return out;
}

// A database written at version 4 upgrades to the floors (0006 rebuilds measurements for its new
// CHECK): every measurement keeps every column, in order, with its id; the indexes and the trigger
// still hold; and a floor row without error figures is then taken.
TEST(Migrations, VersionFourUpgradesToFloorsKeepingEveryMeasurement) {
  TempDir dir;
  auto path = dir / "v4.db";
  const std::vector<Migration> v4(builtin_migrations().begin(), builtin_migrations().begin() + 4);
  { EXPECT_EQ(Database::open(path, Mode::read_write, v4).schema_version(), 4); }
  raw_sql(path,
          "INSERT INTO devices (uuid, name, arch, cc_major, cc_minor, sm_count, l2_bytes, global_mem_bytes,"
          " max_sm_clock_mhz, fp32_lanes_per_sm, smem_per_block_optin, smem_per_sm, max_threads_per_block,"
          " max_threads_per_sm, regs_per_sm, max_regs_per_thread, max_blocks_per_sm)"
          " VALUES ('GPU-v4', 'NVIDIA H200', 'sm_90', 9, 0, 132, 62914560, 1, 1980, 128, 232448, 233472, 1024,"
          " 2048, 65536, 255, 32), ('GPU-v4b', 'NVIDIA H200', 'sm_90', 9, 0, 132, 62914560, 1, 1980, 128, 232448,"
          " 233472, 1024, 2048, 65536, 255, 32);"
          "INSERT INTO runs (device_id, resume_key, tool, tool_version, git_revision, command_line, host)"
          " VALUES (1, 'k', 'coalesce-tune', '0.1.0', 'abc', 'sweep', 'h');"
          "INSERT INTO problems (m, n, k, dtype, epilogue) VALUES (1, 4096, 4096, 'bf16', 'bias_gelu');"
          "INSERT INTO configs (family, name, params_json, source_hash) VALUES ('wgmma', 'wgmma_x', '{}', 'h');"
          "INSERT INTO builds (config_id, arch, toolkit, status, registers, smem_bytes, log)"
          " VALUES (1, 'sm_90a', '13.0', 'ok', 168, 200000, '');"
          "INSERT INTO measurements (id, run_id, device_id, problem_id, method, config_id, build_id, status,"
          " median_ms, min_ms, max_ms, p10_ms, p90_ms, rel_spread, samples, tflops, rel_err, max_abs_err,"
          " max_scaled_err, sm_clock_before_mhz, sm_clock_after_mhz, grid_blocks, message)"
          " VALUES (3, 1, 1, 1, 'coalesce', 1, 1, 'ok', 0.0252, 0.0250, 0.0260, 0.0251, 0.0254, 0.0119, 40,"
          " 1.33, 1e-3, 1e-2, 0.004, 1980, 1965, 64, 'stop: converged'),"
          " (7, 1, 1, 1, 'cublas_gemm', NULL, NULL, 'ok', 0.0179, 0.0170, 0.0190, 0.0175, 0.0181, 0.0335, 50,"
          " 1.87, 1e-3, 1e-2, NULL, 1980, 1980, NULL, ''),"
          " (9, 1, 1, 1, 'eager', NULL, NULL, 'wrong_result', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,"
          " 0.3, 12.5, 0.9, NULL, NULL, NULL, 'wrong (synthetic)');");
  const std::string before = measurement_dump(path);
  ASSERT_NE(before.find("id=9;"), std::string::npos);
  {
    auto db = Database::open(path, Mode::read_write);
    EXPECT_EQ(db.schema_version(), latest_schema_version());
    EXPECT_EQ(as_int(db.query("SELECT count(*) FROM sqlite_schema WHERE name IN ('measurements_config_once', "
                              "'measurements_baseline_per_run', 'measurements_by_run', 'measurements_device_of_run')")
                         .rows[0][0]),
              4);
    MeasurementRow floor;
    floor.run = 1;
    floor.device = 1;
    floor.problem = 1;
    floor.method = "read_b";
    floor.timing = Timing{0.0079, 0.0077, 0.0082, 0.0078, 0.0080, 60};
    EXPECT_TRUE(db.insert_measurement(floor));
    EXPECT_FALSE(db.insert_measurement(floor)) << "a baseline is measured once per run";
    floor.device = 2;  // not the device of run 1
    EXPECT_THROW(db.insert_measurement(floor), Error);
  }
  std::string after = measurement_dump(path);
  // 0005's column, NULL on every row written before it, 0007's, 0 on the rows of a run that
  // was not in the steady state, and 0008's, the protocol of such a run, are the differences.
  for (std::size_t at; (at = after.find("workspace_bytes=NULL;")) != std::string::npos;) after.erase(at, 21);
  for (std::size_t at; (at = after.find("steady_state=0;")) != std::string::npos;) after.erase(at, 15);
  for (std::size_t at; (at = after.find("protocol=flush_b2b;")) != std::string::npos;) after.erase(at, 19);
  EXPECT_EQ(after.substr(0, before.size()), before);
  EXPECT_NE(after.find("method=read_b;"), std::string::npos);
  EXPECT_EQ(raw_scalar(path, "SELECT count(*) FROM v_comparison WHERE cublas_gemm_ms = 0.0179"), 1);
  EXPECT_EQ(raw_scalar(path, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
  EXPECT_EQ(dir.listing(), "v4.db");
}

// A database written at version 6 upgrades to regimes (0007): each row takes its run's
// (a run asked for 1,000 samples or more back to back is in the steady state), the ranking takes
// the steady-state rows first, and a row that claims another regime than its run's is refused.
// Schema 8 replaces the ranking by one within each timing protocol (the next test).
TEST(Migrations, VersionSixUpgradesToRegimesRankingTheSteadyStateFirst) {
  TempDir dir;
  auto path = dir / "v6.db";
  const std::vector<Migration> v6(builtin_migrations().begin(), builtin_migrations().begin() + 6);
  const std::vector<Migration> v7(builtin_migrations().begin(), builtin_migrations().begin() + 7);
  { EXPECT_EQ(Database::open(path, Mode::read_write, v6).schema_version(), 6); }
  raw_sql(path,
          "INSERT INTO devices (uuid, name, arch, cc_major, cc_minor, sm_count, l2_bytes, global_mem_bytes,"
          " max_sm_clock_mhz, fp32_lanes_per_sm, smem_per_block_optin, smem_per_sm, max_threads_per_block,"
          " max_threads_per_sm, regs_per_sm, max_regs_per_thread, max_blocks_per_sm)"
          " VALUES ('GPU-v6', 'NVIDIA H200', 'sm_90', 9, 0, 132, 62914560, 1, 1980, 128, 232448, 233472, 1024,"
          " 2048, 65536, 255, 32);"
          "INSERT INTO runs (device_id, resume_key, tool, tool_version, git_revision, command_line, host, harness_json)"
          " VALUES (1, 'k1', 'coalesce-tune', '0.1.0', 'abc', 'sweep', 'h', '{\"min_samples\":20,\"max_samples\":1000}'),"
          " (1, 'k2', 'coalesce-tune', '0.1.0', 'abc', 'sweep', 'h', '{\"min_samples\":3000,\"max_samples\":3000}'),"
          " (1, 'k3', 'coalesce-tune', '0.1.0', 'abc', 'sweep', 'h',"
          "  '{\"min_samples\":3000,\"max_samples\":3000,\"sample_gap_ms\":5}');"
          "INSERT INTO problems (m, n, k, dtype, epilogue) VALUES (4096, 4096, 4096, 'bf16', 'bias_gelu');"
          "INSERT INTO configs (family, name, params_json, source_hash) VALUES ('wgmma', 'wgmma_a', '{}', 'h'),"
          " ('wgmma', 'wgmma_b', '{}', 'h');"
          "INSERT INTO measurements (run_id, device_id, problem_id, method, config_id, status, median_ms, min_ms,"
          " max_ms, p10_ms, p90_ms, rel_spread, samples, tflops, rel_err, max_abs_err)"
          " VALUES (1, 1, 1, 'coalesce', 1, 'ok', 0.200, 0.200, 0.200, 0.200, 0.200, 0, 40, 687, 1e-3, 1e-2),"
          " (2, 1, 1, 'coalesce', 2, 'ok', 0.210, 0.210, 0.210, 0.210, 0.210, 0, 3000, 654, 1e-3, 1e-2),"
          " (3, 1, 1, 'cublas_gemm', NULL, 'ok', 0.180, 0.180, 0.180, 0.180, 0.180, 0, 3000, 763, 1e-3, 1e-2);");
  { EXPECT_EQ(Database::open(path, Mode::read_write, v7).schema_version(), 7); }
  // A rested run (sample_gap_ms) is not in the steady state however many samples it took.
  EXPECT_EQ(raw_scalar(path, "SELECT group_concat(steady_state, '') + 0 FROM (SELECT steady_state FROM v_run_regimes "
                             "ORDER BY run_id)"), 10);
  EXPECT_EQ(raw_scalar(path, "SELECT group_concat(steady_state, '') + 0 FROM (SELECT steady_state FROM measurements "
                             "ORDER BY id)"), 10);
  // Config 2 is slower (0.210 ms against 0.200) and ranked first: its row is in the steady state.
  EXPECT_EQ(raw_scalar(path, "SELECT config_id FROM v_best"), 2);
  EXPECT_EQ(raw_scalar(path, "SELECT rank FROM v_ranked WHERE config_name = 'wgmma_a'"), 2);
  // A row that claims the steady state in a run that is not, or the reverse, is refused.
  auto refused = [&](const std::string& sql) {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    char* err = nullptr;
    const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
    std::string msg = err ? err : "";
    sqlite3_free(err);
    sqlite3_close(db);
    return rc == SQLITE_CONSTRAINT ? msg : "not refused (" + std::to_string(rc) + ")";
  };
  const std::string why = "a measurement's steady_state must be its run's (v_run_regimes)";
  EXPECT_EQ(refused("INSERT INTO measurements (run_id, device_id, problem_id, method, config_id, status, rel_err,"
                    " max_abs_err, steady_state) VALUES (1, 1, 1, 'coalesce', 2, 'wrong_result', 1, 1, 1)"),
            why);
  EXPECT_EQ(refused("UPDATE measurements SET steady_state = 0 WHERE run_id = 2"), why);
  EXPECT_EQ(raw_scalar(path, "SELECT count(*) FROM measurements"), 3);
}

// A database at version 7 with a run of every regime (tests/fixtures/schema7-regimes.sql)
// upgrades to timing protocols (0008): each row takes its run's protocol, the C++ rule agrees
// with the SQL one on every run, the spun peer runs schema 7 filed in the steady state are apart
// from the back-to-back ones, a config is measured once per protocol, every ranking view keeps
// protocols apart, and a row that claims another protocol than its run's is refused.
TEST(Migrations, VersionSevenUpgradesToProtocolsAndNoViewMixesTwo) {
  TempDir dir;
  auto path = dir / "v7.db";
  const std::vector<Migration> v7(builtin_migrations().begin(), builtin_migrations().begin() + 7);
  { EXPECT_EQ(Database::open(path, Mode::read_write, v7).schema_version(), 7); }
  std::ifstream fixture(COALESCE_SCHEMA7_FIXTURE);
  ASSERT_TRUE(fixture) << COALESCE_SCHEMA7_FIXTURE;
  std::ostringstream sql;
  sql << fixture.rdbuf();
  raw_sql(path, sql.str());
  const std::vector<std::int64_t> counts = row_counts(path);
  auto text = [](const Database& db, const std::string& q) { return as_text(db.query(q).rows.at(0).at(0)); };
  {
    auto db = Database::open(path, Mode::read_write);
    EXPECT_EQ(db.schema_version(), latest_schema_version());
    EXPECT_EQ(text(db, "SELECT group_concat(protocol, ',') FROM (SELECT protocol FROM v_run_protocols ORDER BY run_id)"),
              "flush_b2b,steady_b2b,flush_rested,flush_spin,steady_spin,flush_b2b");
    EXPECT_EQ(text(db, "SELECT group_concat(protocol, ',') FROM (SELECT protocol FROM measurements ORDER BY id)"),
              "flush_b2b,flush_b2b,steady_b2b,steady_b2b,flush_rested,flush_spin,steady_spin,flush_b2b");
    // steady_state is read from the protocol and so unchanged: run 5 samples in the steady state,
    // with a spin, and is filed apart from run 2 by its protocol.
    EXPECT_EQ(text(db, "SELECT group_concat(steady_state, '') FROM (SELECT steady_state FROM measurements ORDER BY id)"),
              "00110010");
    // The rule in C++ (harness/timing_settings.hpp) is the rule in SQL, run by run.
    for (const auto& row : db.query("SELECT r.harness_json, g.protocol FROM runs r JOIN v_run_protocols g "
                                    "ON g.run_id = r.id ORDER BY r.id").rows) {
      const TimingSettings t = nlohmann::json::parse(as_text(row[0])).get<TimingSettings>();
      EXPECT_EQ(protocol_of(t), as_text(row[1])) << as_text(row[0]);
    }
    TimingSettings t;
    EXPECT_EQ(protocol_of(t), "flush_b2b");
    t.spin_cycles = kDefaultSpinCycles;
    EXPECT_EQ(protocol_of(t), "flush_spin");
    EXPECT_FALSE(steady_state(t));
    t.min_samples = t.max_samples = 3000;
    EXPECT_EQ(protocol_of(t), "steady_spin");
    EXPECT_TRUE(steady_state(t));
    t.sample_gap_ms = 5;
    EXPECT_EQ(protocol_of(t), "flush_rested");
    EXPECT_FALSE(steady_state(t));
    t.sample_gap_ms = 0, t.spin_cycles = 0;
    EXPECT_EQ(protocol_of(t), "steady_b2b");
    // A spin is stored only when there is one, so the settings of earlier runs read back unchanged.
    EXPECT_FALSE(nlohmann::json(TimingSettings{}).contains("spin_cycles"));
    EXPECT_EQ(nlohmann::json(t).dump(), nlohmann::json(nlohmann::json(t).get<TimingSettings>()).dump());

    // One best per device × problem × family × protocol, each beside its own run's baselines.
    EXPECT_EQ(text(db, "SELECT group_concat(protocol || ':' || config_name || ':' || cublas_gemm_ms, ',') FROM "
                       "(SELECT * FROM v_comparison ORDER BY protocol_preference)"),
              "steady_b2b:wgmma_b:0.185,flush_b2b:wgmma_a:0.19");
    EXPECT_EQ(text(db, "SELECT count(*) FROM v_ranked WHERE rank <> 1"), "0");
    // Without a protocol the most preferred one measured answers; with one, that one.
    const Problem p{4096, 4096, 4096, Dtype::bf16, Epilogue::bias_gelu};
    ASSERT_TRUE(db.best_config(1, p, "wgmma"));
    EXPECT_EQ(db.best_config(1, p, "wgmma")->name, "wgmma_b");
    EXPECT_EQ(db.best_config(1, p, "wgmma")->protocol, "steady_b2b");
    EXPECT_EQ(db.best_config(1, p, "wgmma", "flush_b2b")->name, "wgmma_a");
    EXPECT_FALSE(db.best_config(1, p, "wgmma", "flush_spin"));

    // A config is measured once per protocol: torch_eager is stored in flush_spin and steady_spin,
    // not in flush_b2b.
    EXPECT_TRUE(db.measured(1, 1, 3, "torch_eager", "flush_spin"));
    EXPECT_TRUE(db.measured(1, 1, 3, "torch_eager", "steady_spin"));
    EXPECT_FALSE(db.measured(1, 1, 3, "torch_eager", "flush_b2b"));
    EXPECT_TRUE(db.measured(1, 1, 3, "torch_eager"));
    MeasurementRow again;
    again.device = 1;
    again.problem = 1;
    again.method = "torch_eager";
    again.config = 3;
    again.status = Status::ok;
    again.rel_err = 1e-3;
    again.max_abs_err = 1e-2;
    again.timing = Timing{0.245, 0.24, 0.25, 0.24, 0.25, 20};
    again.run = 4;
    EXPECT_FALSE(db.insert_measurement(again)) << "measured in flush_spin already";
    again.run = 6;
    const auto id = db.insert_measurement(again);
    ASSERT_TRUE(id) << "the first row of the config in flush_b2b";
    EXPECT_EQ(text(db, "SELECT protocol FROM measurements WHERE id = " + std::to_string(*id)), "flush_b2b");
  }
  // Rows claiming another protocol than their run's are refused; one that names none gets its run's.
  auto refused = [&](const std::string& sql) {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    char* err = nullptr;
    const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
    std::string msg = err ? err : "";
    sqlite3_free(err);
    sqlite3_close(db);
    return rc == SQLITE_CONSTRAINT ? msg : "not refused (" + std::to_string(rc) + ")";
  };
  const std::string why = "a measurement's protocol must be its run's (v_run_protocols)";
  EXPECT_EQ(refused("INSERT INTO measurements (run_id, device_id, problem_id, method, config_id, status, rel_err,"
                    " max_abs_err, protocol) VALUES (1, 1, 1, 'coalesce', 2, 'wrong_result', 1, 1, 'flush_spin')"),
            why);
  EXPECT_EQ(refused("UPDATE measurements SET protocol = 'steady_b2b' WHERE id = 7"), why);
  EXPECT_EQ(refused("UPDATE measurements SET run_id = 2 WHERE id = 7"), why) << "steady_spin into steady_b2b";
  EXPECT_EQ(refused("UPDATE measurements SET run_id = 4 WHERE id = 1"), why);
  raw_sql(path, "INSERT INTO measurements (run_id, device_id, problem_id, method, config_id, status, rel_err,"
                " max_abs_err) VALUES (4, 1, 1, 'coalesce', 2, 'wrong_result', 1, 1)");
  EXPECT_EQ(raw_scalar(path, "SELECT count(*) FROM measurements WHERE run_id = 4 AND method = 'coalesce' "
                             "AND protocol = 'flush_spin'"), 1);
  std::vector<std::int64_t> expected = counts;
  expected[5] += 2;  // the torch_eager row of run 6 and the raw insert
  EXPECT_EQ(row_counts(path), expected);
  EXPECT_EQ(raw_scalar(path, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
}

TEST(Migrations, FreshDatabaseIsInitialized) {
  TempDir dir;
  auto path = dir / "new.db";
  {
    auto db = Database::open(path, Mode::read_write);
    EXPECT_EQ(db.schema_version(), latest_schema_version());
    auto tables = db.query("SELECT count(*) FROM sqlite_schema WHERE type = 'table'");
    // devices runs problems configs builds measurements (0001), math_peaks (0003), profiles (0004),
    // protocols (0008)
    EXPECT_EQ(as_int(tables.rows[0][0]), 9);
  }
  EXPECT_EQ(raw_scalar(path, "PRAGMA application_id"), kApplicationId);
  EXPECT_EQ(raw_scalar(path, "PRAGMA user_version"), latest_schema_version());
  // Closed cleanly: back to a rollback journal, no side files left behind.
  EXPECT_EQ(dir.listing(), "new.db");
}

TEST(Migrations, ComparisonViewHasTheDocumentedColumnsFirst) {
  TempDir dir;
  auto db = Database::open(dir / "v.db", Mode::read_write);
  auto cols = db.query("SELECT * FROM v_comparison LIMIT 0").columns;
  std::vector<std::string> first(cols.begin(), cols.begin() + 13);
  EXPECT_EQ(first, (std::vector<std::string>{"device_name", "m", "n", "k", "dtype", "epilogue",
                                             "family", "config_name", "coalesce_ms",
                                             "cublas_gemm_ms", "eager_ms", "unfused_ms",
                                             "cublaslt_fused_ms"}));
}

TEST(Migrations, ReopenIsIdempotent) {
  TempDir dir;
  auto path = dir / "r.db";
  { Database::open(path, Mode::read_write); }
  std::string before = contents(path);
  { Database::open(path, Mode::read_only); }
  EXPECT_EQ(contents(path), before) << "a read-only open changed the file";
  {
    auto db = Database::open(path, Mode::read_write);
    EXPECT_EQ(db.schema_version(), latest_schema_version());
    EXPECT_EQ(as_int(db.query("SELECT count(*) FROM sqlite_schema").rows[0][0]),
              raw_scalar(path, "SELECT count(*) FROM sqlite_schema"));
  }
  EXPECT_EQ(raw_scalar(path, "PRAGMA user_version"), latest_schema_version());
  EXPECT_EQ(dir.listing(), "r.db");
}

TEST(Migrations, ZeroByteFileIsInitialized) {
  TempDir dir;
  auto path = dir / "empty.db";
  write_file(path, "");
  auto db = Database::open(path, Mode::read_write);
  EXPECT_EQ(db.schema_version(), latest_schema_version());
}

TEST(Migrations, ZeroByteFileIsNotReadable) {
  TempDir dir;
  auto path = dir / "empty.db";
  write_file(path, "");
  auto msg = error_of<NotCoalesceDatabase>(path, Mode::read_only);
  EXPECT_NE(msg.find(path.string()), std::string::npos) << msg;
  EXPECT_EQ(contents(path), "");
}

// A file cut short (a copy interrupted, a full disk) is told as truncated, with its header's
// size and the file's, by every open (issue 45): not "malformed", nor "not an SQLite file".
TEST(Migrations, TruncatedFileIsToldAsTruncated) {
  TempDir dir;
  auto path = dir / "cut.db";
  { Database::open(path, Mode::read_write); }
  const std::string whole = contents(path);
  ASSERT_GT(whole.size(), 8192u);
  for (std::size_t size : {std::size_t(100), whole.size() / 2 + 7, whole.size() - 4096}) {
    write_file(path, whole.substr(0, size));
    for (Mode mode : {Mode::read_only, Mode::read_write}) {
      const auto msg = error_of<Error>(path, mode);
      EXPECT_EQ(msg.rfind(path.string() + " is truncated: its header counts", 0), 0u) << msg;
      EXPECT_NE(msg.find("the file holds " + std::to_string(size)), std::string::npos) << msg;
      EXPECT_EQ(contents(path), whole.substr(0, size));
    }
    EXPECT_EQ(dir.listing(), "cut.db");
  }
  EXPECT_EQ(truncation_of(dir / "missing.db"), "");
  write_file(path, whole);
  EXPECT_EQ(truncation_of(path), "");
}

TEST(Migrations, NewerSchemaIsRefusedAndUntouched) {
  TempDir dir;
  auto path = dir / "newer.db";
  { Database::open(path, Mode::read_write); }
  raw_sql(path, "PRAGMA user_version = " + std::to_string(latest_schema_version() + 1));
  std::string before = contents(path);
  for (Mode mode : {Mode::read_write, Mode::read_only}) {
    auto msg = error_of<NewerSchema>(path, mode);
    EXPECT_NE(msg.find(path.string()), std::string::npos) << msg;
    EXPECT_NE(msg.find("newer"), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line: " << msg;
  }
  EXPECT_EQ(contents(path), before);
  EXPECT_EQ(dir.listing(), "newer.db");
}

TEST(Migrations, ForeignSqliteFileIsRefusedAndUntouched) {
  TempDir dir;
  auto path = dir / "other.db";
  raw_sql(path, "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me');");
  std::string before = contents(path);
  for (Mode mode : {Mode::read_write, Mode::read_only}) {
    auto msg = error_of<NotCoalesceDatabase>(path, mode);
    EXPECT_NE(msg.find(path.string()), std::string::npos) << msg;
    EXPECT_NE(msg.find("not a Coalesce database"), std::string::npos) << msg;
  }
  EXPECT_EQ(contents(path), before);
  EXPECT_EQ(dir.listing(), "other.db");
}

TEST(Migrations, ForeignWalFileGetsNoSideFiles) {
  TempDir dir;
  auto path = dir / "wal.db";
  raw_sql(path, "PRAGMA journal_mode=WAL; CREATE TABLE t (x); INSERT INTO t VALUES (1);");
  ASSERT_EQ(dir.listing(), "wal.db");
  std::string before = contents(path);
  error_of<NotCoalesceDatabase>(path, Mode::read_write);
  EXPECT_EQ(contents(path), before);
  EXPECT_EQ(dir.listing(), "wal.db") << "the refused open created -wal/-shm/-lock files";
}

TEST(Migrations, EmptySqliteFileOfAnotherVersionIsForeign) {
  TempDir dir;
  auto path = dir / "uv.db";
  raw_sql(path, "PRAGMA user_version = 7");
  std::string before = contents(path);
  error_of<NotCoalesceDatabase>(path, Mode::read_write);
  EXPECT_EQ(contents(path), before);
}

TEST(Migrations, NonSqliteFileIsRefusedAndUntouched) {
  TempDir dir;
  auto path = dir / "notes.txt";
  std::string text(4096, 'x');
  write_file(path, text);
  for (Mode mode : {Mode::read_write, Mode::read_only}) {
    auto msg = error_of<NotCoalesceDatabase>(path, mode);
    EXPECT_NE(msg.find(path.string()), std::string::npos) << msg;
  }
  EXPECT_EQ(contents(path), text);
  EXPECT_EQ(dir.listing(), "notes.txt");
}

TEST(Migrations, MissingFileIsNotCreatedReadOnly) {
  TempDir dir;
  auto path = dir / "missing.db";
  auto msg = error_of<Error>(path, Mode::read_only);
  EXPECT_NE(msg.find("does not exist"), std::string::npos) << msg;
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(Migrations, MissingDirectoryIsOneSentence) {
  TempDir dir;
  auto path = dir / "no/such/dir/x.db";
  auto msg = error_of<Error>(path, Mode::read_write);
  EXPECT_NE(msg.find("does not exist"), std::string::npos) << msg;
}

TEST(Migrations, DirectoryIsRefused) {
  TempDir dir;
  auto msg = error_of<Error>(dir.path(), Mode::read_write);
  EXPECT_NE(msg.find("not a regular file"), std::string::npos) << msg;
}

TEST(Migrations, FailingMigrationLeavesThePreviousVersion) {
  TempDir dir;
  auto path = dir / "fail.db";
  { Database::open(path, Mode::read_write); }
  std::vector<Migration> list(builtin_migrations().begin(), builtin_migrations().end());
  list.push_back({latest_schema_version() + 1, "9999_bad.sql",
                  "CREATE TABLE extra (x INTEGER) STRICT; INSERT INTO no_such_table VALUES (1);"});
  try {
    Database::open(path, Mode::read_write, list);
    FAIL() << "the failing migration was applied";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("9999_bad.sql"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("no_such_table"), std::string::npos) << e.what();
  }
  EXPECT_EQ(raw_scalar(path, "PRAGMA user_version"), latest_schema_version());
  EXPECT_EQ(raw_scalar(path, "SELECT count(*) FROM sqlite_schema WHERE name = 'extra'"), 0);
  auto db = Database::open(path, Mode::read_write);  // and the lease was released
  EXPECT_EQ(db.schema_version(), latest_schema_version());
}

TEST(Migrations, PendingMigrationIsAppliedOnceThenOldBinariesRefuse) {
  TempDir dir;
  auto path = dir / "up.db";
  { Database::open(path, Mode::read_write); }
  std::vector<Migration> list(builtin_migrations().begin(), builtin_migrations().end());
  int next = latest_schema_version() + 1;
  list.push_back({next, "9999_extra.sql", "CREATE TABLE extra (x INTEGER) STRICT;"});
  // A binary that knows the new migration but opens read-only asks for a read-write open first.
  try {
    Database::open(path, Mode::read_only, list);
    FAIL() << "read-only open of an older schema succeeded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("migrate"), std::string::npos) << e.what();
  }
  { EXPECT_EQ(Database::open(path, Mode::read_write, list).schema_version(), next); }
  { EXPECT_EQ(Database::open(path, Mode::read_write, list).schema_version(), next); }
  EXPECT_EQ(raw_scalar(path, "SELECT count(*) FROM sqlite_schema WHERE name = 'extra'"), 1);
  error_of<NewerSchema>(path, Mode::read_write);  // the built-in list stops one short
}

}  // namespace
}  // namespace coalesce::db

namespace coalesce::db {
namespace {

// Every row of a query over the raw file, as text, for comparing a database before and after.
std::vector<std::string> raw_rows(const std::filesystem::path& p, const char* sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(p.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql, -1, &s, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  std::vector<std::string> rows;
  while (sqlite3_step(s) == SQLITE_ROW) {
    std::string row;
    for (int i = 0; i < sqlite3_column_count(s); ++i) {
      const unsigned char* text = sqlite3_column_text(s, i);
      row += (i ? "|" : "") + std::string(text ? reinterpret_cast<const char*>(text) : "NULL");
    }
    rows.push_back(row);
  }
  sqlite3_finalize(s);
  sqlite3_close(db);
  return rows;
}

// The committed results as they stood at schema 1 (tests/fixtures/results-schema1.db) open
// read-write at the version they hold and upgrade in place to the latest: every row is kept, the
// headline comparison and every measurement read the same, and the FP32 peak of the devices view
// is unchanged (schema 1 named it fp32_peak_tflops, schema 3 f32_peak_tflops).
TEST(Migrations, TheCommittedDatabaseUpgradesAndReportsTheSameNumbers) {
  const std::filesystem::path committed = COALESCE_RESULTS_DB;
  ASSERT_TRUE(std::filesystem::exists(committed));
  const auto committed_version = raw_scalar(committed, "PRAGMA user_version");
  ASSERT_GE(committed_version, 1);
  ASSERT_LE(committed_version, latest_schema_version());
  const char* fp32_peak = committed_version < 3 ? "fp32_peak_tflops" : "f32_peak_tflops";
  TempDir dir;
  const auto copy = dir / "coalesce.db";
  std::filesystem::copy_file(committed, copy);
  const char* comparison =
      "SELECT device_name, m, n, k, dtype, epilogue, family, config_name, coalesce_ms, cublas_gemm_ms, eager_ms, "
      "unfused_ms, cublaslt_fused_ms, coalesce_unfused_ms, run_id FROM v_comparison ORDER BY device_id, problem_id, family";
  const char* measurements =
      "SELECT measurement_id, run_id, method, config_name, status, median_ms, p10_ms, p90_ms, tflops, rel_err, "
      "max_abs_err, registers FROM v_measurements ORDER BY measurement_id";
  const auto before_comparison = raw_rows(copy, comparison);
  const auto before_measurements = raw_rows(copy, measurements);
  const auto old_peaks =
      raw_rows(copy, ("SELECT id, round(" + std::string(fp32_peak) + ", 6) FROM v_devices ORDER BY id").c_str());
  ASSERT_GT(before_measurements.size(), 3000u);
  {
    auto db = Database::open(copy, Mode::read_write);
    EXPECT_EQ(db.schema_version(), latest_schema_version());
  }
  EXPECT_EQ(raw_rows(copy, comparison), before_comparison);
  EXPECT_EQ(raw_rows(copy, measurements), before_measurements);
  EXPECT_EQ(raw_rows(copy, "SELECT id, round(f32_peak_tflops, 6) FROM v_devices ORDER BY id"), old_peaks);
  // The H200's BF16 tensor peak at its 1980 MHz max clock: 132 SMs x 4096 FLOP/clock.
  const auto bf16 = raw_rows(copy, "SELECT round(bf16_peak_tflops, 3) FROM v_devices WHERE name = 'NVIDIA H200' LIMIT 1");
  ASSERT_EQ(bf16.size(), 1u);
  EXPECT_EQ(bf16[0], "1070.531");
  if (committed_version < 3)  // rows measured before the figure existed
    EXPECT_EQ(raw_rows(copy, "SELECT count(*) FROM measurements WHERE max_scaled_err IS NOT NULL"),
              std::vector<std::string>{"0"});
}

}  // namespace
}  // namespace coalesce::db
