// `coalesce-tune record` (tuner/record.cpp) on feeds written here: good lines store the rows
// with the harness' statistics and verdict, a wrong result is stored without a timing, a bad
// line is refused with its number and leaves the database as it was, and a second feed of the
// same run resumes it without duplicates.
#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "schema/db.hpp"
#include "tests/unit/schema/test_util.hpp"
#include "tuner/record.hpp"

namespace coalesce::tuner {
namespace {

using Json = nlohmann::ordered_json;
using db::testing::TempDir;

constexpr const char* kUuid = "GPU-5e1f0c2a-0000-4000-8000-00000000feed";

/// The run header of a peer on an H200; 5 samples suffice (the harness' default is 20).
Json header(const std::string& resume_key = "torch_peers.py test") {
  return {{"kind", "run"},
          {"tool", "torch_peers.py"},
          {"tool_version", "0.1.0 (torch 2.11.0 cuda 13.0 triton 3.6.0)"},
          {"git_revision", "0123456789ab"},
          {"command_line", "scripts/torch_peers.py --shape 64"},
          {"host", "test-host"},
          {"resume_key", resume_key},
          {"driver_version", 13000},
          {"driver_release", "580.95.05"},
          {"runtime_version", 13000},
          {"device",
           {{"uuid", kUuid},
            {"name", "NVIDIA H200"},
            {"cc_major", 9},
            {"cc_minor", 0},
            {"sm_count", 132},
            {"l2_bytes", 62914560},
            {"global_mem_bytes", 150754820096LL},
            {"max_sm_clock_mhz", 1980},
            {"limits",
             {{"smem_per_block_optin", 232448},
              {"smem_per_sm", 233472},
              {"max_threads_per_block", 1024},
              {"max_threads_per_sm", 2048},
              {"regs_per_sm", 65536},
              {"max_regs_per_thread", 255},
              {"max_blocks_per_sm", 32}}}}},
          {"harness", {{"min_samples", 5}, {"torch", "2.11.0"}}}};
}

Json problem(int n = 64) {
  return {{"m", n}, {"n", n}, {"k", n}, {"dtype", "f32"}, {"epilogue", "bias_gelu"}};
}

/// Figures of a right f32 result on an n×n output.
Json good_errors(int n = 64) {
  return {{"rel_frobenius", 2.5e-7}, {"max_abs_err", 3e-6}, {"max_abs_ref", 9.0}, {"max_scaled_err", 1e-7},
          {"non_finite", 0},       {"count", n * n}};
}

/// A measurement line of `method` and `config` without samples or figures.
Json row(const std::string& method, const std::string& config) {
  const bool triton = method == "triton";
  return {{"kind", "measurement"},
          {"problem", problem()},
          {"method", method},
          {"family", triton ? "triton" : "torch"},
          {"config", config},
          {"params", triton ? Json{{"bm", 64}, {"bn", 32}} : Json{{"library", "torch"}}},
          {"source_hash", "h1"}};
}

Json ok_row(const std::string& method, const std::string& config, std::vector<double> samples) {
  Json j = row(method, config);
  j["samples_ms"] = samples;
  j["errors"] = good_errors();
  j["message"] = "PyTorch eager";
  return j;
}

Json end_line(const std::string& status = "completed") { return {{"kind", "end"}, {"status", status}}; }

std::string feed(std::initializer_list<Json> lines) {
  std::string out;
  for (const Json& j : lines) out += j.dump() + "\n";
  return out;
}

/// What run_record returned and answered.
struct Result {
  int code = -1;
  std::vector<Json> replies;
};

Result record(const std::filesystem::path& db, const std::string& text) {
  std::istringstream in(text);
  std::ostringstream out;
  Result r;
  r.code = run_record(db, in, out);
  std::istringstream lines(out.str());
  for (std::string line; std::getline(lines, line);) r.replies.push_back(Json::parse(line));
  return r;
}

/// The message of the FeedError (or db::Error) a feed is refused with.
std::string refusal(const std::filesystem::path& db, const std::string& text) {
  std::istringstream in(text);
  std::ostringstream out;
  try {
    run_record(db, in, out);
  } catch (const FeedError& e) {
    return e.what();
  } catch (const db::Error& e) {
    return std::string("db::Error: ") + e.what();
  }
  ADD_FAILURE() << "the feed was accepted:\n" << text;
  return "";
}

db::ResultSet query(const std::filesystem::path& path, const std::string& sql) {
  return db::Database::open(path, db::Mode::read_only).query(sql);
}

/// Every stored row of the tables a feed writes, as text: equal dumps are equal databases.
std::string dump(const std::filesystem::path& path) {
  std::string out;
  for (const char* table : {"devices", "runs", "problems", "configs", "measurements"}) {
    for (const auto& r : query(path, std::string("SELECT * FROM ") + table + " ORDER BY id").rows) {
      out += table;
      for (const db::Value& v : r) out += "|" + db::as_text(v);
      out += "\n";
    }
  }
  return out;
}

TEST(Record, GoodLinesStoreTheRowsWithTheHarnessStatistics) {
  TempDir dir;
  const auto db = dir / "peers.db";
  // torch_eager's samples inline; triton's fed one by one and stopped by the harness' rule
  // (five equal samples: the mean is known exactly, "converged"); torch_compile failed.
  Json triton = row("triton", "triton_f32_bm64_bn32_bias_gelu");
  triton["errors"] = good_errors();
  triton["errors_after"] = good_errors();
  triton["grid_blocks"] = 2;
  triton["sm_clock_before_mhz"] = 1980;
  triton["sm_clock_after_mhz"] = 1965;
  Json failed = row("torch_compile", "torch_compile_default_f32_bias_gelu");
  failed["status"] = "compile_failed";
  failed["message"] = "BackendCompilerFailed: no";
  std::string text = feed({header(), ok_row("torch_eager", "torch_eager_f32_bias_gelu", {5, 1, 4, 2, 3})});
  for (int i = 0; i < 5; ++i) text += feed({{{"kind", "sample"}, {"ms", 0.25}}});
  text += feed({triton, failed, end_line()});

  const Result r = record(db, text);
  ASSERT_EQ(r.code, 0);
  ASSERT_EQ(r.replies.size(), 10u);
  EXPECT_EQ(r.replies[0]["kind"], "run");
  EXPECT_EQ(r.replies[0]["harness"]["min_samples"], 5);
  EXPECT_EQ(r.replies[0]["harness"]["budget_ms"], 2000.0);  // the C++ default, not restated by the peer
  EXPECT_EQ(r.replies[1]["stored"], true);
  EXPECT_DOUBLE_EQ(r.replies[1]["median_ms"].get<double>(), 3.0);
  for (int i = 2; i < 6; ++i) EXPECT_TRUE(r.replies[i]["stop"].is_null()) << r.replies[i].dump();
  EXPECT_EQ(r.replies[6]["stop"], "converged");
  EXPECT_EQ(r.replies[6]["samples"], 5);
  EXPECT_EQ(r.replies[9]["stored"], 3);

  // Hand-computed: sorted 1..5, p10 at rank 0.4 = 1.4, p90 at rank 3.6 = 4.6.
  auto eager = query(db, R"sql(
    SELECT status, median_ms, min_ms, max_ms, p10_ms, p90_ms, samples, rel_spread, tflops, rel_err,
           max_abs_err, message, family, config_name, params_json, source_hash, m, dtype
    FROM v_measurements WHERE method = 'torch_eager')sql").rows.at(0);
  EXPECT_EQ(db::as_text(eager[0]), "ok");
  EXPECT_DOUBLE_EQ(db::as_double(eager[1]), 3.0);
  EXPECT_DOUBLE_EQ(db::as_double(eager[2]), 1.0);
  EXPECT_DOUBLE_EQ(db::as_double(eager[3]), 5.0);
  EXPECT_NEAR(db::as_double(eager[4]), 1.4, 1e-12);
  EXPECT_NEAR(db::as_double(eager[5]), 4.6, 1e-12);
  EXPECT_EQ(db::as_int(eager[6]), 5);
  EXPECT_NEAR(db::as_double(eager[7]), 3.2 / 3.0, 1e-12);
  EXPECT_NEAR(db::as_double(eager[8]), 2.0 * 64 * 64 * 64 / 3e9, 1e-15);
  EXPECT_DOUBLE_EQ(db::as_double(eager[9]), 2.5e-7);
  EXPECT_DOUBLE_EQ(db::as_double(eager[10]), 3e-6);
  EXPECT_EQ(db::as_text(eager[11]), "PyTorch eager");
  EXPECT_EQ(db::as_text(eager[12]), "torch");
  EXPECT_EQ(db::as_text(eager[13]), "torch_eager_f32_bias_gelu");
  EXPECT_EQ(db::as_text(eager[14]), R"({"library":"torch"})");
  EXPECT_EQ(db::as_text(eager[15]), "h1");
  EXPECT_EQ(db::as_int(eager[16]), 64);
  EXPECT_EQ(db::as_text(eager[17]), "f32");

  auto fed = query(db, R"sql(
    SELECT status, median_ms, samples, message, grid_blocks, sm_clock_before_mhz, sm_clock_after_mhz,
           params_json
    FROM v_measurements WHERE method = 'triton')sql").rows.at(0);
  EXPECT_EQ(db::as_text(fed[0]), "ok");
  EXPECT_DOUBLE_EQ(db::as_double(fed[1]), 0.25);
  EXPECT_EQ(db::as_int(fed[2]), 5);
  EXPECT_EQ(db::as_text(fed[3]), "stop: converged");
  EXPECT_EQ(db::as_int(fed[4]), 2);
  EXPECT_EQ(db::as_int(fed[5]), 1980);
  EXPECT_EQ(db::as_int(fed[6]), 1965);
  EXPECT_EQ(db::as_text(fed[7]), R"({"bm":64,"bn":32})");  // the peer's key order

  auto compile = query(db, "SELECT status, median_ms, rel_err, message FROM measurements WHERE method = "
                           "'torch_compile'").rows.at(0);
  EXPECT_EQ(db::as_text(compile[0]), "compile_failed");
  EXPECT_TRUE(db::is_null(compile[1]));
  EXPECT_TRUE(db::is_null(compile[2]));
  EXPECT_EQ(db::as_text(compile[3]), "BackendCompilerFailed: no");

  auto run = query(db, "SELECT r.status, r.tool, r.resume_key, r.driver_release, json_extract(r.harness_json, "
                       "'$.min_samples'), json_extract(r.harness_json, '$.torch'), d.uuid, d.sm_count, "
                       "d.fp32_lanes_per_sm, d.arch FROM runs r JOIN devices d ON d.id = r.device_id").rows;
  ASSERT_EQ(run.size(), 1u);
  EXPECT_EQ(db::as_text(run[0][0]), "completed");
  EXPECT_EQ(db::as_text(run[0][1]), "torch_peers.py");
  EXPECT_EQ(db::as_text(run[0][2]), "torch_peers.py test");
  EXPECT_EQ(db::as_text(run[0][3]), "580.95.05");
  EXPECT_EQ(db::as_int(run[0][4]), 5);
  EXPECT_EQ(db::as_text(run[0][5]), "2.11.0");
  EXPECT_EQ(db::as_text(run[0][6]), kUuid);
  EXPECT_EQ(db::as_int(run[0][7]), 132);
  EXPECT_EQ(db::as_int(run[0][8]), 128);
  EXPECT_EQ(db::as_text(run[0][9]), "sm_90");
}

TEST(Record, AWrongResultIsStoredWithItsFiguresAndNoTiming) {
  TempDir dir;
  const auto db = dir / "peers.db";
  // TF32-sized errors fail the f32 tolerance (harness/check.hpp); the samples are dropped.
  Json tf32 = ok_row("torch_eager", "torch_eager_f32_bias_gelu", {1, 2, 3, 4, 5});
  tf32["errors"]["rel_frobenius"] = 3e-4;
  // Right before timing, wrong on the last timed output.
  Json race = ok_row("triton", "triton_f32_bm64_bn32_bias_gelu", {1, 2, 3, 4, 5});
  race["errors_after"] = good_errors();
  race["errors_after"]["non_finite"] = 7;
  race["message"] = "Triton";
  const Result r = record(db, feed({header(), tf32, race, end_line()}));
  ASSERT_EQ(r.code, 0);
  EXPECT_EQ(r.replies[1]["status"], "wrong_result");
  EXPECT_FALSE(r.replies[1].contains("median_ms"));

  auto rows = query(db, "SELECT method, status, median_ms, samples, tflops, rel_err, max_abs_err, message "
                        "FROM measurements ORDER BY id").rows;
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& w : rows) {
    EXPECT_EQ(db::as_text(w[1]), "wrong_result");
    for (int i : {2, 3, 4}) EXPECT_TRUE(db::is_null(w[i])) << db::as_text(w[0]) << " column " << i;
  }
  EXPECT_DOUBLE_EQ(db::as_double(rows[0][5]), 3e-4);
  EXPECT_DOUBLE_EQ(db::as_double(rows[0][6]), 3e-6);
  EXPECT_EQ(db::as_text(rows[0][7]), "relative Frobenius error 0.0003 exceeds 4.53e-06; PyTorch eager");
  EXPECT_EQ(db::as_text(rows[1][7]),
            "wrong after repeated runs (a race?): 7 of 4096 outputs are NaN or infinite (unwritten or overflowed); "
            "Triton");
}

TEST(Record, BadLinesAreRefusedWithTheirNumberAndTheDatabaseUnchanged) {
  TempDir dir;
  const auto db = dir / "peers.db";
  // A database with a completed run of rows to keep.
  ASSERT_EQ(record(db, feed({header("earlier"), ok_row("torch_eager", "torch_eager_f32_bias_gelu", {1, 2, 3, 4, 5}),
                             end_line()}))
                .code,
            0);
  const std::string before = db::testing::contents(db);
  const std::string good = ok_row("triton", "triton_f32_bm64_bn32_bias_gelu", {1, 2, 3, 4, 5}).dump();

  auto with = [](Json j, const char* key, Json value) {
    j[key] = std::move(value);
    return j;
  };
  auto without = [](Json j, const char* key) {
    j.erase(key);
    return j;
  };
  Json big_count = ok_row("triton", "triton_f32_bm64_bn32_bias_gelu", {1, 2, 3, 4, 5});
  big_count["errors"]["count"] = 100;
  Json typo = ok_row("triton", "triton_f32_bm64_bn32_bias_gelu", {1, 2, 3, 4, 5});
  typo["sample_ms"] = Json::array({1});
  const Json ok = ok_row("triton", "triton_f32_bm64_bn32_bias_gelu", {1, 2, 3, 4, 5});
  const std::string h = header().dump() + "\n";
  const struct {
    std::string feed;
    std::string says;
  } cases[] = {
      {"", "line 1: the feed is empty"},
      {"\n{\"kind\": \"run\"\n", "line 2: not valid JSON"},
      {"[1, 2]\n", "line 1: not a JSON object"},
      {good + "\n", "line 1: the first line must be the run header"},
      {without(header(), "resume_key").dump() + "\n", "line 1: \"resume_key\" is missing"},
      {with(header(), "harness", {{"min_samples", "many"}}).dump() + "\n",
       "line 1: \"harness\" holds a timing setting"},
      {with(header(), "harness", {{"min_samples", 0}}).dump() + "\n", "line 1: \"harness\" settings are out of range"},
      {h + h, "line 2: a second run header"},
      {h + with(ok, "method", "eager").dump() + "\n", "line 2: \"method\" 'eager' is measured by coalesce-tune sweep"},
      {h + with(ok, "method", "jax").dump() + "\n", "line 2: \"method\" 'jax' is not a method"},
      {h + with(ok, "problem", with(problem(), "dtype", "f64")).dump() + "\n",
       "\"problem.dtype\" 'f64' is not a dtype"},
      {h + with(ok, "problem", with(problem(), "m", 0)).dump() + "\n", "\"problem.m\" must be a positive integer"},
      {h + with(ok, "config", "Triton-Big").dump() + "\n", "\"config\" 'Triton-Big' is not a lower-case identifier"},
      {h + with(ok, "samples_ms", Json::array({1, -2})).dump() + "\n", "element 1 is -2"},
      {h + with(ok, "samples_ms", Json::array({1, 2})).dump() + "\n",
       "2 samples, fewer than the harness' min_samples (5)"},
      {h + without(ok, "samples_ms").dump() + "\n", "needs its samples"},
      {h + without(ok, "errors").dump() + "\n", "line 2: \"errors\" is missing"},
      {h + big_count.dump() + "\n", "\"errors.count\" is 100, not the number of C's elements, M·N = 4096"},
      {h + with(with(ok, "problem", with(problem(), "epilogue", "swiglu")), "config", "torch_eager_f32_swiglu").dump() +
           "\n",
       "\"errors.count\" is 4096, not the number of C's elements, M·N/2 = 2048"},
      {h + typo.dump() + "\n", "unknown field \"sample_ms\" in a measurement line"},
      {h + with(ok, "status", "ok").dump() + "\n", "\"status\" 'ok' is not one a peer reports"},
      {h + with(ok, "status", "launch_failed").dump() + "\n", "a launch_failed line carries no \"samples_ms\""},
      {h + with(ok, "reference", "sigmoid").dump() + "\n", "\"reference\" 'sigmoid' is not a GELU form"},
      {h + "{\"kind\": \"sample\", \"ms\": 1}\n" + ok.dump() + "\n", "line 3: samples given twice"},
      {h + "{\"kind\": \"sample\", \"ms\": 1}\n" + without(ok, "samples_ms").dump() + "\n", "line 3: 1 sample, fewer"},
      {h + "{\"kind\": \"sample\", \"ms\": 0}\n", "line 2: \"ms\" must be a positive number"},
      {h + "{\"kind\": \"bench\"}\n", "line 2: \"kind\" 'bench' is not a line kind"},
      {h + end_line("done").dump() + "\n", "\"status\" 'done' is not how a run ends"},
      {h + end_line().dump() + "\n" + good + "\n", "line 3: nothing may follow the end line"},
  };
  for (const auto& c : cases) {
    const std::string why = refusal(db, c.feed);
    EXPECT_NE(why.find(c.says), std::string::npos) << "refused with: " << why << "\nexpected: " << c.says;
    EXPECT_EQ(why.find('\n'), std::string::npos) << why;
    EXPECT_EQ(db::testing::contents(db), before) << c.says;  // byte for byte: never opened
  }
  EXPECT_EQ(dir.listing(), "peers.db");  // no -wal, -shm or -lock left behind

  // A bad line after a probe opened the database: every stored row stays as it was.
  const std::string rows = dump(db);
  Json probe = {{"kind", "measured"},
                {"problem", problem()},
                {"method", "torch_eager"},
                {"config", "torch_eager_f32_bias_gelu"},
                {"source_hash", "h1"}};
  EXPECT_NE(refusal(db, h + probe.dump() + "\n" + with(ok, "errors", 1).dump() + "\n").find(
                "line 3: \"errors\" must be a JSON object"),
            std::string::npos);
  EXPECT_EQ(dump(db), rows);

  // A bad line after a good one: the good row stays, the run ends failed.
  const std::string why = refusal(db, h + good + "\n" + with(ok, "config", "x-y").dump() + "\n");
  EXPECT_NE(why.find("line 3: "), std::string::npos) << why;
  EXPECT_EQ(query(db, "SELECT COUNT(*) FROM measurements WHERE method = 'triton'").rows[0][0],
            db::Value(std::int64_t{1}));
  EXPECT_EQ(query(db, "SELECT status FROM runs ORDER BY id DESC LIMIT 1").rows[0][0], db::Value(std::string("failed")));
}

TEST(Record, ASecondFeedOfTheSameRunResumesWithoutDuplicates) {
  TempDir dir;
  const auto db = dir / "peers.db";
  const Json eager = ok_row("torch_eager", "torch_eager_f32_bias_gelu", {1, 2, 3, 4, 5});
  const Json triton = ok_row("triton", "triton_f32_bm64_bn32_bias_gelu", {2, 2, 2, 2, 2});
  Json compile = ok_row("torch_compile", "torch_compile_default_f32_bias_gelu", {3, 3, 3, 3, 3});

  // Cut after two rows (the peer died): the run is left interrupted.
  Result first = record(db, feed({header(), eager, triton}));
  EXPECT_EQ(first.code, 1);
  EXPECT_EQ(query(db, "SELECT status FROM runs").rows.at(0)[0], db::Value(std::string("interrupted")));

  // The same feed again, whole: the stored rows are answered as such, the rest is stored in the
  // same run.
  Json probe = {{"kind", "measured"},
                {"problem", problem()},
                {"method", "triton"},
                {"config", "triton_f32_bm64_bn32_bias_gelu"},
                {"source_hash", "h1"}};
  Json fresh_probe = probe;
  fresh_probe["source_hash"] = "h2";  // another script version: not measured yet
  Result second = record(db, feed({header(), probe, fresh_probe, eager, triton, compile, end_line()}));
  ASSERT_EQ(second.code, 0);
  EXPECT_EQ(second.replies[1]["measured"], true);
  EXPECT_EQ(second.replies[1]["status"], "ok");
  EXPECT_EQ(second.replies[2]["measured"], false);
  EXPECT_EQ(second.replies[3]["stored"], false);
  EXPECT_EQ(second.replies[4]["stored"], false);
  EXPECT_EQ(second.replies[5]["stored"], true);
  EXPECT_EQ(second.replies[6]["stored"], 1);

  auto runs = query(db, "SELECT id, status, resumed FROM runs").rows;
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(db::as_text(runs[0][1]), "completed");
  EXPECT_EQ(db::as_int(runs[0][2]), 1);
  EXPECT_EQ(query(db, "SELECT COUNT(*), COUNT(DISTINCT method), MIN(run_id) = MAX(run_id) FROM measurements").rows[0],
            (std::vector<db::Value>{std::int64_t{3}, std::int64_t{3}, std::int64_t{1}}));

  // Everything stored: a third feed opens no run and stores nothing.
  Result third = record(db, feed({header("another key"), eager, end_line()}));
  ASSERT_EQ(third.code, 0);
  EXPECT_TRUE(third.replies.back()["run"].is_null());
  EXPECT_EQ(query(db, "SELECT COUNT(*) FROM runs").rows[0][0], db::Value(std::int64_t{1}));
}

TEST(Record, AStoredDeviceIsUsedAsStoredEvenInItsLegacyForm) {
  TempDir dir;
  const auto db = dir / "peers.db";
  {
    auto d = db::Database::open(db, db::Mode::read_write);
    db::DeviceRow legacy = db::testing::h200(std::string(kUuid).substr(0, 39));
    legacy.limits.max_blocks_per_sm = 24;  // the tuner's own query: kept
    d.upsert_device(legacy);
  }
  ASSERT_EQ(record(db, feed({header(), end_line()})).code, 0);
  auto devices = query(db, "SELECT uuid, max_blocks_per_sm FROM devices").rows;
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(db::as_int(devices[0][1]), 24);
}

}  // namespace
}  // namespace coalesce::tuner
