// The built-in migrations: the embedded files schema/migrations/NNNN_<name>.sql, checked to be
// numbered 1..N without gaps (a gap or duplicate would leave a user_version with no meaning).
#include <charconv>
#include <stdexcept>
#include <string>
#include <vector>

#include "db.hpp"
#include "embedded.hpp"

extern const coalesce::EmbeddedFile kMigrationFiles[];
extern const std::size_t kMigrationFiles_count;

namespace coalesce::db {

namespace {

std::vector<Migration> load_builtin() {
  std::vector<Migration> all;
  for (std::size_t i = 0; i < kMigrationFiles_count; ++i) {
    std::string_view name = kMigrationFiles[i].name;
    int version = 0;
    auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), version);
    if (ec != std::errc() || end != name.data() + 4 || *end != '_')
      throw std::logic_error("schema migration '" + std::string(name) +
                             "' is not named NNNN_<name>.sql");
    all.push_back({version, name, kMigrationFiles[i].text});
  }
  // CMake sorts the files by name, and four digits sort as numbers.
  for (std::size_t i = 0; i < all.size(); ++i)
    if (all[i].version != static_cast<int>(i) + 1)
      throw std::logic_error("schema migrations must be numbered 1..N without gaps; '" +
                             std::string(all[i].name) + "' breaks the sequence");
  return all;
}

}  // namespace

std::span<const Migration> builtin_migrations() {
  static const std::vector<Migration> all = load_builtin();
  return all;
}

int latest_schema_version() {
  auto all = builtin_migrations();
  return all.empty() ? 0 : all.back().version;
}

}  // namespace coalesce::db
