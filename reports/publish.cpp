// The published database (see publish.hpp).
#include "publish.hpp"

#include <stdexcept>

#include "by_model.hpp"
#include "schema/db.hpp"
#include "schema/vocabulary.hpp"

namespace coalesce::report {

namespace {

namespace fs = std::filesystem;

std::string peer_methods() {
  std::string out;
  for (const db::MethodInfo& m : db::kMethods)
    if (m.origin == db::MethodOrigin::peer) out += (out.empty() ? "'" : ", '") + std::string(m.name) + "'";
  return out;
}

std::int64_t count(const db::Database& db, const std::string& table) {
  return db::as_int(db.query("SELECT count(*) FROM " + table).rows.at(0).at(0));
}

/// Removes `path` and the side files SQLite and the writer lease leave beside it.
void remove_database_files(const fs::path& path) {
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm", "-journal", "-lock"}) fs::remove(fs::path(path.string() + suffix), ec);
}

void select_and_delete(db::Database& db, const std::vector<std::int64_t>& keep_runs);

/// Keeps what publish_database() says and deletes the rest, in `db` (the copy).
void prune(db::Database& db, const std::vector<std::int64_t>& keep_runs) {
  db.in_transaction([&] { select_and_delete(db, keep_runs); });
  db.exec("VACUUM");
}

void select_and_delete(db::Database& db, const std::vector<std::int64_t>& keep_runs) {
  // Per model, problem, method, family (none for a method without configs) and protocol: the
  // best ok row.
  db.exec(R"sql(
    CREATE TEMP TABLE best AS
    WITH v AS (
      SELECT x.id, x.run_id, x.problem_id, x.method, x.config_id, IFNULL(c.family, '') AS family, x.median_ms,
             )sql" + model_key_sql("d") + R"sql( AS model_key, x.protocol
      FROM measurements x JOIN devices d ON d.id = x.device_id
      LEFT JOIN configs c ON c.id = x.config_id
      WHERE x.status = 'ok'),
    ranked AS (
      SELECT v.*, ROW_NUMBER() OVER (PARTITION BY v.model_key, v.problem_id, v.method, v.family, v.protocol
                                     ORDER BY v.median_ms, v.id) AS pick
      FROM v)
    SELECT id, run_id, problem_id, method, config_id, protocol FROM ranked WHERE pick = 1;
    CREATE TEMP TABLE keep (id INTEGER PRIMARY KEY);
    INSERT OR IGNORE INTO keep SELECT id FROM best;)sql");
  // The baselines and the floor of each fused best's run on its problem, and the winner's own
  // unfused build there: what the report and the history put beside it.
  db.exec(R"sql(
    INSERT OR IGNORE INTO keep
    SELECT x.id FROM best b JOIN measurements x ON x.run_id = b.run_id AND x.problem_id = b.problem_id
    WHERE b.method = 'coalesce' AND (x.config_id IS NULL OR (x.method = 'coalesce_unfused' AND x.config_id = b.config_id));)sql");
  // The peers of each fused best's sitting, in its protocol.
  db.exec(R"sql(
    INSERT OR IGNORE INTO keep
    SELECT x.id FROM best b JOIN runs f ON f.id = b.run_id JOIN runs s ON )sql" + sitting_sql("f", "s") + R"sql(
    JOIN measurements x ON x.run_id = s.id AND x.problem_id = b.problem_id
    WHERE b.method = 'coalesce' AND x.method IN ()sql" + peer_methods() + R"sql() AND x.protocol = b.protocol;)sql");
  // A kept run's pruned candidates carry no figure (never compiled or timed) and are most of a
  // sweep's rows: they stay in the lab.
  for (std::int64_t run : keep_runs)
    db.exec("INSERT OR IGNORE INTO keep SELECT id FROM measurements WHERE run_id = " + std::to_string(run) +
            " AND status <> 'pruned';");
  // Then everything no kept row refers to, children before parents (foreign keys are on).
  db.exec(R"sql(
    DELETE FROM measurements WHERE id NOT IN (SELECT id FROM keep);
    DELETE FROM profiles WHERE problem_id NOT IN (SELECT problem_id FROM measurements)
       OR (config_id IS NOT NULL AND config_id NOT IN (SELECT config_id FROM measurements WHERE config_id IS NOT NULL));
    DELETE FROM builds WHERE id NOT IN (SELECT build_id FROM measurements WHERE build_id IS NOT NULL);
    DELETE FROM configs WHERE id NOT IN (SELECT config_id FROM measurements WHERE config_id IS NOT NULL
                                         UNION SELECT config_id FROM profiles WHERE config_id IS NOT NULL
                                         UNION SELECT config_id FROM builds);
    DELETE FROM runs WHERE id NOT IN (SELECT run_id FROM measurements);
    DELETE FROM problems WHERE id NOT IN (SELECT problem_id FROM measurements UNION SELECT problem_id FROM profiles);
    DELETE FROM devices WHERE id NOT IN (SELECT device_id FROM measurements UNION SELECT device_id FROM profiles
                                         UNION SELECT device_id FROM runs WHERE device_id IS NOT NULL);
    DROP TABLE temp.keep;
    DROP TABLE temp.best;)sql");
}

}  // namespace

PublishResult publish_database(const PublishOptions& options) {
  std::error_code ec;
  if (fs::exists(options.out, ec)) {
    if (fs::equivalent(options.lab, options.out, ec))
      throw std::invalid_argument(options.out.string() + " is the lab database: publish into another file");
    try {
      db::schema_version_of(options.out);
    } catch (const db::Error&) {
      throw std::invalid_argument(options.out.string() +
                                  " exists and is not a Coalesce database: publish replaces only a published database");
    }
  }
  for (std::int64_t run : options.keep_runs)
    if (run < 1) throw std::invalid_argument("--keep-run " + std::to_string(run) + ": a run id is a positive integer");

  PublishResult result;
  // Built beside OUT (the same file system, so the rename is atomic), never in place.
  const fs::path tmp = options.out.string() + ".publishing";
  remove_database_files(tmp);
  try {
    db::copy_database(options.lab, tmp);
    {
      // Read write, so a lab database of an older schema is migrated here (never in its place).
      auto copy = db::Database::open(tmp, db::Mode::read_write);
      result.lab_measurements = count(copy, "measurements");
      for (std::int64_t run : options.keep_runs)
        if (db::as_int(copy.query("SELECT count(*) FROM runs WHERE id = ?1", {db::Value(run)}).rows.at(0).at(0)) == 0)
          throw std::invalid_argument("--keep-run " + std::to_string(run) + ": " + options.lab.string() +
                                      " has no such run");
      prune(copy, options.keep_runs);
      result.measurements = count(copy, "measurements");
      result.runs = count(copy, "runs");
      result.devices = count(copy, "devices");
      result.problems = count(copy, "problems");
      result.configs = count(copy, "configs");
      result.builds = count(copy, "builds");
      result.profiles = count(copy, "profiles");
    }  // closed: back to a rollback journal, no side file left
    fs::rename(tmp, options.out);
  } catch (...) {
    remove_database_files(tmp);
    throw;
  }
  result.bytes = fs::file_size(options.out);
  return result;
}

}  // namespace coalesce::report
