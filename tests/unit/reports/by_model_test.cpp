// The report by GPU model (reports/by_model.cpp) and the published database (reports/publish.cpp)
// over copies of the fixture databases (tests/fixtures/make_fixture.cpp), each changed by SQL to
// make the case: devices of one model, a second protocol, peers inside and outside a sitting.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

#include "tests/unit/reports/fixture_copy.hpp"
#include "reports/by_model.hpp"
#include "reports/publish.hpp"

namespace coalesce::report {
namespace {

namespace fs = std::filesystem;

using coalesce::report::fixture_db::Copy;
using coalesce::report::fixture_db::fixture;

/// The fixture's device 1 as another device: `id`, its own UUID, and `max_sm_clock_mhz`.
std::string twin_device(int id, int max_sm_clock_mhz) {
  const std::string n = std::to_string(id);
  return "CREATE TEMP TABLE twin AS SELECT * FROM devices WHERE id = 1;"
         "UPDATE twin SET id = " + n + ", uuid = 'GPU-5e1f0c2a-0000-4000-8000-bymodel0000" + n +
         "', max_sm_clock_mhz = " + std::to_string(max_sm_clock_mhz) + ";"
         "INSERT INTO devices SELECT * FROM twin; DROP TABLE twin;";
}

/// Moves run `run` and its rows to device `device`.
std::string move_run(int run, int device) {
  return "UPDATE runs SET device_id = " + std::to_string(device) + " WHERE id = " + std::to_string(run) +
         "; UPDATE measurements SET device_id = " + std::to_string(device) + " WHERE run_id = " + std::to_string(run) + ";";
}

struct Report {
  std::vector<GpuModel> models;
  std::vector<ModelEntry> entries;
};

Report report_of(const fs::path& path, const Filters& f = {}) {
  auto db = db::Database::open(path, db::Mode::read_only);
  Report r;
  r.models = gpu_models(db, f);
  r.entries = model_entries(db, f, r.models);
  return r;
}

const ModelEntry& entry(const Report& r, int n, const std::string& protocol = "flush_b2b", std::size_t model = 0) {
  for (const ModelEntry& e : r.entries)
    if (e.m == n && e.protocol == protocol && e.model == model) return e;
  throw std::runtime_error("no entry at " + std::to_string(n) + " in " + protocol);
}

const Alternative* alternative(const ModelEntry& e, const std::string& method) {
  for (const Alternative& a : e.alternatives)
    if (a.method == method) return &a;
  return nullptr;
}

// Run 2 (the faster 1024³ row, 0.0688 ms against run 1's 0.0703) moved to a second H200 of the
// same name, SMs and clock: one model of two devices, whose 1024³ entry is device 2's row with
// device 2's run's baselines (its cuBLASLt failed: not the fastest alternative). With the second
// H200's clock at 1755 MHz it is a model of its own, and the first model keeps run 1's row.
TEST(ByModel, TheBestRowOfAnyDeviceOfTheModelWithItsOwnRunsBaselines) {
  Copy one_model("fixture.db", twin_device(2, 1980) + move_run(2, 2));
  const Report r = report_of(one_model.path());
  ASSERT_EQ(r.models.size(), 1u);
  EXPECT_EQ(r.models[0].device_ids, (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(r.models[0].label(), "NVIDIA H200 · 132 SMs · 140 GiB · 1980 MHz");
  const ModelEntry& small = entry(r, 1024);
  EXPECT_EQ(small.device_id, 2);
  EXPECT_EQ(small.run, 2);
  EXPECT_DOUBLE_EQ(small.median_ms, 0.0688);
  for (const Alternative& a : small.alternatives) EXPECT_EQ(a.run, 2) << a.method;
  EXPECT_EQ(alternative(small, "cublaslt_fused")->status, "launch_failed");
  ASSERT_NE(small.fastest_alternative(), nullptr);
  EXPECT_EQ(small.fastest_alternative()->method, "unfused");  // 0.0688: cuBLAS GEMM alone computes no GELU
  EXPECT_DOUBLE_EQ(*small.speedup(), 0.0688 / 0.0688);

  Copy two_models("fixture.db", twin_device(2, 1755) + move_run(2, 2));
  const Report s = report_of(two_models.path());
  ASSERT_EQ(s.models.size(), 2u);
  EXPECT_EQ(s.models[0].device_ids, std::vector<std::int64_t>{1});
  EXPECT_EQ(s.models[0].slug(s.models), "nvidia-h200-132sm-1980mhz");
  const ModelEntry& own = entry(s, 1024, "flush_b2b", 0);
  EXPECT_EQ(own.run, 1);
  EXPECT_DOUBLE_EQ(own.median_ms, 0.0703);
  EXPECT_EQ(entry(s, 1024, "flush_b2b", 1).run, 2);
}

// Run 2 rested (an idle gap between samples): 1024³ has an entry per protocol, each with its own
// run's rows only; the answer takes the more preferred protocol (back to back before rested),
// not the faster fused row (run 2's).
TEST(ByModel, EachProtocolIsItsOwnEntryAndTheAnswerTakesThePreferredOne) {
  Copy rested("fixture.db",
              "UPDATE runs SET harness_json = json_set(harness_json, '$.sample_gap_ms', 5) WHERE id = 2;"
              "UPDATE measurements SET protocol = 'flush_rested' WHERE run_id = 2;");
  const Report r = report_of(rested.path());
  const ModelEntry& b2b = entry(r, 1024, "flush_b2b");
  const ModelEntry& gap = entry(r, 1024, "flush_rested");
  EXPECT_EQ(b2b.run, 1);
  EXPECT_EQ(gap.run, 2);
  for (const Alternative& a : b2b.alternatives) EXPECT_EQ(a.run, 1);
  for (const Alternative& a : gap.alternatives) EXPECT_EQ(a.run, 2);
  std::size_t at_1024 = 0;
  for (const ModelEntry* e : answer_entries(r.entries))
    if (e->m == 1024) {
      ++at_1024;
      EXPECT_EQ(e->protocol, "flush_b2b");
    }
  EXPECT_EQ(at_1024, 1u);
}

// Peers of the sitting: a run on the fused row's device, in its protocol, at most
// kSittingGapHours from its run. Run 3 (30 minutes after run 1, back to back) is taken; run 4
// (the same time, spun before each sample) is of another protocol; run 5 (3 hours after) is of
// another sitting; run 6 is on another device. The triton of run 3 is the fastest alternative at
// 4096³; with --run no peer is shown.
TEST(ByModel, PeersComeFromTheSittingOnlyInTheFusedRowsProtocol) {
  auto peer_run = [](int id, int device, const std::string& start, const std::string& harness, double ms) {
    const std::string i = std::to_string(id);
    return "INSERT INTO runs (id, device_id, status, started_at, ended_at, resume_key, tool, tool_version, git_revision, "
           "command_line, host, harness_json) VALUES (" + i + ", " + std::to_string(device) + ", 'completed', '" + start +
           "', '" + start + "', 'peers" + i + "', 'torch_peers.py', '0.1.0', 'b1b1b1b1b1b1', 'torch_peers.py', 'host', '" +
           harness + "');"
           "INSERT INTO configs (name, family, params_json, source_hash) VALUES ('triton_f32_peer" + i + "', 'triton', '{}', 'h" + i + "');"
           "INSERT INTO measurements (run_id, device_id, problem_id, method, config_id, status, median_ms, min_ms, max_ms, "
           "p10_ms, p90_ms, rel_spread, samples, tflops, rel_err, max_abs_err) VALUES (" + i + ", " + std::to_string(device) +
           ", 2, 'triton', (SELECT id FROM configs WHERE name = 'triton_f32_peer" + i + "'), 'ok', " + std::to_string(ms) +
           ", " + std::to_string(ms * 0.99) + ", " + std::to_string(ms * 1.01) + ", " + std::to_string(ms * 0.995) + ", " +
           std::to_string(ms * 1.005) + ", 0.01, 50, 47, 1e-7, 1e-5);";
  };
  Copy peers("fixture.db", twin_device(2, 1980) +
                               peer_run(3, 1, "2025-01-01T10:39:30.000Z", "{}", 2.70) +
                               peer_run(4, 1, "2025-01-01T10:39:30.000Z", R"({"gpu_spin_cycles_before_each_sample":500000})", 2.60) +
                               peer_run(5, 1, "2025-01-01T13:10:00.000Z", "{}", 2.50) +
                               peer_run(6, 2, "2025-01-01T10:20:00.000Z", "{}", 2.40));
  const Report r = report_of(peers.path());
  const ModelEntry& large = entry(r, 4096);
  const Alternative* triton = alternative(large, "triton");
  ASSERT_NE(triton, nullptr);
  EXPECT_EQ(triton->run, 3);
  EXPECT_DOUBLE_EQ(*triton->median_ms, 2.70);
  EXPECT_EQ(large.fastest_alternative(), triton);
  // Runs 4 and 6 have no fused row of their own: nothing else names them.
  for (const ModelEntry& e : r.entries) EXPECT_EQ(e.protocol, "flush_b2b");

  Filters only_run_1;
  only_run_1.run = 1;
  EXPECT_EQ(alternative(entry(report_of(peers.path(), only_run_1), 4096), "triton"), nullptr);
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string tables_of(const fs::path& path) {
  auto db = db::Database::open(path, db::Mode::read_only);
  Document doc = build_model_report(db, {}, "x");
  doc.tables.erase(doc.tables.begin() + 2);  // models: it lists the devices holding any row
  std::ostringstream out;
  print_csv(doc, out);
  std::string text = out.str();
  return text.substr(text.find("# table "));
}

// The published database reports as the lab's does (the answer, every problem, the runs behind
// them), holds fewer rows, is a Coalesce database of the same schema, and the lab's file is not
// changed by a byte. Publishing into the lab itself, or over a file that is no Coalesce database,
// is refused with OUT as it was; --keep-run keeps a run's every row but its pruned candidates.
TEST(Publish, KeepsWhatTheReportCitesAndNothingElse) {
  Copy lab("fixture_msweep.db", "");
  const std::string before = slurp(lab.path());
  const fs::path out = lab.dir() / "published.db";
  const PublishResult r = publish_database({lab.path(), out, {}});
  EXPECT_EQ(slurp(lab.path()), before);
  EXPECT_LT(r.measurements, r.lab_measurements);
  EXPECT_EQ(r.bytes, fs::file_size(out));
  EXPECT_EQ(tables_of(out), tables_of(lab.path()));
  {
    auto db = db::Database::open(out, db::Mode::read_only);
    EXPECT_EQ(db.schema_version(), db::latest_schema_version());
    // No pruned candidate is cited: none is kept.
    EXPECT_EQ(db::as_int(db.query("SELECT count(*) FROM measurements WHERE status = 'pruned'").rows.at(0).at(0)), 0);
  }
  for (const char* side : {"-wal", "-shm", "-lock", ".publishing"}) EXPECT_FALSE(fs::exists(out.string() + side)) << side;

  EXPECT_THROW(publish_database({lab.path(), lab.path(), {}}), std::invalid_argument);
  EXPECT_EQ(slurp(lab.path()), before);
  const fs::path text = lab.dir() / "notes.txt";
  std::ofstream(text) << "mine\n";
  EXPECT_THROW(publish_database({lab.path(), text, {}}), std::invalid_argument);
  EXPECT_EQ(slurp(text), "mine\n");
  EXPECT_THROW(publish_database({lab.path(), out, {999}}), std::invalid_argument);

  // Again over the published file, keeping run 1 whole but for its pruned candidates.
  const PublishResult kept = publish_database({lab.path(), out, {1}});
  auto db = db::Database::open(out, db::Mode::read_only);
  auto lab_db = db::Database::open(lab.path(), db::Mode::read_only);
  const char* run_1 = "SELECT count(*) FROM measurements WHERE run_id = 1 AND status <> 'pruned'";
  EXPECT_EQ(db::as_int(db.query(run_1).rows.at(0).at(0)), db::as_int(lab_db.query(run_1).rows.at(0).at(0)));
  EXPECT_EQ(db::as_int(db.query("SELECT count(*) FROM measurements WHERE status = 'pruned'").rows.at(0).at(0)), 0);
  EXPECT_GT(kept.measurements, r.measurements);
}

}  // namespace
}  // namespace coalesce::report
