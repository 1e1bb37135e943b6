// Merging databases by natural keys (schema/merge.hpp): two shards written apart become one with
// every row under new ids, a second merge adds nothing, a key stored with other values is a
// conflict left out with the rows that refer to it, an input is merged whole or not at all, an
// older input is read through a migrated copy, a newer one is refused, and inputs are only read.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <set>

#include "schema/db.hpp"
#include "schema/merge.hpp"
#include "test_util.hpp"

namespace coalesce::db {
namespace {

using testing::contents;
using testing::h200;
using testing::ok_row;
using testing::raw_sql;
using testing::run_info;
using testing::TempDir;
using testing::write_file;

const Problem k1024{1024, 1024, 1024, Dtype::f32, Epilogue::bias_gelu};
const Problem k2048{2048, 2048, 2048, Dtype::f32, Epilogue::bias_gelu};

ConfigRow config(const std::string& tile, const std::string& hash) {
  return {"simt", "simt_f32_" + tile + "_bias_gelu", R"({"bm":128,"bn":128})", hash};
}

BuildRow build_of(ConfigId config, int registers, double compile_ms, int attempts = 1) {
  BuildRow b;
  b.config = config;
  b.arch = "sm_90";
  b.toolkit = "13.0";
  b.ok = true;
  b.registers = registers;
  b.smem_bytes = 32768;
  b.threads = 256;
  b.compile_ms = compile_ms;
  b.attempts = attempts;
  return b;
}

MeasurementRow pruned_row(RunId run, DeviceId dev, ProblemId prob, ConfigId config) {
  MeasurementRow r;
  r.run = run;
  r.device = dev;
  r.problem = prob;
  r.config = config;
  r.status = Status::pruned;
  r.prune_reason = "smem";
  r.message = "the pipeline's shared memory exceeds the device's per-block limit";
  return r;
}

/// Shard A as one Slurm task writes it: one H200, the 1024³ problem, a measured config and its
/// build, a config pruned before emission (no source hash), the eager baseline, and a dry run
/// (no device) left `running` by a writer that died.
void write_shard_a(const std::filesystem::path& path) {
  auto db = Database::open(path, Mode::read_write);
  DeviceId dev = db.upsert_device(h200("GPU-aaaa"));
  RunId run = db.begin_run(run_info(dev, "sweep 1024 shard 1/2"));
  ProblemId prob = db.upsert_problem(k1024);
  ConfigId measured = db.upsert_config(config("bm128_bn128", "hash-128"));
  ConfigId pruned = db.upsert_config(config("bm256_bn256", ""));
  MeasurementRow fused = ok_row(run, dev, prob, "coalesce", measured, 0.50);
  fused.build = db.upsert_build(build_of(measured, 118, 850.0));
  db.insert_measurement(fused);
  db.insert_measurement(pruned_row(run, dev, prob, pruned));
  db.insert_measurement(ok_row(run, dev, prob, "eager", std::nullopt, 0.70));
  db.end_run(run, RunStatus::completed);
  db.begin_run(run_info(std::nullopt, "dry run"));
  db.exec("UPDATE runs SET started_at = '2026-01-01T10:00:00.000Z' WHERE id = 1;"
          "UPDATE runs SET started_at = '2026-01-01T11:00:00.000Z' WHERE id = 2;");
}

/// Shard B on another GPU, its rows written in another order so that its ids differ from A's:
/// 2048³ before 1024³, its own config first, then A's two configs again (the same build, timed
/// and retried differently).
void write_shard_b(const std::filesystem::path& path) {
  auto db = Database::open(path, Mode::read_write);
  DeviceId dev = db.upsert_device(h200("GPU-bbbb"));
  RunId run = db.begin_run(run_info(dev, "sweep 1024 shard 2/2"));
  ProblemId p2048 = db.upsert_problem(k2048);
  ProblemId p1024 = db.upsert_problem(k1024);
  ConfigId own = db.upsert_config(config("bm64_bn64", "hash-64"));
  ConfigId pruned = db.upsert_config(config("bm256_bn256", ""));
  ConfigId shared = db.upsert_config(config("bm128_bn128", "hash-128"));
  MeasurementRow a = ok_row(run, dev, p2048, "coalesce", own, 3.10);
  a.build = db.upsert_build(build_of(own, 80, 700.0));
  db.insert_measurement(a);
  MeasurementRow b = ok_row(run, dev, p1024, "coalesce", shared, 0.52);
  b.build = db.upsert_build(build_of(shared, 118, 1234.0, 2));
  db.insert_measurement(b);
  db.insert_measurement(pruned_row(run, dev, p1024, pruned));
  db.insert_measurement(ok_row(run, dev, p1024, "eager", std::nullopt, 0.71));
  db.end_run(run, RunStatus::completed);
  db.exec("UPDATE runs SET started_at = '2026-01-01T10:00:00.000Z'");
}

/// Every measurement of a database by its natural keys and values, never by id: what a merge
/// must carry over whatever ids it hands out.
std::set<std::string> measurements_by_key(const std::filesystem::path& path) {
  auto db = Database::open(path, Mode::read_only);
  auto rs = db.query(R"sql(
    SELECT v.device_uuid || ' ' || v.m || 'x' || v.n || 'x' || v.k || ' ' || v.method || ' ' ||
           ifnull(v.config_name, '-') || ' ' || v.status || ' ' || ifnull(v.median_ms, '-') || ' ' ||
           ifnull(v.registers, '-') || ' run ' || ifnull(r.resume_key, '-') || ' ' || r.started_at
    FROM v_measurements v JOIN runs r ON r.id = v.run_id)sql");
  std::set<std::string> out;
  for (const auto& row : rs.rows) out.insert(as_text(row[0]));
  return out;
}

std::int64_t count(Database& db, const std::string& table) {
  return as_int(db.query("SELECT count(*) FROM " + table).rows[0][0]);
}

const MergeCount& counts(const MergeResult& r, const std::string& table) {
  for (const MergeCount& c : r.tables)
    if (c.table == table) return c;
  throw std::logic_error("no table " + table);
}

/// "added/present/conflicts/left_out" of one table, for one-line expectations.
std::string tally(const MergeResult& r, const std::string& table) {
  const MergeCount& c = counts(r, table);
  return std::to_string(c.added) + "/" + std::to_string(c.present) + "/" + std::to_string(c.conflicts) + "/" +
         std::to_string(c.left_out);
}

TEST(Merge, TwoShardsBecomeOneUnderNewIds) {
  TempDir dir;
  write_shard_a(dir / "a.db");
  write_shard_b(dir / "b.db");
  auto out = Database::open(dir / "out.db", Mode::read_write);
  Merger merger(out);
  const MergeResult a = merger.merge(dir / "a.db");
  EXPECT_EQ(a.schema_version, latest_schema_version());
  EXPECT_EQ(tally(a, "devices"), "1/0/0/0");
  EXPECT_EQ(tally(a, "runs"), "2/0/0/0");
  EXPECT_EQ(tally(a, "problems"), "1/0/0/0");
  EXPECT_EQ(tally(a, "configs"), "2/0/0/0");
  EXPECT_EQ(tally(a, "builds"), "1/0/0/0");
  EXPECT_EQ(tally(a, "measurements"), "3/0/0/0");
  EXPECT_EQ(tally(a, "math_peaks"), "0/8/0/0");  // every database holds the migration's peaks

  const MergeResult b = merger.merge(dir / "b.db");
  EXPECT_EQ(tally(b, "devices"), "1/0/0/0");
  EXPECT_EQ(tally(b, "problems"), "1/1/0/0");
  EXPECT_EQ(tally(b, "configs"), "1/2/0/0");
  // The shared config's build has A's figures: its compile time and attempts are not compared.
  EXPECT_EQ(tally(b, "builds"), "1/1/0/0");
  // Measured on another device, the shared configs are other measurements.
  EXPECT_EQ(tally(b, "measurements"), "4/0/0/0");
  EXPECT_TRUE(b.conflicts.empty());

  std::set<std::string> both = measurements_by_key(dir / "a.db");
  for (const std::string& row : measurements_by_key(dir / "b.db")) both.insert(row);
  const std::filesystem::path out_path = out.path();
  EXPECT_EQ(measurements_by_key(out_path), both);
  EXPECT_EQ(count(out, "measurements"), 7);

  // B's 1024³ problem was its id 2 and is the output's 1 (A's); its own 2048³ came next.
  EXPECT_EQ(as_int(out.query("SELECT id FROM problems WHERE m = 1024").rows[0][0]), 1);
  EXPECT_EQ(as_int(out.query("SELECT id FROM problems WHERE m = 2048").rows[0][0]), 2);
  // The build B stored for the shared config is A's row, which kept its own compile time.
  auto build = out.query("SELECT compile_ms, attempts FROM builds b JOIN configs c ON c.id = b.config_id "
                         "WHERE c.name = 'simt_f32_bm128_bn128_bias_gelu'").rows;
  ASSERT_EQ(build.size(), 1u);
  EXPECT_EQ(as_double(build[0][0]), 850.0);
  EXPECT_EQ(as_int(build[0][1]), 1);
  // B's measurement of it points at that build.
  EXPECT_EQ(count(out, "v_measurements WHERE device_uuid = 'GPU-bbbb' AND "
                      "config_name = 'simt_f32_bm128_bn128_bias_gelu' AND registers = 118"),
            1);
  // The dry run's writer died: the merge reads it as any writer's open would, interrupted.
  EXPECT_EQ(as_text(out.query("SELECT status FROM runs WHERE device_id IS NULL").rows[0][0]), "interrupted");
  EXPECT_EQ(summary(a), "1 device, 2 runs, 1 problem, 2 configs, 1 build, 3 measurements new; "
                        "8 math peaks, 5 protocols already present; 0 conflicts");
}

// ptxas' figures belong to one compile: two hosts' builds of one source with one toolkit label
// have differed in their registers (results/README.md, run 37). Such a build is present, not a
// conflict: the output keeps its figures, the input's measurement is taken, and the summary
// counts the build.
TEST(Merge, ABuildWithOtherPtxasFiguresIsPresentAndTheOutputKeepsItsOwn) {
  TempDir dir;
  write_shard_a(dir / "a.db");
  {
    auto db = Database::open(dir / "c.db", Mode::read_write);
    DeviceId dev = db.upsert_device(h200("GPU-cccc"));
    RunId run = db.begin_run(run_info(dev, "sweep 1024 on another host"));
    ProblemId prob = db.upsert_problem(k1024);
    ConfigId shared = db.upsert_config(config("bm128_bn128", "hash-128"));
    MeasurementRow m = ok_row(run, dev, prob, "coalesce", shared, 0.49);
    m.build = db.upsert_build(build_of(shared, 112, 900.0));  // A's compile gave 118
    db.insert_measurement(m);
    db.end_run(run, RunStatus::completed);
  }
  auto out = Database::open(dir / "out.db", Mode::read_write);
  Merger merger(out);
  merger.merge(dir / "a.db");
  const MergeResult c = merger.merge(dir / "c.db");
  EXPECT_TRUE(c.conflicts.empty());
  EXPECT_EQ(tally(c, "builds"), "0/1/0/0");
  EXPECT_EQ(counts(c, "builds").kept_own, 1);
  EXPECT_EQ(tally(c, "measurements"), "1/0/0/0");
  EXPECT_EQ(count(out, "v_measurements WHERE device_uuid = 'GPU-cccc' AND registers = 118"), 1);
  EXPECT_NE(summary(c).find("; 1 build present with other ptxas figures (the output's kept)"), std::string::npos)
      << summary(c);
}

TEST(Merge, MergingAgainAddsNothing) {
  TempDir dir;
  write_shard_a(dir / "a.db");
  write_shard_b(dir / "b.db");
  auto out = Database::open(dir / "out.db", Mode::read_write);
  {
    Merger merger(out);
    merger.merge(dir / "a.db");
    merger.merge(dir / "b.db");
  }
  const std::set<std::string> before = measurements_by_key(out.path());
  std::vector<std::int64_t> rows;
  for (const char* t : {"devices", "runs", "problems", "configs", "builds", "measurements", "math_peaks", "profiles"})
    rows.push_back(count(out, t));

  Merger again(out);  // a later invocation: the rows are the output's own now
  for (const char* input : {"a.db", "b.db", "a.db"}) {
    const MergeResult r = again.merge(dir / input);
    EXPECT_EQ(r.added(), 0) << input << ": " << summary(r);
    EXPECT_TRUE(r.conflicts.empty()) << input;
    EXPECT_EQ(summary(r).rfind("nothing new; ", 0), 0u) << summary(r);
  }
  std::vector<std::int64_t> after;
  for (const char* t : {"devices", "runs", "problems", "configs", "builds", "measurements", "math_peaks", "profiles"})
    after.push_back(count(out, t));
  EXPECT_EQ(after, rows);
  EXPECT_EQ(measurements_by_key(out.path()), before);
}

// A device UUID stored under another name: the device is not taken, nor its run and
// measurements, and the line says which input the stored row came from; the input's other rows
// (a new problem) are merged, and the output keeps its own values.
TEST(Merge, AConflictIsReportedAndLeftOutWithWhatRefersToIt) {
  TempDir dir;
  write_shard_a(dir / "a.db");
  {
    auto db = Database::open(dir / "c.db", Mode::read_write);
    DeviceRow renamed = h200("GPU-aaaa");
    renamed.name = "NVIDIA H100";
    DeviceId dev = db.upsert_device(renamed);
    RunId run = db.begin_run(run_info(dev, "another sweep"));
    ProblemId prob = db.upsert_problem(k2048);
    db.insert_measurement(ok_row(run, dev, prob, "eager", std::nullopt, 3.3));
    db.insert_measurement(ok_row(run, dev, prob, "cublas_gemm", std::nullopt, 3.0));
    db.end_run(run, RunStatus::completed);
  }
  auto out = Database::open(dir / "out.db", Mode::read_write);
  Merger merger(out);
  merger.merge(dir / "a.db");
  const MergeResult c = merger.merge(dir / "c.db");
  EXPECT_EQ(tally(c, "devices"), "0/0/1/0");
  EXPECT_EQ(tally(c, "runs"), "0/0/0/1");
  EXPECT_EQ(tally(c, "problems"), "1/0/0/0");
  EXPECT_EQ(tally(c, "measurements"), "0/0/0/2");
  ASSERT_EQ(c.conflicts.size(), 1u);
  const MergeConflict& conflict = c.conflicts[0];
  EXPECT_EQ(conflict.table, "devices");
  EXPECT_EQ(conflict.key, "GPU-aaaa");
  ASSERT_EQ(conflict.differences.size(), 1u);
  EXPECT_EQ(conflict.differences[0].column, "name");
  EXPECT_EQ(conflict.differences[0].input_value, "'NVIDIA H100'");
  EXPECT_EQ(conflict.differences[0].output_value, "'NVIDIA H200'");
  EXPECT_EQ(conflict.stored_from, dir / "a.db");
  const std::string out_name = (dir / "out.db").string(), a_name = (dir / "a.db").string(),
                    c_name = (dir / "c.db").string();
  EXPECT_EQ(describe(conflict, c, dir / "out.db"),
            c_name + ": conflict in devices, GPU-aaaa: name 'NVIDIA H100' vs 'NVIDIA H200' (" + c_name +
                " vs " + out_name + ", stored from " + a_name + "); not taken");
  EXPECT_EQ(summary(c), "1 problem new; 8 math peaks, 5 protocols already present; 1 conflict (1 device); "
                        "1 run, 2 measurements left out with it");
  EXPECT_EQ(as_text(out.query("SELECT name FROM devices").rows[0][0]), "NVIDIA H200");
  EXPECT_EQ(count(out, "devices"), 1);
  EXPECT_EQ(count(out, "problems"), 2);
  EXPECT_EQ(count(out, "measurements"), 3);
}

// The same run in two files, one of which holds its tuned config with another median: a
// measurement conflict naming the config, the problem and the device.
TEST(Merge, AMeasurementWithAnotherMedianConflicts) {
  TempDir dir;
  write_shard_a(dir / "a.db");
  std::filesystem::copy_file(dir / "a.db", dir / "a2.db");
  raw_sql(dir / "a2.db", "UPDATE measurements SET median_ms = 0.55, p90_ms = 0.56, max_ms = 0.57 "
                         "WHERE method = 'coalesce' AND status = 'ok'");
  auto out = Database::open(dir / "out.db", Mode::read_write);
  {
    Merger first(out);
    first.merge(dir / "a.db");
  }
  Merger merger(out);
  const MergeResult r = merger.merge(dir / "a2.db");
  EXPECT_EQ(tally(r, "measurements"), "0/2/1/0");
  ASSERT_EQ(r.conflicts.size(), 1u);
  const MergeConflict& c = r.conflicts[0];
  EXPECT_EQ(c.table, "measurements");
  EXPECT_EQ(c.key,
            "coalesce simt_f32_bm128_bn128_bias_gelu (source hash-128) of 1024x1024x1024 f32 bias_gelu on GPU-aaaa "
            "in protocol flush_b2b");
  std::vector<std::string> columns;
  for (const MergeDifference& d : c.differences) columns.push_back(d.column);
  EXPECT_EQ(columns, (std::vector<std::string>{"median_ms", "max_ms", "p90_ms"}));
  EXPECT_EQ(c.differences[0].input_value, "0.55");
  EXPECT_EQ(c.differences[0].output_value, "0.5");
  EXPECT_EQ(c.stored_from, dir / "out.db");  // stored by an earlier invocation
  auto kept = out.query("SELECT median_ms FROM measurements WHERE method = 'coalesce' AND status = 'ok'");
  EXPECT_EQ(as_double(kept.rows[0][0]), 0.50);
}

// A baseline's run is part of its key: the same baseline in two runs is two rows, and the
// conflict label of a baseline names its run.
TEST(Merge, BaselinesAreKeyedByTheirRun) {
  TempDir dir;
  write_shard_a(dir / "a.db");
  std::filesystem::copy_file(dir / "a.db", dir / "a2.db");
  raw_sql(dir / "a2.db", "UPDATE measurements SET median_ms = 0.75, p90_ms = 0.76, max_ms = 0.77 "
                         "WHERE method = 'eager'");
  std::filesystem::copy_file(dir / "a.db", dir / "later.db");
  raw_sql(dir / "later.db", "UPDATE runs SET started_at = '2026-01-02T10:00:00.000Z' WHERE id = 1");
  auto out = Database::open(dir / "out.db", Mode::read_write);
  Merger merger(out);
  merger.merge(dir / "a.db");
  const MergeResult conflicting = merger.merge(dir / "a2.db");
  ASSERT_EQ(conflicting.conflicts.size(), 1u);
  EXPECT_EQ(conflicting.conflicts[0].key,
            "eager baseline of 1024x1024x1024 f32 bias_gelu on GPU-aaaa in the run started "
            "2026-01-01T10:00:00.000Z on test-host (GPU-aaaa)");
  // Another run: its baseline is new; its tuned config, measured once per device, conflicts
  // (the run differs), and the pruned one too.
  const MergeResult later = merger.merge(dir / "later.db");
  EXPECT_EQ(tally(later, "runs"), "1/1/0/0");
  EXPECT_EQ(tally(later, "measurements"), "1/0/2/0");
  EXPECT_EQ(later.conflicts[0].differences[0].column, "run_id");
  EXPECT_EQ(later.conflicts[0].differences[0].input_value,
            "'run started 2026-01-02T10:00:00.000Z on test-host (GPU-aaaa)'");
}

TEST(Merge, InputsAreOnlyRead) {
  TempDir dir;
  write_shard_a(dir / "a.db");
  write_shard_b(dir / "b.db");
  const std::string a = contents(dir / "a.db"), b = contents(dir / "b.db");
  {
    auto out = Database::open(dir / "out.db", Mode::read_write);
    Merger merger(out);
    merger.merge(dir / "a.db");
    merger.merge(dir / "b.db");
  }
  EXPECT_EQ(contents(dir / "a.db"), a);
  EXPECT_EQ(contents(dir / "b.db"), b);
  EXPECT_EQ(dir.listing(), "a.db,b.db,out.db");
  // The private copies are gone.
  const std::string prefix = "coalesce-copy-" + std::to_string(::getpid()) + "-";
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::temp_directory_path()))
    EXPECT_NE(e.path().filename().string().rfind(prefix, 0), 0u) << e.path();
}

