// A private, changed copy of one of the report tests' fixture databases (built by the
// reports_fixture test into $COALESCE_FIXTURE_DIR), shared by the report tests.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "schema/db.hpp"

namespace coalesce::report::fixture_db {

inline std::filesystem::path fixture(const char* name) {
  const char* dir = std::getenv("COALESCE_FIXTURE_DIR");
  if (!dir) throw std::runtime_error("COALESCE_FIXTURE_DIR is not set (run through ctest)");
  return std::filesystem::path(dir) / name;
}

/// A private copy of a fixture, changed by `sql` (several statements), removed with its folder.
class Copy {
 public:
  Copy(const char* name, const std::string& sql) {
    dir_ = std::filesystem::temp_directory_path() /
           ("report_test_copy_" + std::to_string(::getpid()) + "_" + std::to_string(next_++));
    std::filesystem::create_directories(dir_);
    path_ = dir_ / name;
    std::filesystem::copy_file(fixture(name), path_);
    if (!sql.empty()) db::Database::open(path_, db::Mode::read_write).exec(sql);
  }
  ~Copy() { std::filesystem::remove_all(dir_); }
  Copy(const Copy&) = delete;
  Copy& operator=(const Copy&) = delete;
  const std::filesystem::path& path() const { return path_; }
  const std::filesystem::path& dir() const { return dir_; }

 private:
  static inline int next_ = 0;
  std::filesystem::path dir_, path_;
};

}  // namespace coalesce::report::fixture_db
