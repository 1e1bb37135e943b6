// `coalesce-tune record-profile` (tuner/record_profile.cpp) on profiles written here: a good page
// is stored with its columns in fixed units, the same page again is a no-op and other figures
// under its key are refused, and a device, problem or config the database does not hold, or a
// page that does not fit the flags, is refused in one sentence with nothing written.
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <tuple>

#include "schema/db.hpp"
#include "tests/unit/schema/test_util.hpp"
#include "tuner/record_profile.hpp"

namespace coalesce::tuner {
namespace {

using Json = nlohmann::ordered_json;
using db::testing::h200;
using db::testing::ok_row;
using db::testing::run_info;
using db::testing::TempDir;

constexpr const char* kUuid = "GPU-2185eaba-d202-099e-c7b2-3f6718475afa";
constexpr const char* kMma = "mma_bf16_bm256_bn128_kb128_wm64_wn64_s3_v16_sw1_g8_o1_bias_gelu";
constexpr const char* kWgmma = "wgmma_bf16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_bias_gelu";
const Problem k4096{4096, 4096, 4096, Dtype::bf16, Epilogue::bias_gelu};

/// A database as a sweep leaves it: the H200, 4096³ bf16 measured with the mma config, the
/// wgmma config under two source hashes (a kernel template changed between two sweeps), cuBLAS.
struct Swept {
  TempDir dir;
  std::filesystem::path path = dir / "c.db";
  Swept() {
    auto db = db::Database::open(path, db::Mode::read_write);
    const db::DeviceId dev = db.upsert_device(h200(kUuid));
    const db::RunId run = db.begin_run(run_info(dev, "sweep 4096 bf16"));
    const db::ProblemId prob = db.upsert_problem(k4096);
    db.upsert_problem({1024, 1024, 1024, Dtype::bf16, Epilogue::bias_gelu});
    for (const auto& [family, name, hash] : {std::tuple{"mma", kMma, "ce0dd74d1092aa"},
                                             std::tuple{"wgmma", kWgmma, "ac20bbec0d71bb"},
                                             std::tuple{"wgmma", kWgmma, "5f565f273e86cc"}}) {
      const db::ConfigId c = db.upsert_config({family, name, "{}", hash});
      db.insert_measurement(ok_row(run, dev, prob, "coalesce", c, 0.3));
    }
    db.insert_measurement(ok_row(run, dev, prob, "cublas_gemm", std::nullopt, 0.19));
    db.end_run(run, db::RunStatus::completed);
  }
  std::int64_t profiles() const {
    auto db = db::Database::open(path, db::Mode::read_only);
    return db::as_int(db.query("SELECT count(*) FROM profiles").rows[0][0]);
  }
};

/// A page of the mma kernel as scripts/ncu_summary.py sends it (figures of run D's page; the
/// duration in ns and the tensor pipe by its HMMA name only, as some pages print them).
Json mma_page() {
  return {{"kernel", kMma},
          {"tool", "ncu"},
          {"tool_version", "2025.3.1.0"},
          {"profiled_at", "2026-11-30T13:10:50Z"},
          {"metrics",
           {{"device__attribute_display_name", "NVIDIA H200"},
            {"gpu__time_duration.sum", 307840},
            {"sm__cycles_elapsed.avg.per_second", 1.743762},
            {"sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", 74.157554},
            {"sm__warps_active.avg.pct_of_peak_sustained_active", 12.493422},
            {"launch__registers_per_thread", 234},
            {"smsp__average_warps_issue_stalled_wait_per_issue_active.ratio", 2.33}}},
          {"units",
           {{"gpu__time_duration.sum", "ns"},
            {"sm__cycles_elapsed.avg.per_second", "Ghz"},
            {"sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", "%"},
            {"sm__warps_active.avg.pct_of_peak_sustained_active", "%"},
            {"launch__registers_per_thread", "register/thread"}}}};
}

ProfileTarget mma_target() { return {kUuid, k4096, "coalesce", kMma, ""}; }

/// Runs the recorder; its one line of output.
std::string record(const Swept& s, const ProfileTarget& t, const Json& page) {
  std::istringstream in(page.dump());
  std::ostringstream out;
  EXPECT_EQ(record_profile(s.path, t, in, out), 0);
  return out.str();
}

/// Every byte of `path` ("" when it does not exist).
std::string bytes_of(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// The message of what the recorder throws, which must be E; the database's bytes and its
/// directory's listing are as they were (issue 45: a refusal rewrote the file).
template <class E>
std::string refusal(const Swept& s, const ProfileTarget& t, const std::string& page) {
  std::istringstream in(page);
  std::ostringstream out;
  const std::string before = bytes_of(s.path);
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(s.path.parent_path())) ++files;
  try {
    record_profile(s.path, t, in, out);
  } catch (const E& e) {
    EXPECT_EQ(out.str(), "");
    EXPECT_TRUE(bytes_of(s.path) == before) << "a refusal changed the bytes of " << s.path;
    std::size_t after = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(s.path.parent_path())) ++after;
    EXPECT_EQ(after, files) << "a refusal left a file beside " << s.path;
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "one line: " << e.what();
    return e.what();
  }
  ADD_FAILURE() << "not refused";
  return "";
}

TEST(RecordProfile, AGoodPageIsStoredWithItsColumnsInFixedUnits) {
  Swept s;
  EXPECT_EQ(record(s, mma_target(), mma_page()),
            "stored profile 1 in " + s.path.string() + ": " + kMma + " (coalesce) of 4096x4096x4096 bf16 bias_gelu on " +
                kUuid + "\n");
  auto db = db::Database::open(s.path, db::Mode::read_only);
  auto row = db.query(R"sql(
    SELECT d.uuid, p.m, p.dtype, x.method, c.source_hash, x.kernel, x.tool, x.tool_version, x.profiled_at,
           x.duration_us, x.sm_clock_mhz, x.tensor_pipe_active_pct, x.achieved_occupancy_pct, x.registers,
           json_extract(x.metrics_json, '$."gpu__time_duration.sum"'),
           json_extract(x.units_json, '$."sm__cycles_elapsed.avg.per_second"')
    FROM profiles x JOIN devices d ON d.id = x.device_id JOIN problems p ON p.id = x.problem_id
    JOIN configs c ON c.id = x.config_id)sql").rows;
  ASSERT_EQ(row.size(), 1u);
  const auto& r = row[0];
  EXPECT_EQ(db::as_text(r[0]), kUuid);
  EXPECT_EQ(db::as_int(r[1]), 4096);
  EXPECT_EQ(db::as_text(r[2]), "bf16");
  EXPECT_EQ(db::as_text(r[3]), "coalesce");
  EXPECT_EQ(db::as_text(r[4]), "ce0dd74d1092aa");
  EXPECT_EQ(db::as_text(r[5]), kMma);
  EXPECT_EQ(db::as_text(r[6]), "ncu");
  EXPECT_EQ(db::as_text(r[7]), "2025.3.1.0");
  EXPECT_EQ(db::as_text(r[8]), "2026-11-30T13:10:50Z");
  EXPECT_NEAR(db::as_double(r[9]), 307.84, 1e-9);     // ns -> µs
  EXPECT_NEAR(db::as_double(r[10]), 1743.762, 1e-9);  // GHz -> MHz
  EXPECT_NEAR(db::as_double(r[11]), 74.157554, 1e-12);
  EXPECT_NEAR(db::as_double(r[12]), 12.493422, 1e-12);
  EXPECT_EQ(db::as_int(r[13]), 234);
  EXPECT_EQ(db::as_int(r[14]), 307840);  // the metrics as the page printed them
  EXPECT_EQ(db::as_text(r[15]), "Ghz");
}

TEST(RecordProfile, TheSamePageAgainIsANoOpAndOtherFiguresAreRefused) {
  Swept s;
  record(s, mma_target(), mma_page());
  EXPECT_EQ(record(s, mma_target(), mma_page()),
            "already stored: profile 1 in " + s.path.string() + ": " + kMma +
                " (coalesce) of 4096x4096x4096 bf16 bias_gelu on " + kUuid + "\n");
  Json later = mma_page();
  later["metrics"]["gpu__time_duration.sum"] = 301000;
  EXPECT_EQ(refusal<ProfileRefused>(s, mma_target(), later.dump()),
            "a profile of " + std::string(kMma) + " (coalesce) of 4096x4096x4096 bf16 bias_gelu on " + kUuid +
                " is stored in " + s.path.string() + " already (profile 1) with other figures: not stored");
  EXPECT_EQ(s.profiles(), 1);
}

// A library kernel has no config; the tensor pipe is read from its roll-up of every tensor
// instruction when the page has it.
TEST(RecordProfile, ALibraryKernelIsStoredWithoutAConfig) {
  Swept s;
  Json page = mma_page();
  page["kernel"] = "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT";
  page["metrics"]["sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"] = 94.993824;
  page["units"]["sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"] = "%";
  const ProfileTarget cublas{kUuid, k4096, "cublas_gemm", "", ""};
  EXPECT_NE(record(s, cublas, page).find("stored profile 1"), std::string::npos);
  auto db = db::Database::open(s.path, db::Mode::read_only);
  auto r = db.query("SELECT config_id IS NULL, tensor_pipe_active_pct FROM profiles").rows.at(0);
  EXPECT_EQ(db::as_int(r[0]), 1);
  EXPECT_NEAR(db::as_double(r[1]), 94.993824, 1e-12);
}

// The device, problem and config must be the database's: each refusal is one sentence naming
// what is missing and the file, and nothing is stored.
TEST(RecordProfile, WhatTheDatabaseDoesNotHoldIsRefused) {
  Swept s;
  const std::string where = s.path.string();
  ProfileTarget t = mma_target();
  t.device = "GPU-00000000-0000-0000-0000-000000000000";
  EXPECT_EQ(refusal<ProfileRefused>(s, t, mma_page().dump()),
            "no device GPU-00000000-0000-0000-0000-000000000000 in " + where +
                ": a profile belongs to a GPU the database holds");
  t = mma_target();
  t.problem.m = 4000;
  EXPECT_EQ(refusal<ProfileRefused>(s, t, mma_page().dump()),
            "no problem 4000x4096x4096 bf16 bias_gelu in " + where + ": a profile goes beside the rows it explains");
  const ProfileTarget peer{kUuid, k4096, "triton", "triton_bf16_bm128_bn128_bk64_w8_s3_bias_gelu", ""};
  Json triton = mma_page();
  triton["kernel"] = "matmul_kernel";
  EXPECT_EQ(refusal<ProfileRefused>(s, peer, triton.dump()),
            "no config triton_bf16_bm128_bn128_bk64_w8_s3_bias_gelu in " + where);
  t = mma_target();
  t.problem = {1024, 1024, 1024, Dtype::bf16, Epilogue::bias_gelu};
  EXPECT_EQ(refusal<ProfileRefused>(s, t, mma_page().dump()),
            "config " + std::string(kMma) + " has no measurement of 1024x1024x1024 bf16 bias_gelu in " + where +
                ": a profile goes beside the rows it explains");
  Json h100 = mma_page();
  h100["metrics"]["device__attribute_display_name"] = "NVIDIA H100 80GB HBM3";
  EXPECT_EQ(refusal<ProfileRefused>(s, mma_target(), h100.dump()),
            "the page's GPU is NVIDIA H100 80GB HBM3, and " + std::string(kUuid) + " in " + where + " is NVIDIA H200");
  EXPECT_EQ(s.profiles(), 0);
}

// A config name stored with two source hashes (the template changed between sweeps) needs the
// hash that was profiled; a prefix of it is enough.
TEST(RecordProfile, AnAmbiguousConfigNeedsItsSourceHash) {
  Swept s;
  Json page = mma_page();
  page["kernel"] = kWgmma;
  ProfileTarget t{kUuid, k4096, "coalesce", kWgmma, ""};
  EXPECT_EQ(refusal<ProfileRefused>(s, t, page.dump()),
            "config " + std::string(kWgmma) + " is stored with 2 source hashes in " + s.path.string() +
                " (ac20bbec0d71, 5f565f273e86): say which one was profiled with --source-hash");
  t.source_hash = "ac20bb";
  EXPECT_NE(record(s, t, page).find("stored profile 1"), std::string::npos);
  auto db = db::Database::open(s.path, db::Mode::read_only);
  EXPECT_EQ(db::as_text(db.query("SELECT c.source_hash FROM profiles p JOIN configs c ON c.id = p.config_id")
                            .rows.at(0).at(0)),
            "ac20bbec0d71bb");
}

// What is wrong with the page or the flags is found before the database is opened.
TEST(RecordProfile, APageThatDoesNotFitTheFlagsIsRefused) {
  Swept s;
  auto input_error = [&](const ProfileTarget& t, const std::string& page) {
    return refusal<ProfileInputError>(s, t, page);
  };
  ProfileTarget t = mma_target();
  t.config = "mma_bf16_bm128_bn128_kb64_wm64_wn64_s3_v16_sw1_g8_o1_bias_gelu";
  EXPECT_EQ(input_error(t, mma_page().dump()),
            "the page's kernel is " + std::string(kMma) + ", not the config's kernel " + t.config +
                " (a coalesce kernel is named after its config)");
  EXPECT_EQ(input_error({kUuid, k4096, "cublas_gemm", kMma, ""}, mma_page().dump()),
            "--method cublas_gemm is a library baseline, which has no config: drop --config");
  EXPECT_EQ(input_error({kUuid, k4096, "coalesce", "", ""}, mma_page().dump()),
            "--method coalesce runs a config: name it with --config");
  EXPECT_NE(input_error({kUuid, k4096, "ncu", "", ""}, mma_page().dump()).find("--method 'ncu' is not a method"),
            std::string::npos);
  EXPECT_EQ(input_error(mma_target(), "ID,Kernel Name\n"),
            "the profile on stdin: not one JSON object (scripts/ncu_summary.py --db writes it)");
  Json extra = mma_page();
  extra["host"] = "h";
  EXPECT_EQ(input_error(mma_target(), extra.dump()), "the profile on stdin: unknown field \"host\"");
  Json no_metrics = mma_page();
  no_metrics["metrics"] = Json::object();
  no_metrics.erase("units");
  EXPECT_NE(input_error(mma_target(), no_metrics.dump()).find("\"metrics\" must be a JSON object"), std::string::npos);
  Json furlongs = mma_page();
  furlongs["units"]["gpu__time_duration.sum"] = "furlong";
  EXPECT_EQ(input_error(mma_target(), furlongs.dump()),
            "the profile on stdin: metric \"gpu__time_duration.sum\" is in 'furlong', which duration_us cannot be "
            "read from (ns, nsecond, us, usecond, ms, msecond, s, second)");
  Json text = mma_page();
  text["metrics"]["launch__registers_per_thread"] = "no data";
  EXPECT_EQ(input_error(mma_target(), text.dump()),
            "the profile on stdin: metric \"launch__registers_per_thread\" is \"no data\", not a number");
  Json when = mma_page();
  when["profiled_at"] = "30/11/2026";
  EXPECT_EQ(input_error(mma_target(), when.dump()),
            "the profile on stdin: \"profiled_at\" '30/11/2026' is not a UTC time like 2026-11-30T13:10:40Z");
  EXPECT_EQ(s.profiles(), 0);
}

// A database of an older schema is checked through a migrated private copy: a refusal leaves
// every byte of it as it was (issue 45: the writing connection migrated it first) and no copy
// behind in the temporary directory.
TEST(RecordProfile, ARefusalLeavesAnOlderSchemaAsItWas) {
  Swept s;
  std::filesystem::remove(s.path);
  { db::Database::open(s.path, db::Mode::read_write, db::builtin_migrations().first(4)); }
  ASSERT_EQ(db::schema_version_of(s.path), 4);
  const auto copies = [] {
    const std::string prefix = "coalesce-copy-" + std::to_string(::getpid()) + "-";
    std::size_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator(std::filesystem::temp_directory_path()))
      n += e.path().filename().string().rfind(prefix, 0) == 0;
    return n;
  };
  EXPECT_EQ(refusal<ProfileRefused>(s, mma_target(), mma_page().dump()),
            "no device " + std::string(kUuid) + " in " + s.path.string() +
                ": a profile belongs to a GPU the database holds");
  EXPECT_EQ(db::schema_version_of(s.path), 4);
  EXPECT_EQ(copies(), 0u);
}

// A store never creates a database.
TEST(RecordProfile, AMissingDatabaseIsNotCreated) {
  TempDir dir;
  const auto path = dir / "nosuch.db";
  std::istringstream in(mma_page().dump());
  std::ostringstream out;
  try {
    record_profile(path, mma_target(), in, out);
    ADD_FAILURE() << "stored into a missing database";
  } catch (const db::Error& e) {
    EXPECT_NE(std::string(e.what()).find("does not exist"), std::string::npos) << e.what();
  }
  EXPECT_EQ(dir.listing(), "");
}

}  // namespace
}  // namespace coalesce::tuner