// The committed results as they stood at schema 1 (tests/fixtures/results-schema1.db): read
// through a migrated copy, every row arrives, builds read one attempt, and the file stays as it
// was, at version 1.
TEST(Merge, AnOlderInputIsReadThroughAMigratedCopy) {
  TempDir dir;
  const auto input = dir / "schema1.db";
  std::filesystem::copy_file(COALESCE_RESULTS_DB, input);
  const std::string before = contents(input);
  const int version = schema_version_of(input);
  ASSERT_LT(version, latest_schema_version());
  auto out = Database::open(dir / "out.db", Mode::read_write);
  Merger merger(out);
  const MergeResult r = merger.merge(input);
  EXPECT_EQ(r.schema_version, version);
  EXPECT_TRUE(r.conflicts.empty());
  EXPECT_NE(summary(r).find("read at schema version " + std::to_string(version) + ", migrated on a copy"),
            std::string::npos);
  auto original = Database::open(input, Mode::read_only, std::span(builtin_migrations().data(), version));
  for (const char* t : {"devices", "runs", "problems", "configs", "builds", "measurements"}) {
    EXPECT_EQ(counts(r, t).added, count(original, t)) << t;
    EXPECT_EQ(count(out, t), count(original, t)) << t;
  }
  EXPECT_EQ(count(out, "builds WHERE attempts = 1"), count(out, "builds"));
  EXPECT_EQ(contents(input), before);
  EXPECT_EQ(schema_version_of(input), version);
}

