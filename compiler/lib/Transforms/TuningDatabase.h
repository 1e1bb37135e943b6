//===- TuningDatabase.h - read-only access to the tuner's measurements ------===//
// What coalesce-apply-tile-config asks the tuning database (schema/migrations, view v_ranked):
// the configs measured ok for one problem on one device, fastest first.
#pragma once

#include <memory>
#include <string>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace mlir::coalesce {

class TuningDatabase {
 public:
  /// Opens `path` read-only; nullptr with `error` set (one sentence) when it cannot be opened,
  /// is a directory, is not an SQLite file, belongs to another application (PRAGMA
  /// application_id), was written by a newer schema (PRAGMA user_version) or has no v_ranked
  /// view.
  static std::unique_ptr<TuningDatabase> open(const std::string& path, std::string& error);
  ~TuningDatabase();
  TuningDatabase(const TuningDatabase&) = delete;
  TuningDatabase& operator=(const TuningDatabase&) = delete;

  /// The distinct device names the database stores (its `devices` table), sorted. False with
  /// `error` set on an SQLite error.
  bool deviceNames(std::vector<std::string>& names, std::string& error) const;

  /// The names of the `family` configs (every family's for "") measured ok for M x N x K, dtype
  /// and epilogue on the device named `device`, fastest median first. False with `error` set on
  /// an SQLite error.
  bool rankedConfigs(const std::string& device, const std::string& family, long long m,
                     long long n, long long k, const std::string& dtype,
                     const std::string& epilogue, std::vector<std::string>& names,
                     std::string& error) const;

 private:
  TuningDatabase(sqlite3* db, const char* sql) : db_(db), sql_(sql) {}
  /// Steps `stmt` (prepared with status `rc`, bound), appending its first column's text to
  /// `names`, and finalizes it; false with `error` set on an SQLite error.
  bool collectNames(sqlite3_stmt* stmt, int rc, std::vector<std::string>& names, std::string& error) const;
  sqlite3* db_;
  const char* sql_;  ///< the ranking query this file's schema answers
};

}  // namespace mlir::coalesce
