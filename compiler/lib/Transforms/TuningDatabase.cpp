//===- TuningDatabase.cpp - read-only access to the tuner's measurements ----===//
#include "TuningDatabase.h"

#include <sqlite3.h>

#include <filesystem>

#include "schema/db.hpp"

namespace mlir::coalesce {

namespace {

// v_ranked holds only the ok rows of tuned kernels (a wrong result is never a timing), one per
// device x problem x config x timing protocol (schema 8). A median is compared only with medians
// of its own protocol: the rows of the most preferred protocol measured come first
// (protocols.preference: the shared protocol, a GPU spin before each sample, its steady sampling
// ahead), by median within it, ties to the earlier measurement; then those of the next protocol.
constexpr const char* kRankedConfigsSql = R"sql(
SELECT config_name FROM v_ranked
 WHERE device_name = ?1 AND (?2 = '' OR family = ?2) AND m = ?3 AND n = ?4 AND k = ?5
   AND dtype = ?6 AND epilogue = ?7
 ORDER BY protocol_preference, median_ms, measurement_id
)sql";
// Schema 7: the steady-state rows first, then by median.
constexpr const char* kRankedConfigsSql7 = R"sql(
SELECT config_name FROM v_ranked
 WHERE device_name = ?1 AND (?2 = '' OR family = ?2) AND m = ?3 AND n = ?4 AND k = ?5
   AND dtype = ?6 AND epilogue = ?7
 ORDER BY steady_state DESC, median_ms, measurement_id
)sql";
// The same for a schema before 7, whose rows carry no steady_state.
constexpr const char* kRankedConfigsSqlBefore7 = R"sql(
SELECT config_name FROM v_ranked
 WHERE device_name = ?1 AND (?2 = '' OR family = ?2) AND m = ?3 AND n = ?4 AND k = ?5
   AND dtype = ?6 AND epilogue = ?7
 ORDER BY median_ms, measurement_id
)sql";

}  // namespace

namespace {

/// One integer PRAGMA of `db`; false when SQLite cannot read it (not an SQLite file).
bool pragma(sqlite3* db, const char* sql, long long& value) {
  sqlite3_stmt* stmt = nullptr;
  bool ok = sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) == SQLITE_OK &&
            sqlite3_step(stmt) == SQLITE_ROW;
  if (ok) value = sqlite3_column_int64(stmt, 0);
  sqlite3_finalize(stmt);
  return ok;
}

}  // namespace

std::unique_ptr<TuningDatabase> TuningDatabase::open(const std::string& path, std::string& error) {
  // The file rules of every Coalesce tool (docs/database.md, "The file"), read-only: a directory,
  // a file of another application and a newer schema are refused in one sentence; an older
  // schema is read as long as it has the v_ranked view.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    error = "'" + path + "' is a directory, not a Coalesce results database";
    return nullptr;
  }
  // SQLite reads a 0-byte file as an empty database, which would pass for another application's.
  if (std::filesystem::is_regular_file(path, ec) && std::filesystem::file_size(path, ec) == 0) {
    error = "'" + path + "' is empty, not a Coalesce results database";
    return nullptr;
  }
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  if (rc != SQLITE_OK) {
    error = "cannot open tuning database '" + path + "': " +
            (db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    sqlite3_close(db);
    return nullptr;
  }
  auto refuse = [&](std::string why) {
    error = std::move(why);
    sqlite3_close(db);
    return nullptr;
  };
  long long application = 0, version = 0;
  if (!pragma(db, "PRAGMA application_id", application) || !pragma(db, "PRAGMA user_version", version)) {
    // A truncated file and a killed writer's hot journal are told as every tool tells them.
    const int code = sqlite3_extended_errcode(db);
    const bool not_sqlite = (code & 0xff) == SQLITE_NOTADB;
    std::string reason = not_sqlite ? ::coalesce::db::truncation_of(path)
                                    : ::coalesce::db::unreadable_reason(path, code);
    if (reason.empty())
      reason = "'" + path + "' is not a Coalesce results database (" +
               (not_sqlite ? std::string("not an SQLite file") : std::string(sqlite3_errmsg(db))) + ")";
    return refuse(reason);
  }
  if (application != ::coalesce::db::kApplicationId)
    return refuse("'" + path + "' is not a Coalesce results database (an SQLite file of another application)");
  const int latest = ::coalesce::db::latest_schema_version();
  if (version > latest)
    return refuse("'" + path + "' was written by a newer Coalesce (schema version " + std::to_string(version) +
                  "; this compiler reads up to " + std::to_string(latest) + "); use a newer build");
  const char* sql = version >= 8 ? kRankedConfigsSql : version == 7 ? kRankedConfigsSql7 : kRankedConfigsSqlBefore7;
  sqlite3_stmt* probe = nullptr;
  rc = sqlite3_prepare_v2(db, sql, -1, &probe, nullptr);
  sqlite3_finalize(probe);
  if (rc != SQLITE_OK)
    return refuse("'" + path + "' is not a Coalesce results database (" + sqlite3_errmsg(db) + ")");
  return std::unique_ptr<TuningDatabase>(new TuningDatabase(db, sql));
}

TuningDatabase::~TuningDatabase() { sqlite3_close(db_); }

bool TuningDatabase::deviceNames(std::vector<std::string>& names, std::string& error) const {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, "SELECT DISTINCT name FROM devices ORDER BY name", -1, &stmt, nullptr);
  return collectNames(stmt, rc, names, error);
}

bool TuningDatabase::rankedConfigs(const std::string& device, const std::string& family,
                                   long long m, long long n, long long k,
                                   const std::string& dtype, const std::string& epilogue,
                                   std::vector<std::string>& names, std::string& error) const {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql_, -1, &stmt, nullptr);
  if (rc == SQLITE_OK) rc = sqlite3_bind_text(stmt, 1, device.c_str(), -1, SQLITE_TRANSIENT);
  if (rc == SQLITE_OK) rc = sqlite3_bind_text(stmt, 2, family.c_str(), -1, SQLITE_TRANSIENT);
  if (rc == SQLITE_OK) rc = sqlite3_bind_int64(stmt, 3, m);
  if (rc == SQLITE_OK) rc = sqlite3_bind_int64(stmt, 4, n);
  if (rc == SQLITE_OK) rc = sqlite3_bind_int64(stmt, 5, k);
  if (rc == SQLITE_OK) rc = sqlite3_bind_text(stmt, 6, dtype.c_str(), -1, SQLITE_TRANSIENT);
  if (rc == SQLITE_OK) rc = sqlite3_bind_text(stmt, 7, epilogue.c_str(), -1, SQLITE_TRANSIENT);
  return collectNames(stmt, rc, names, error);
}

bool TuningDatabase::collectNames(sqlite3_stmt* stmt, int rc, std::vector<std::string>& names,
                                  std::string& error) const {
  while (rc == SQLITE_OK || rc == SQLITE_ROW) {
    rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW) {
      const unsigned char* text = sqlite3_column_text(stmt, 0);
      if (text) names.emplace_back(reinterpret_cast<const char*>(text));
    }
  }
  if (rc != SQLITE_DONE) error = std::string("tuning database query failed: ") + sqlite3_errmsg(db_);
  sqlite3_finalize(stmt);
  return rc == SQLITE_DONE;
}

}  // namespace mlir::coalesce