TEST(Merge, ANewerOrForeignInputIsRefusedBeforeAnythingIsWritten) {
  TempDir dir;
  write_shard_a(dir / "newer.db");
  raw_sql(dir / "newer.db", "PRAGMA user_version = " + std::to_string(latest_schema_version() + 1));
  write_file(dir / "notes.db", "not a database\n");
  write_shard_b(dir / "b.db");
  auto out = Database::open(dir / "out.db", Mode::read_write);
  Merger merger(out);
  merger.merge(dir / "b.db");
  const std::set<std::string> before = measurements_by_key(out.path());
  EXPECT_THROW(schema_version_of(dir / "newer.db"), NewerSchema);
  EXPECT_THROW(merger.merge(dir / "newer.db"), NewerSchema);
  EXPECT_THROW(merger.merge(dir / "notes.db"), NotCoalesceDatabase);
  EXPECT_EQ(measurements_by_key(out.path()), before);
  EXPECT_EQ(count(out, "devices"), 1);
}

// An existing output keeps its rows and ids; the input's rows come after them.
TEST(Merge, IntoAnExistingDatabase) {
  TempDir dir;
  write_shard_a(dir / "a.db");
  write_shard_b(dir / "out.db");
  auto out = Database::open(dir / "out.db", Mode::read_write);
  const auto own =
      out.query("SELECT id, device_id, problem_id, method, median_ms FROM measurements ORDER BY id").rows;
  Merger merger(out);
  const MergeResult r = merger.merge(dir / "a.db");
  EXPECT_EQ(tally(r, "measurements"), "3/0/0/0");
  EXPECT_EQ(out.query("SELECT id, device_id, problem_id, method, median_ms FROM measurements WHERE id <= 4 "
                      "ORDER BY id").rows,
            own);
  EXPECT_EQ(as_int(out.query("SELECT min(id) FROM measurements WHERE device_id = "
                             "(SELECT id FROM devices WHERE uuid = 'GPU-aaaa')").rows[0][0]),
            5);
  // A's 1024³ problem is the output's (its id 2 there), not a second row.
  EXPECT_EQ(count(out, "problems"), 2);
  EXPECT_EQ(as_int(out.query("SELECT DISTINCT problem_id FROM v_measurements WHERE device_uuid = 'GPU-aaaa'")
                       .rows[0][0]),
            2);
}

