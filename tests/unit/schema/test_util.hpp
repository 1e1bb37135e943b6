// Helpers of the schema tests: a scratch directory, file contents for "unchanged" proofs, a raw
// SQLite handle for writing what the library refuses to write, and a small set of rows.
#pragma once

#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "schema/db.hpp"

namespace coalesce::db::testing {

/// A fresh directory under the system temp dir, removed with its contents at scope exit.
class TempDir {
 public:
  TempDir() {
    auto base = std::filesystem::temp_directory_path();
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string("coalesce-") + (info ? info->name() : "test") + "-" +
                       std::to_string(::getpid());
    dir_ = base / name;
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  ~TempDir() { std::filesystem::remove_all(dir_); }
  std::filesystem::path operator/(const std::string& file) const { return dir_ / file; }
  const std::filesystem::path& path() const { return dir_; }
  /// The names of the files in the directory, sorted, comma-separated.
  std::string listing() const {
    std::vector<std::string> names;
    for (auto& e : std::filesystem::directory_iterator(dir_)) names.push_back(e.path().filename());
    std::sort(names.begin(), names.end());
    std::string out;
    for (auto& n : names) out += (out.empty() ? "" : ",") + n;
    return out;
  }

 private:
  std::filesystem::path dir_;
};

/// The bytes of a file.
inline std::string contents(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_file(const std::filesystem::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary) << bytes;
}

/// Runs SQL on a file through plain SQLite (no Coalesce checks).
inline void raw_sql(const std::filesystem::path& p, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(p.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  std::string msg = err ? err : "";
  sqlite3_free(err);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK) << msg;
}

inline DeviceRow h200(std::string uuid = "GPU-00000000-h200") {
  DeviceRow d;
  d.uuid = std::move(uuid);
  d.name = "NVIDIA H200";
  d.arch = "sm_90";
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 132;
  d.l2_bytes = 62914560;
  d.global_mem_bytes = 150754820096;
  d.max_sm_clock_mhz = 1980;
  d.fp32_lanes_per_sm = fp32_lanes_per_sm(9, 0);
  return d;
}

inline RunInfo run_info(std::optional<DeviceId> device, std::string key = "sweep 1024") {
  RunInfo r;
  r.device = device;
  r.resume_key = std::move(key);
  r.tool = "coalesce-tune";
  r.tool_version = "0.1.0";
  r.git_revision = "0123456789ab";
  r.command_line = "coalesce-tune sweep --shape 1024";
  r.host = "test-host";
  r.harness_json = R"({"samples":50,"l2_flush":true})";
  return r;
}

inline Timing timing(double median, double spread = 0.02) {
  return {median, median * (1 - 2 * spread), median * (1 + 2 * spread), median * (1 - spread),
          median * (1 + spread), 50};
}

/// An ok row of `method` with the error figures an ok row must carry.
inline MeasurementRow ok_row(RunId run, DeviceId dev, ProblemId prob, std::string method,
                             std::optional<ConfigId> config, double median_ms) {
  MeasurementRow r;
  r.run = run;
  r.device = dev;
  r.problem = prob;
  r.method = std::move(method);
  r.config = config;
  r.status = Status::ok;
  r.timing = timing(median_ms);
  r.rel_err = 1e-6;
  r.max_abs_err = 1e-5;
  return r;
}

}  // namespace coalesce::db::testing
