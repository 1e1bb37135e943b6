//===- TuningDatabase.h - read-only access to the tuner's measurements ------===//
// What coalesce-apply-tile-config asks the tuning database (schema/migrations, view v_ranked):
// the configs measured ok for one problem on one device, fastest first.
#pragma once

#include <memory>
#include <string>
#include <vector>

struct sqlite3;

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

  /// The names of the `family` configs (every family's for "") measured ok for M x N x K, dtype
  /// and epilogue on the device named `device`, fastest median first. False with `error` set on
  /// an SQLite error.
  bool rankedConfigs(const std::string& device, const std::string& family, long long m,
                     long long n, long long k, const std::string& dtype,
                     const std::string& epilogue, std::vector<std::string>& names,
                     std::string& error) const;

 private:
  TuningDatabase(sqlite3* db, const char* sql) : db_(db), sql_(sql) {}
  sqlite3* db_;
  const char* sql_;  ///< the ranking query this file's schema answers
};

}  // namespace mlir::coalesce