// Two runs of an input that share the natural key cannot be told apart: the input is refused
// whole, including the device merged before its runs.
TEST(Merge, AnInputIsMergedWholeOrNotAtAll) {
  TempDir dir;
  {
    auto db = Database::open(dir / "twins.db", Mode::read_write);
    DeviceId dev = db.upsert_device(h200("GPU-twin"));
    db.end_run(db.begin_run(run_info(dev, "same")), RunStatus::completed);
    db.end_run(db.begin_run(run_info(dev, "same")), RunStatus::completed);
    db.exec("UPDATE runs SET started_at = '2026-01-01T10:00:00.000Z'");
  }
  auto out = Database::open(dir / "out.db", Mode::read_write);
  Merger merger(out);
  try {
    merger.merge(dir / "twins.db");
    FAIL() << "two runs with one key were merged";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot tell them apart"), std::string::npos) << e.what();
  }
  EXPECT_EQ(count(out, "devices"), 0);
  EXPECT_EQ(count(out, "runs"), 0);
}

// Ctrl-C on `coalesce-report merge` (issue 45: it exited 130 in silence): the caller's `stop`
// is asked before the input is read and between tables; once it says stop, whatever tables were
// merged already are rolled back with the rest, and the output holds nothing of the input. The
// same merge afterwards takes every row.
TEST(Merge, AStoppedMergeIsRolledBack) {
  TempDir dir;
  write_shard_a(dir / "a.db");
  auto out = Database::open(dir / "out.db", Mode::read_write);
  Merger merger(out);
  for (int stop_at : {1, 2, 5}) {
    int asked = 0;
    try {
      merger.merge(dir / "a.db", [&] { return ++asked >= stop_at; });
      FAIL() << "not stopped at question " << stop_at;
    } catch (const MergeInterrupted& e) {
      EXPECT_EQ(std::string(e.what()), "merging " + (dir / "a.db").string() + " into " + (dir / "out.db").string() +
                                           " was interrupted and rolled back");
    }
    EXPECT_EQ(asked, stop_at);
    for (const char* table : {"devices", "runs", "problems", "configs", "builds", "measurements"})
      EXPECT_EQ(count(out, table), 0) << table << " after stopping at question " << stop_at;
  }
  int asked = 0;
  const MergeResult all = merger.merge(dir / "a.db", [&] { return ++asked < 0; });
  EXPECT_GT(asked, 5) << "stop is asked between tables";
  EXPECT_EQ(tally(all, "measurements"), "3/0/0/0");
  EXPECT_EQ(count(out, "measurements"), 3);
}

/// Nsight Compute's view of a kernel of a shard: of `config` (a tuned kernel) or of the library
/// (no config) at 1024³ on the shard's device.
void add_profile(const std::filesystem::path& path, const std::string& uuid, const std::string& method,
                 const std::string& kernel, std::optional<std::string> config, double duration_us) {
  auto db = Database::open(path, Mode::read_write);
  ProfileRow p;
  p.device = *db.find_device(uuid);
  p.problem = db.upsert_problem(k1024);
  p.method = method;
  if (config) p.config = as_int(db.query("SELECT id FROM configs WHERE name = ?1", {*config}).rows.at(0).at(0));
  p.kernel = kernel;
  p.profiled_at = "2026-01-01T10:30:00Z";
  p.duration_us = duration_us;
  p.metrics_json = R"({"gpu__time_duration.sum":)" + std::to_string(duration_us) + "}";
  p.units_json = R"({"gpu__time_duration.sum":"us"})";
  ASSERT_TRUE(db.insert_profile(p));
}

// Profiles are keyed by device × problem × method × config × kernel, never by id: the same
// config's kernel on two GPUs is two profiles, the library's kernel (no config) matches itself,
// a second merge adds nothing, when a row was stored is not compared, and other figures under a
// key are a conflict that names the kernel, its method and config, the problem and the GPU.
TEST(Merge, ProfilesAreMergedByTheirNaturalKey) {
  TempDir dir;
  const std::string tuned = "simt_f32_bm128_bn128_bias_gelu";
  write_shard_a(dir / "a.db");
  add_profile(dir / "a.db", "GPU-aaaa", "coalesce", tuned, tuned, 480.0);
  add_profile(dir / "a.db", "GPU-aaaa", "eager", "nvjet_gemm", std::nullopt, 410.0);
  write_shard_b(dir / "b.db");
  add_profile(dir / "b.db", "GPU-bbbb", "eager", "nvjet_gemm", std::nullopt, 415.0);
  add_profile(dir / "b.db", "GPU-bbbb", "coalesce", tuned, tuned, 500.0);
  std::filesystem::copy_file(dir / "a.db", dir / "a_later.db");
  raw_sql(dir / "a_later.db", "UPDATE profiles SET created_at = '2026-02-01T00:00:00.000Z'");
  std::filesystem::copy_file(dir / "a.db", dir / "a_other.db");
  raw_sql(dir / "a_other.db", "UPDATE profiles SET duration_us = 999.0 WHERE config_id IS NOT NULL");

  auto out = Database::open(dir / "out.db", Mode::read_write);
  Merger merger(out);
  EXPECT_EQ(tally(merger.merge(dir / "a.db"), "profiles"), "2/0/0/0");
  EXPECT_EQ(tally(merger.merge(dir / "b.db"), "profiles"), "2/0/0/0");
  // Each points at the output's own device, problem and config rows.
  auto rows = out.query(R"sql(
    SELECT d.uuid, p.method, ifnull(c.name, '-'), p.duration_us FROM profiles p JOIN devices d ON d.id = p.device_id
    LEFT JOIN configs c ON c.id = p.config_id ORDER BY d.uuid, p.method)sql").rows;
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(as_text(rows[0][0]) + " " + as_text(rows[0][2]) + " " + as_text(rows[0][3]), "GPU-aaaa " + tuned + " 480.0");
  EXPECT_EQ(as_text(rows[2][0]) + " " + as_text(rows[2][2]) + " " + as_text(rows[2][3]), "GPU-bbbb " + tuned + " 500.0");

  for (const char* again : {"a.db", "b.db", "a_later.db"}) {
    const MergeResult r = merger.merge(dir / again);
    EXPECT_EQ(tally(r, "profiles"), "0/2/0/0") << again;
    EXPECT_TRUE(r.conflicts.empty()) << again;
  }
  const MergeResult other = merger.merge(dir / "a_other.db");
  EXPECT_EQ(tally(other, "profiles"), "0/1/1/0");
  ASSERT_EQ(other.conflicts.size(), 1u);
  const MergeConflict& c = other.conflicts[0];
  EXPECT_EQ(c.table, "profiles");
  EXPECT_EQ(c.key, "ncu profile of " + tuned + " (coalesce " + tuned +
                       " (source hash-128)) of 1024x1024x1024 f32 bias_gelu on GPU-aaaa");
  ASSERT_EQ(c.differences.size(), 1u);
  EXPECT_EQ(c.differences[0].column, "duration_us");
  EXPECT_EQ(c.differences[0].input_value, "999.0");
  EXPECT_EQ(c.differences[0].output_value, "480.0");
  EXPECT_EQ(count(out, "profiles"), 4);
  EXPECT_EQ(count(out, "profiles WHERE duration_us = 999"), 0);
}

// A migration that adds a table must give it a natural key here, or merging stops at once.
TEST(Merge, EveryTableOfTheSchemaHasANaturalKey) {
  TempDir dir;
  {
    auto out = Database::open(dir / "out.db", Mode::read_write);
    Merger merger(out);
    auto tables = out.query("SELECT count(*) FROM sqlite_schema WHERE type = 'table'").rows;
    EXPECT_EQ(as_int(tables[0][0]), 9);
  }
  std::vector<Migration> list(builtin_migrations().begin(), builtin_migrations().end());
  list.push_back({latest_schema_version() + 1, "9999_notes.sql",
                  "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL) STRICT;"});
  auto extended = Database::open(dir / "extended.db", Mode::read_write, list);
  try {
    Merger merger(extended);
    FAIL() << "a table without a natural key was accepted";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("notes"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace coalesce::db
