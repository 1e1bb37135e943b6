// The results database (see db.hpp): opening with its checks, migrations, and the row helpers.
#include "db.hpp"

#include <sqlite3.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cstring>
#include <fstream>
#include <mutex>
#include <system_error>
#include <utility>

#include "lease.hpp"

namespace coalesce::db {

namespace {
std::string quote(const std::filesystem::path& p) { return p.string(); }
}  // namespace

std::string truncation_of(const std::filesystem::path& path) {
  // The database header (sqlite.org/fileformat2.html, "The Database Header"): the page size at
  // offset 16 (1 means 65536), the file change counter at 24, the size in pages at 28, and at 92
  // the change counter for which that size is valid; a size is trusted only when they agree.
  std::ifstream in(path, std::ios::binary);
  unsigned char header[100] = {};
  if (!in.read(reinterpret_cast<char*>(header), sizeof header)) return "";
  if (std::memcmp(header, "SQLite format 3", 16) != 0) return "";
  const auto be32 = [&](int at) {
    return std::uint32_t(header[at]) << 24 | std::uint32_t(header[at + 1]) << 16 |
           std::uint32_t(header[at + 2]) << 8 | std::uint32_t(header[at + 3]);
  };
  const std::uint32_t raw_page = std::uint32_t(header[16]) << 8 | header[17];
  const std::uint64_t page_size = raw_page == 1 ? 65536 : raw_page;
  const std::uint32_t pages = be32(28);
  if (page_size < 512 || pages == 0 || be32(24) != be32(92)) return "";
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  const std::uint64_t expected = page_size * pages;
  if (ec || size >= expected) return "";
  return quote(path) + " is truncated: its header counts " + std::to_string(pages) + " pages of " +
         std::to_string(page_size) + " bytes (" + std::to_string(expected) + " bytes) and the file holds " +
         std::to_string(size) + "; it is not a readable database (restore it from a copy)";
}

std::string unreadable_reason(const std::filesystem::path& path, int rc) {
  if (rc == SQLITE_READONLY_ROLLBACK) {
    // A read-only connection cannot roll back a hot journal, and only a writable connection's
    // first read does (sqlite.org/lockingv3.html, "Hot Journals"); deleting the journal instead
    // would leave the half-written transaction in the file.
    const std::string journal = quote(path) + "-journal";
    return quote(path) + " was left mid-write by a killed writer (" + journal +
           " holds its unfinished transaction, which a read-only tool cannot roll back): open it "
           "once for writing to roll it back, e.g. sqlite3 " + quote(path) +
           " 'PRAGMA integrity_check', and keep " + journal + " beside it until then";
  }
  const int primary = rc & 0xff;
  if (primary != SQLITE_NOTADB && primary != SQLITE_CORRUPT) return "";
  if (std::string truncated = truncation_of(path); !truncated.empty()) return truncated;
  if (primary == SQLITE_NOTADB) return quote(path) + " is not a Coalesce database (not an SQLite file)";
  return "";
}

namespace {

// How long a statement waits for another connection's lock before failing with SQLITE_BUSY. A
// report reading while a sweep commits holds its lock for milliseconds; 5 s covers a slow disk.
constexpr int kBusyTimeoutMs = 5000;

/// Throws Error("cannot <what> in <path>: <SQLite's message>") unless rc is one of the ok codes;
/// a failure that says what is wrong with the file itself is unreadable_reason()'s sentence.
void check(int rc, sqlite3* db, const std::filesystem::path& path, std::string_view what) {
  if (rc == SQLITE_OK || rc == SQLITE_ROW || rc == SQLITE_DONE) return;
  std::string msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  if (std::string reason = unreadable_reason(path, rc); !reason.empty()) {
    if ((rc & 0xff) == SQLITE_NOTADB) throw NotCoalesceDatabase(reason);
    throw Error(reason);
  }
  if ((rc & 0xff) == SQLITE_BUSY)
    throw Error("cannot " + std::string(what) + " in " + quote(path) +
                ": the database stayed locked by another connection (" + msg + ")");
  throw Error("cannot " + std::string(what) + " in " + quote(path) + ": " + msg);
}

/// A prepared statement, finalized on scope exit.
class Stmt {
 public:
  Stmt(sqlite3* db, const std::filesystem::path& path, std::string_view sql, std::string_view what)
      : db_(db), path_(path), what_(what) {
    check(sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt_, &tail_), db,
          path, what);
  }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  ~Stmt() { sqlite3_finalize(stmt_); }

  sqlite3_stmt* get() const { return stmt_; }
  const char* tail() const { return tail_; }

  Stmt& bind_value(int i, const Value& v) {
    int rc = SQLITE_OK;
    if (std::holds_alternative<std::monostate>(v)) rc = sqlite3_bind_null(stmt_, i);
    else if (auto* n = std::get_if<std::int64_t>(&v)) rc = sqlite3_bind_int64(stmt_, i, *n);
    else if (auto* d = std::get_if<double>(&v)) rc = sqlite3_bind_double(stmt_, i, *d);
    else {
      const std::string& s = std::get<std::string>(v);
      rc = sqlite3_bind_text(stmt_, i, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
    }
    check(rc, db_, path_, what_);
    return *this;
  }
  Stmt& bind(int i, std::string_view s) { return bind_value(i, Value(std::string(s))); }
  Stmt& bind(int i, const std::string& s) { return bind_value(i, Value(s)); }
  Stmt& bind(int i, const char* s) { return bind_value(i, Value(std::string(s))); }
  Stmt& bind(int i, std::int64_t n) { return bind_value(i, Value(n)); }
  Stmt& bind(int i, int n) { return bind_value(i, Value(static_cast<std::int64_t>(n))); }
  Stmt& bind(int i, double d) { return bind_value(i, Value(d)); }
  template <class T>
  Stmt& bind(int i, const std::optional<T>& v) {
    return v ? bind(i, *v) : bind_value(i, Value());
  }

  /// Steps once: true with a row, false when done.
  bool step() {
    int rc = sqlite3_step(stmt_);
    check(rc, db_, path_, what_);
    return rc == SQLITE_ROW;
  }

  Value column(int i) const {
    switch (sqlite3_column_type(stmt_, i)) {
      case SQLITE_INTEGER: return sqlite3_column_int64(stmt_, i);
      case SQLITE_FLOAT: return sqlite3_column_double(stmt_, i);
      case SQLITE_NULL: return {};
      default: {
        auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, i));
        return std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, i)));
      }
    }
  }
  std::int64_t integer(int i) const { return sqlite3_column_int64(stmt_, i); }

 private:
  sqlite3* db_;
  const std::filesystem::path& path_;
  std::string_view what_;
  sqlite3_stmt* stmt_ = nullptr;
  const char* tail_ = nullptr;
};

/// Runs SQL without results (several statements allowed).
void exec_sql(sqlite3* db, const std::filesystem::path& path, const std::string& sql,
              std::string_view what) {
  char* err = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errstr(rc);
    sqlite3_free(err);
    if (!unreadable_reason(path, rc).empty()) check(rc, db, path, what);
    throw Error("cannot " + std::string(what) + " in " + quote(path) + ": " + msg);
  }
}

std::int64_t scalar(sqlite3* db, const std::filesystem::path& path, std::string_view sql,
                    std::string_view what) {
  Stmt s(db, path, sql, what);
  if (!s.step()) throw Error("cannot " + std::string(what) + " in " + quote(path) + ": no row");
  return s.integer(0);
}

/// Closes a connection on scope exit unless released.
struct Connection {
  sqlite3* db = nullptr;
  Connection() = default;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection() { sqlite3_close(db); }
  sqlite3* release() { return std::exchange(db, nullptr); }
};

void open_connection(Connection& c, const std::string& filename, int flags,
                     const std::filesystem::path& path) {
  int rc = sqlite3_open_v2(filename.c_str(), &c.db, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = c.db ? sqlite3_errmsg(c.db) : sqlite3_errstr(rc);
    throw Error("cannot open " + quote(path) + ": " + msg);
  }
  sqlite3_extended_result_codes(c.db, 1);
  check(sqlite3_busy_timeout(c.db, kBusyTimeoutMs), c.db, path, "set the busy timeout");
}

/// A `file:` URI for `path` (RFC 3986 percent-encoding of everything but unreserved and '/').
std::string file_uri(const std::filesystem::path& path, std::string_view query) {
  std::string abs = std::filesystem::absolute(path).string();
  std::string uri = "file:";
  const char* hex = "0123456789ABCDEF";
  for (unsigned char ch : abs) {
    if (std::isalnum(ch) || ch == '/' || ch == '-' || ch == '_' || ch == '.' || ch == '~') {
      uri += static_cast<char>(ch);
    } else {
      uri += '%';
      uri += hex[ch >> 4];
      uri += hex[ch & 15];
    }
  }
  uri += '?';
  uri += query;
  return uri;
}

/// What the header and schema of an opened file say.
enum class FileKind { empty, coalesce };

/// Classifies the file behind `db` using reads only. Returns `empty` for an SQLite file with no
/// schema, no application id and no user_version (a file we may initialize), `coalesce` with
/// its version otherwise; throws NotCoalesceDatabase / NewerSchema.
FileKind classify(sqlite3* db, const std::filesystem::path& path, int latest, int& version) {
  std::int64_t app = scalar(db, path, "PRAGMA application_id", "read the header");
  version = static_cast<int>(scalar(db, path, "PRAGMA user_version", "read the header"));
  std::int64_t objects = scalar(db, path, "SELECT count(*) FROM sqlite_schema", "read the schema");
  if (app == 0 && version == 0 && objects == 0) return FileKind::empty;
  if (app != kApplicationId)
    throw NotCoalesceDatabase(quote(path) +
                              " is not a Coalesce database (an SQLite file of another application)");
  if (version > latest)
    throw NewerSchema(quote(path) + " was written by a newer Coalesce (schema version " +
                      std::to_string(version) + "; this tool knows up to " +
                      std::to_string(latest) + "); use a newer build");
  return FileKind::coalesce;
}

/// Opens an existing file read-only and checks that it is a Coalesce database this binary can
/// read: what a read-only open(), schema_version_of() and copy_database() share. Returns its
/// schema version; an older one is not refused here.
int open_existing_read_only(Connection& c, const std::filesystem::path& path, int latest) {
  std::error_code ec;
  auto st = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(st)) throw Error(quote(path) + " does not exist");
  if (!std::filesystem::is_regular_file(st)) throw Error(quote(path) + " is not a regular file");
  if (std::filesystem::file_size(path, ec) == 0)
    throw NotCoalesceDatabase(quote(path) + " is empty, not a Coalesce database");
  // SQLite reads a missing page of a truncated file as a malformed one, or, cut at a page
  // boundary, may not notice at all. With a -journal or -wal beside it the file alone may
  // legitimately be shorter than its header says until SQLite reads through them.
  const bool side_files = std::filesystem::exists(path.string() + "-journal", ec) ||
                          std::filesystem::exists(path.string() + "-wal", ec);
  if (!side_files)
    if (std::string truncated = truncation_of(path); !truncated.empty()) throw Error(truncated);
  open_connection(c, path.string(), SQLITE_OPEN_READONLY, path);
  int version = 0;
  if (classify(c.db, path, latest, version) == FileKind::empty)
    throw NotCoalesceDatabase(quote(path) + " is an empty SQLite file, not a Coalesce database");
  return version;
}

void check_sequence(std::span<const Migration> migrations) {
  for (std::size_t i = 0; i < migrations.size(); ++i)
    if (migrations[i].version != static_cast<int>(i) + 1)
      throw std::logic_error("migrations must be numbered 1..N without gaps");
}

}  // namespace

std::string_view to_string(RunStatus s) {
  switch (s) {
    case RunStatus::running: return "running";
    case RunStatus::completed: return "completed";
    case RunStatus::interrupted: return "interrupted";
    case RunStatus::failed: return "failed";
  }
  return "?";
}

int fp32_lanes_per_sm(int cc_major, int cc_minor) {
  // FP32 units per SM from NVIDIA's architecture whitepapers (Volta, Turing, Ampere GA100 and
  // GA10x, Ada, Hopper, Blackwell). Unknown architectures give 0: the report then prints no peak.
  switch (cc_major * 10 + cc_minor) {
    case 70: case 72: case 75: case 80: return 64;
    case 86: case 87: case 89: case 90: case 100: case 103: case 120: return 128;
    default: return 0;
  }
}

struct Database::Impl {
  std::filesystem::path path;
  Mode mode = Mode::read_only;
  int version = 0;
  std::unique_ptr<WriterLease> lease;  // before db: destroyed after the connection closes
  sqlite3* db = nullptr;
  mutable std::recursive_mutex mutex;

  ~Impl() {
    if (!db) return;
    if (mode == Mode::read_write) {
      // Leave the file self-contained (no -wal beside it) and readable without creating -shm:
      // back to a rollback journal. With readers still attached this fails with SQLITE_BUSY and
      // the file simply stays in WAL mode, which is as valid; so the result is not an error.
      sqlite3_busy_timeout(db, 0);
      sqlite3_exec(db, "PRAGMA journal_mode=DELETE", nullptr, nullptr, nullptr);
    }
    sqlite3_close(db);
  }

  void require_writable(std::string_view what) const {
    if (mode != Mode::read_write)
      throw Error("cannot " + std::string(what) + " in " + quote(path) +
                  ": the database was opened read-only");
  }
  Stmt stmt(std::string_view sql, std::string_view what) const { return Stmt(db, path, sql, what); }
};

Database::Database(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Database::Database(Database&&) noexcept = default;
Database& Database::operator=(Database&&) noexcept = default;
Database::~Database() = default;

Database Database::open(const std::filesystem::path& path, Mode mode) {
  return open(path, mode, builtin_migrations());
}

Database Database::open(const std::filesystem::path& path, Mode mode,
                        std::span<const Migration> migrations) {
  check_sequence(migrations);
  const int latest = migrations.empty() ? 0 : migrations.back().version;
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->mode = mode;

  std::error_code ec;
  auto st = std::filesystem::status(path, ec);
  bool exists = std::filesystem::exists(st);
  if (exists && !std::filesystem::is_regular_file(st))
    throw Error(quote(path) + " is not a regular file");
  std::uintmax_t size = exists ? std::filesystem::file_size(path, ec) : 0;
  Connection c;
  std::filesystem::path parent = std::filesystem::absolute(path).parent_path();
  if (!std::filesystem::is_directory(parent, ec))
    throw Error(quote(path) + " cannot be opened: the directory " + parent.string() +
                " does not exist");

  if (mode == Mode::read_only) {
    impl->version = open_existing_read_only(c, path, latest);
    // No ATTACH: a query must not reach (or create) any other file.
    sqlite3_limit(c.db, SQLITE_LIMIT_ATTACHED, 0);
    exec_sql(c.db, path, "PRAGMA query_only=ON", "set query_only");
    if (impl->version < latest)
      throw Error(quote(path) + " has schema version " + std::to_string(impl->version) +
                  " and this tool reads version " + std::to_string(latest) +
                  "; migrate a copy without a GPU: coalesce-report merge NEW.db " + path.string() +
                  " (the file itself stays as it is)");
    impl->db = c.release();
    return Database(std::move(impl));
  }

  // Read-write. An existing file is first classified through an immutable read-only connection,
  // which takes no lock and creates no side file, so a foreign file is refused untouched. Not
  // where a writer left a -wal or -journal beside it (one killed, or one still at work): the file
  // alone is then not the database. A writer killed while checkpointing leaves some of the file's
  // pages newer than the rest, which only its WAL makes whole, and a hot journal holds the pages
  // an unfinished transaction overwrote; an immutable read ignores both and may find the file
  // malformed. The side files exist already, and the classification under the lease below reads
  // through them (SQLite's own recovery) before anything is written.
  const auto beside = [&](const char* suffix) {
    std::error_code side_ec;
    return std::filesystem::exists(path.string() + suffix, side_ec);
  };
  if (exists && size > 0 && !beside("-wal") && !beside("-journal")) {
    if (std::string truncated = truncation_of(path); !truncated.empty()) throw Error(truncated);
    Connection probe;
    open_connection(probe, file_uri(path, "mode=ro&immutable=1"),
                    SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, path);
    int ignored = 0;
    classify(probe.db, path, latest, ignored);
  }
  impl->lease = std::make_unique<WriterLease>(path);
  open_connection(c, path.string(), SQLITE_OPEN_READWRITE | (exists ? 0 : SQLITE_OPEN_CREATE),
                  path);
  // Again under the lease: another writer may have initialized or migrated it meanwhile.
  classify(c.db, path, latest, impl->version);
  exec_sql(c.db, path, "PRAGMA foreign_keys=ON", "enable foreign keys");
  for (const Migration& m : migrations) {
    if (m.version <= impl->version) continue;
    // One transaction per migration with its user_version: a failure leaves the previous
    // version intact (Bitcoin Core's wallet migrations work the same way).
    std::string sql = "BEGIN IMMEDIATE;\n" + std::string(m.sql) + "\n;";
    if (m.version == 1) sql += "PRAGMA application_id=" + std::to_string(kApplicationId) + ";";
    sql += "PRAGMA user_version=" + std::to_string(m.version) + ";COMMIT;";
    try {
      exec_sql(c.db, path, sql, "apply migration " + std::string(m.name));
    } catch (const Error&) {
      sqlite3_exec(c.db, "ROLLBACK", nullptr, nullptr, nullptr);
      throw;
    }
    impl->version = m.version;
  }
  {
    Stmt wal(c.db, path, "PRAGMA journal_mode=WAL", "switch to WAL");
    if (!wal.step() || as_text(wal.column(0)) != "wal")
      throw Error("cannot switch " + quote(path) +
                  " to WAL mode (is it on a file system without shared memory, such as NFS?)");
  }
  // FULL: a committed row survives power loss too, at one fsync per row (a config takes far
  // longer to measure).
  exec_sql(c.db, path, "PRAGMA synchronous=FULL", "set synchronous");
  // Holding the lease, no writer is alive: a run still marked running lost its writer.
  if (scalar(c.db, path, "SELECT count(*) FROM sqlite_schema WHERE type='table' AND name='runs'",
             "read the schema") > 0)
    exec_sql(c.db, path, "UPDATE runs SET status='interrupted' WHERE status='running'",
             "mark interrupted runs");
  impl->db = c.release();
  return Database(std::move(impl));
}

int schema_version_of(const std::filesystem::path& path) {
  Connection c;
  return open_existing_read_only(c, path, latest_schema_version());
}

int copy_database(const std::filesystem::path& from, const std::filesystem::path& to) {
  Connection source;
  const int version = open_existing_read_only(source, from, latest_schema_version());
  std::error_code ec;
  if (std::filesystem::exists(to, ec))
    throw Error("cannot copy " + quote(from) + " to " + quote(to) + ": it exists");
  Connection copy;
  open_connection(copy, to.string(), SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, to);
  sqlite3_backup* backup = sqlite3_backup_init(copy.db, "main", source.db, "main");
  int rc = backup ? SQLITE_OK : sqlite3_errcode(copy.db);
  if (backup) {
    // One step copies every page under one read transaction of `from`: a consistent snapshot.
    rc = sqlite3_backup_step(backup, -1);
    if (sqlite3_backup_finish(backup) != SQLITE_OK && rc == SQLITE_DONE) rc = sqlite3_errcode(copy.db);
  }
  if (rc != SQLITE_DONE)
    throw Error("cannot copy " + quote(from) + " to " + quote(to) + ": " + sqlite3_errstr(rc));
  return version;
}

MigratedCopy::MigratedCopy(const std::filesystem::path& source) {
  static std::atomic<unsigned> next{0};
  path_ = std::filesystem::temp_directory_path() /
          ("coalesce-copy-" + std::to_string(::getpid()) + "-" + std::to_string(next++) + ".db");
  remove_files();
  source_version_ = copy_database(source, path_);
  try {
    Database::open(path_, Mode::read_write);
  } catch (const Error& e) {
    remove_files();
    throw Error("cannot read " + quote(source) + " at the current schema: " + e.what());
  }
}

MigratedCopy::~MigratedCopy() { remove_files(); }

void MigratedCopy::remove_files() const {
  std::error_code ec;
  for (const char* suffix : {"", "-journal", "-wal", "-shm", "-lock"})
    std::filesystem::remove(path_.string() + suffix, ec);
}

const std::filesystem::path& Database::path() const { return impl_->path; }
Mode Database::mode() const { return impl_->mode; }
int Database::schema_version() const { return impl_->version; }

DeviceId Database::upsert_device(const DeviceRow& d) {
  std::lock_guard lock(impl_->mutex);
  const char* what = "store a device";
  impl_->require_writable(what);
  auto s = impl_->stmt(R"sql(
    INSERT INTO devices (uuid, name, arch, cc_major, cc_minor, sm_count, l2_bytes, global_mem_bytes,
        max_sm_clock_mhz, fp32_lanes_per_sm, smem_per_block_optin, smem_per_sm,
        max_threads_per_block, max_threads_per_sm, regs_per_sm, max_regs_per_thread,
        max_blocks_per_sm)
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)
    ON CONFLICT (uuid) DO UPDATE SET name = excluded.name, arch = excluded.arch,
        cc_major = excluded.cc_major, cc_minor = excluded.cc_minor, sm_count = excluded.sm_count,
        l2_bytes = excluded.l2_bytes, global_mem_bytes = excluded.global_mem_bytes,
        max_sm_clock_mhz = CASE WHEN excluded.max_sm_clock_mhz > 0 THEN excluded.max_sm_clock_mhz
                                ELSE max_sm_clock_mhz END,
        fp32_lanes_per_sm = excluded.fp32_lanes_per_sm,
        smem_per_block_optin = excluded.smem_per_block_optin, smem_per_sm = excluded.smem_per_sm,
        max_threads_per_block = excluded.max_threads_per_block,
        max_threads_per_sm = excluded.max_threads_per_sm, regs_per_sm = excluded.regs_per_sm,
        max_regs_per_thread = excluded.max_regs_per_thread,
        max_blocks_per_sm = excluded.max_blocks_per_sm
    RETURNING id)sql",
                       what);
  const DeviceLimits& l = d.limits;
  s.bind(1, d.uuid).bind(2, d.name).bind(3, d.arch).bind(4, d.cc_major).bind(5, d.cc_minor);
  s.bind(6, d.sm_count).bind(7, d.l2_bytes).bind(8, d.global_mem_bytes).bind(9, d.max_sm_clock_mhz);
  s.bind(10, d.fp32_lanes_per_sm).bind(11, l.smem_per_block_optin).bind(12, l.smem_per_sm);
  s.bind(13, l.max_threads_per_block).bind(14, l.max_threads_per_sm).bind(15, l.regs_per_sm);
  s.bind(16, l.max_regs_per_thread).bind(17, l.max_blocks_per_sm);
  s.step();
  return s.integer(0);
}

RunId Database::begin_run(const RunInfo& r) {
  std::lock_guard lock(impl_->mutex);
  const char* what = "start a run";
  impl_->require_writable(what);
  auto s = impl_->stmt(R"sql(
    INSERT INTO runs (device_id, resume_key, tool, tool_version, git_revision, command_line, host,
        driver_version, driver_release, runtime_version, toolkit, harness_json)
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12) RETURNING id)sql",
                       what);
  s.bind(1, r.device).bind(2, r.resume_key).bind(3, r.tool).bind(4, r.tool_version);
  s.bind(5, r.git_revision).bind(6, r.command_line).bind(7, r.host).bind(8, r.driver_version);
  s.bind(9, r.driver_release).bind(10, r.runtime_version).bind(11, r.toolkit);
  s.bind(12, r.harness_json);
  s.step();
  return s.integer(0);
}

std::optional<RunId> Database::find_unfinished_run(std::string_view resume_key,
                                                   std::optional<DeviceId> device) const {
  std::lock_guard lock(impl_->mutex);
  auto s = impl_->stmt(R"sql(
    SELECT id FROM runs WHERE resume_key = ?1 AND device_id IS ?2 AND status <> 'completed'
    ORDER BY id DESC LIMIT 1)sql",
                       "look up unfinished runs");
  s.bind(1, resume_key).bind(2, device);
  if (!s.step()) return std::nullopt;
  return s.integer(0);
}

void Database::resume_run(RunId run) {
  std::lock_guard lock(impl_->mutex);
  const char* what = "resume a run";
  impl_->require_writable(what);
  auto s = impl_->stmt(R"sql(
    UPDATE runs SET status = 'running', resumed = resumed + 1, ended_at = NULL
    WHERE id = ?1 AND status <> 'completed')sql",
                       what);
  s.bind(1, run).step();
  if (sqlite3_changes(impl_->db) != 1)
    throw Error("cannot resume run " + std::to_string(run) + " in " + quote(impl_->path) +
                ": no such unfinished run");
}

void Database::end_run(RunId run, RunStatus status) {
  std::lock_guard lock(impl_->mutex);
  const char* what = "end a run";
  impl_->require_writable(what);
  auto s = impl_->stmt(R"sql(
    UPDATE runs SET status = ?2, ended_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?1)sql",
                       what);
  s.bind(1, run).bind(2, to_string(status)).step();
  if (sqlite3_changes(impl_->db) != 1)
    throw Error("cannot end run " + std::to_string(run) + " in " + quote(impl_->path) +
                ": no such run");
}

ProblemId Database::upsert_problem(const Problem& p) {
  std::lock_guard lock(impl_->mutex);
  const char* what = "store a problem";
  impl_->require_writable(what);
  auto ins = impl_->stmt(R"sql(
    INSERT INTO problems (m, n, k, dtype, epilogue) VALUES (?1, ?2, ?3, ?4, ?5)
    ON CONFLICT DO NOTHING)sql",
                         what);
  ins.bind(1, p.m).bind(2, p.n).bind(3, p.k).bind(4, to_string(p.dtype)).bind(5, to_string(p.epilogue));
  ins.step();
  auto sel = impl_->stmt(
      "SELECT id FROM problems WHERE m = ?1 AND n = ?2 AND k = ?3 AND dtype = ?4 AND epilogue = ?5",
      what);
  sel.bind(1, p.m).bind(2, p.n).bind(3, p.k).bind(4, to_string(p.dtype)).bind(5, to_string(p.epilogue));
  sel.step();
  return sel.integer(0);
}

ConfigId Database::upsert_config(const ConfigRow& c) {
  std::lock_guard lock(impl_->mutex);
  const char* what = "store a config";
  impl_->require_writable(what);
  auto ins = impl_->stmt(R"sql(
    INSERT INTO configs (family, name, params_json, source_hash) VALUES (?1, ?2, ?3, ?4)
    ON CONFLICT DO NOTHING)sql",
                         what);
  ins.bind(1, c.family).bind(2, c.name).bind(3, c.params_json).bind(4, c.source_hash).step();
  auto sel = impl_->stmt(R"sql(
    SELECT id, family = ?3 AND json(params_json) = json(?4) FROM configs
    WHERE name = ?1 AND source_hash = ?2)sql",
                         what);
  sel.bind(1, c.name).bind(2, c.source_hash).bind(3, c.family).bind(4, c.params_json).step();
  if (sel.integer(1) != 1)
    throw Error("cannot store config " + c.name + " in " + quote(impl_->path) +
                ": a config with that name and source hash is stored with another family or "
                "parameters");
  return sel.integer(0);
}

BuildId Database::upsert_build(const BuildRow& b) {
  std::lock_guard lock(impl_->mutex);
  const char* what = "store a build";
  impl_->require_writable(what);
  auto s = impl_->stmt(R"sql(
    INSERT INTO builds (config_id, arch, toolkit, status, registers, spill_stores_bytes,
        spill_loads_bytes, stack_bytes, smem_bytes, threads, blocks_per_sm, predicted_registers,
        predicted_smem_bytes, predicted_blocks_per_sm, compile_ms, log, attempts)
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)
    ON CONFLICT (config_id, arch, toolkit) DO UPDATE SET status = excluded.status,
        registers = excluded.registers, spill_stores_bytes = excluded.spill_stores_bytes,
        spill_loads_bytes = excluded.spill_loads_bytes, stack_bytes = excluded.stack_bytes,
        smem_bytes = excluded.smem_bytes, threads = excluded.threads,
        blocks_per_sm = excluded.blocks_per_sm, predicted_registers = excluded.predicted_registers,
        predicted_smem_bytes = excluded.predicted_smem_bytes,
        predicted_blocks_per_sm = excluded.predicted_blocks_per_sm,
        compile_ms = excluded.compile_ms, log = excluded.log, attempts = excluded.attempts,
        created_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
    RETURNING id)sql",
                       what);
  s.bind(1, b.config).bind(2, b.arch).bind(3, b.toolkit).bind(4, b.ok ? "ok" : "failed");
  s.bind(5, b.registers).bind(6, b.spill_stores_bytes).bind(7, b.spill_loads_bytes);
  s.bind(8, b.stack_bytes).bind(9, b.smem_bytes).bind(10, b.threads).bind(11, b.blocks_per_sm);
  s.bind(12, b.predicted_registers).bind(13, b.predicted_smem_bytes);
  s.bind(14, b.predicted_blocks_per_sm).bind(15, b.compile_ms).bind(16, b.log).bind(17, b.attempts);
  s.step();
  return s.integer(0);
}

std::optional<MeasurementId> Database::insert_measurement(const MeasurementRow& r) {
  std::lock_guard lock(impl_->mutex);
  const char* what = "store a measurement";
  impl_->require_writable(what);
  if (r.status != Status::ok && r.timing)
    throw Error("cannot store a measurement in " + quote(impl_->path) + ": a " +
                std::string(to_string(r.status)) + " row carries no timing");
  auto problem = impl_->stmt("SELECT 2.0 * m * n * k FROM problems WHERE id = ?1", what);
  problem.bind(1, r.problem);
  if (!problem.step())
    throw Error("cannot store a measurement in " + quote(impl_->path) + ": no problem " +
                std::to_string(r.problem));
  const double flops = sqlite3_column_double(problem.get(), 0);

  std::optional<double> median, min, max, p10, p90, rel_spread, tflops;
  std::optional<int> samples;
  if (r.timing) {
    const Timing& t = *r.timing;
    median = t.median_ms, min = t.min_ms, max = t.max_ms, p10 = t.p10_ms, p90 = t.p90_ms;
    samples = t.samples;
    if (t.median_ms > 0) {
      rel_spread = (t.p90_ms - t.p10_ms) / t.median_ms;
      tflops = flops / (t.median_ms * 1e9);  // FLOP / (ms · 1e-3) / 1e12
    }
  }
  std::optional<std::string> reason;
  if (!r.prune_reason.empty()) reason = r.prune_reason;
  auto s = impl_->stmt(R"sql(
    INSERT INTO measurements (run_id, device_id, problem_id, method, config_id, build_id, status,
        prune_reason, median_ms, min_ms, max_ms, p10_ms, p90_ms, rel_spread, samples, tflops,
        rel_err, max_abs_err, sm_clock_before_mhz, sm_clock_after_mhz, grid_blocks, message,
        max_scaled_err, workspace_bytes, steady_state, protocol)
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19,
        ?20, ?21, ?22, ?23, ?24, (SELECT g.steady_state FROM v_run_regimes g WHERE g.run_id = ?1),
        IFNULL((SELECT g.protocol FROM v_run_protocols g WHERE g.run_id = ?1), ''))
    ON CONFLICT DO NOTHING RETURNING id)sql",
                       what);
  s.bind(1, r.run).bind(2, r.device).bind(3, r.problem).bind(4, r.method).bind(5, r.config);
  s.bind(6, r.build).bind(7, to_string(r.status)).bind(8, reason).bind(9, median).bind(10, min);
  s.bind(11, max).bind(12, p10).bind(13, p90).bind(14, rel_spread).bind(15, samples);
  s.bind(16, tflops).bind(17, r.rel_err).bind(18, r.max_abs_err).bind(19, r.sm_clock_before_mhz);
  s.bind(20, r.sm_clock_after_mhz).bind(21, r.grid_blocks).bind(22, r.message).bind(23, r.max_scaled_err);
  s.bind(24, r.workspace_bytes);
  if (!s.step()) return std::nullopt;
  MeasurementId id = s.integer(0);
  s.step();  // completes the statement (and with it the insert's implicit transaction)
  return id;
}

std::optional<ProfileId> Database::insert_profile(const ProfileRow& r) {
  std::lock_guard lock(impl_->mutex);
  const char* what = "store a profile";
  impl_->require_writable(what);
  auto s = impl_->stmt(R"sql(
    INSERT INTO profiles (device_id, problem_id, method, config_id, kernel, tool, tool_version,
        profiled_at, duration_us, sm_clock_mhz, tensor_pipe_active_pct, achieved_occupancy_pct,
        registers, metrics_json, units_json)
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)
    ON CONFLICT DO NOTHING RETURNING id)sql",
                       what);
  s.bind(1, r.device).bind(2, r.problem).bind(3, r.method).bind(4, r.config).bind(5, r.kernel);
  s.bind(6, r.tool).bind(7, r.tool_version).bind(8, r.profiled_at).bind(9, r.duration_us);
  s.bind(10, r.sm_clock_mhz).bind(11, r.tensor_pipe_active_pct).bind(12, r.achieved_occupancy_pct);
  s.bind(13, r.registers).bind(14, r.metrics_json).bind(15, r.units_json);
  if (!s.step()) return std::nullopt;
  ProfileId id = s.integer(0);
  s.step();  // completes the statement (and with it the insert's implicit transaction)
  return id;
}

void Database::in_transaction(const std::function<void()>& body) {
  std::lock_guard lock(impl_->mutex);
  impl_->require_writable("run a transaction");
  // A savepoint rather than BEGIN, so that transactions nest.
  exec_sql(impl_->db, impl_->path, "SAVEPOINT coalesce_tx", "begin a transaction");
  try {
    body();
  } catch (...) {
    sqlite3_exec(impl_->db, "ROLLBACK TO coalesce_tx; RELEASE coalesce_tx", nullptr, nullptr,
                 nullptr);
    throw;
  }
  exec_sql(impl_->db, impl_->path, "RELEASE coalesce_tx", "commit a transaction");
}

void Database::exec(std::string_view sql) {
  std::lock_guard lock(impl_->mutex);
  impl_->require_writable("run SQL");
  exec_sql(impl_->db, impl_->path, std::string(sql), "run SQL");
}

bool Database::measured(DeviceId device, ProblemId problem, ConfigId config, std::string_view method,
                        std::optional<std::string> protocol) const {
  std::lock_guard lock(impl_->mutex);
  auto s = impl_->stmt(R"sql(
    SELECT EXISTS (SELECT 1 FROM measurements WHERE device_id = ?1 AND problem_id = ?2
                   AND config_id = ?3 AND method = ?4 AND (?5 IS NULL OR protocol = ?5)))sql",
                       "look up a measurement");
  s.bind(1, device).bind(2, problem).bind(3, config).bind(4, method).bind(5, protocol).step();
  return s.integer(0) != 0;
}

bool Database::baseline_measured(RunId run, DeviceId device, ProblemId problem,
                                 std::string_view method) const {
  std::lock_guard lock(impl_->mutex);
  auto s = impl_->stmt(R"sql(
    SELECT EXISTS (SELECT 1 FROM measurements WHERE run_id = ?1 AND device_id = ?2
                   AND problem_id = ?3 AND method = ?4 AND config_id IS NULL))sql",
                       "look up a measurement");
  s.bind(1, run).bind(2, device).bind(3, problem).bind(4, method).step();
  return s.integer(0) != 0;
}

std::optional<DeviceId> Database::find_device(std::string_view uuid) const {
  std::lock_guard lock(impl_->mutex);
  // harness/device.cpp wrote a UUID's first 39 characters until 2026-11-29 (its buffer had no
  // room for the last hex digit), and databases of that time key their GPUs so: the full
  // 40-character form finds such a row when there is no exact one.
  auto s = impl_->stmt(R"sql(
    SELECT id FROM devices WHERE uuid = ?1 OR (length(?1) = 40 AND uuid = substr(?1, 1, 39))
    ORDER BY uuid = ?1 DESC LIMIT 1)sql",
                       "look up a device");
  s.bind(1, uuid);
  if (!s.step()) return std::nullopt;
  return s.integer(0);
}

std::optional<BestConfig> Database::best_config(DeviceId device, const Problem& p, std::string_view family,
                                                std::optional<std::string> protocol) const {
  std::lock_guard lock(impl_->mutex);
  // v_best holds one row per protocol; the most preferred protocol's answers when none is named.
  auto s = impl_->stmt(R"sql(
    SELECT config_id, config_name, params_json, median_ms, run_id, protocol FROM v_best
    WHERE device_id = ?1 AND m = ?2 AND n = ?3 AND k = ?4 AND dtype = ?5 AND epilogue = ?6
      AND family = ?7 AND (?8 IS NULL OR protocol = ?8)
    ORDER BY protocol_preference LIMIT 1)sql",
                       "look up the best config");
  s.bind(1, device).bind(2, p.m).bind(3, p.n).bind(4, p.k).bind(5, to_string(p.dtype));
  s.bind(6, to_string(p.epilogue)).bind(7, family).bind(8, protocol);
  if (!s.step()) return std::nullopt;
  return BestConfig{s.integer(0), as_text(s.column(1)), as_text(s.column(2)),
                    as_double(s.column(3)), s.integer(4), as_text(s.column(5))};
}

ResultSet Database::query(std::string_view sql, const std::vector<Value>& params) const {
  ResultSet out;
  query_each(
      sql, params, [&](const std::vector<std::string>& columns) { out.columns = columns; },
      [&](const std::vector<Value>& row) { out.rows.push_back(row); });
  return out;
}

void Database::query_each(std::string_view sql, const std::vector<Value>& params,
                          const std::function<void(const std::vector<std::string>&)>& on_columns,
                          const std::function<void(const std::vector<Value>&)>& on_row) const {
  std::lock_guard lock(impl_->mutex);
  const char* what = "run the query";
  const auto& path = impl_->path;
  Stmt s(impl_->db, path, sql, what);
  if (!s.get()) throw QueryRefused("the query for " + quote(path) + " is empty");
  {
    // Anything after the first statement must be blank or comments.
    std::string_view rest(s.tail());
    Stmt next(impl_->db, path, rest, what);
    if (next.get())
      throw QueryRefused("refused: one statement at a time (" + quote(path) + ")");
  }
  if (!sqlite3_stmt_readonly(s.get()))
    throw QueryRefused("refused: the statement would write to " + quote(path) +
                       ", and queries are read-only");
  for (std::size_t i = 0; i < params.size(); ++i) s.bind_value(static_cast<int>(i) + 1, params[i]);
  const int n = sqlite3_column_count(s.get());
  std::vector<std::string> columns;
  for (int i = 0; i < n; ++i) columns.emplace_back(sqlite3_column_name(s.get(), i));
  on_columns(columns);
  std::vector<Value> row;
  while (s.step()) {
    row.clear();
    for (int i = 0; i < n; ++i) row.push_back(s.column(i));
    on_row(row);
  }
}

bool is_null(const Value& v) { return std::holds_alternative<std::monostate>(v); }

std::int64_t as_int(const Value& v) {
  if (auto* n = std::get_if<std::int64_t>(&v)) return *n;
  if (auto* d = std::get_if<double>(&v)) return static_cast<std::int64_t>(*d);
  if (auto* s = std::get_if<std::string>(&v)) return std::stoll(*s);
  throw std::logic_error("as_int of a NULL value");
}

double as_double(const Value& v) {
  if (auto* d = std::get_if<double>(&v)) return *d;
  if (auto* n = std::get_if<std::int64_t>(&v)) return static_cast<double>(*n);
  if (auto* s = std::get_if<std::string>(&v)) return std::stod(*s);
  throw std::logic_error("as_double of a NULL value");
}

std::string as_text(const Value& v) {
  if (auto* s = std::get_if<std::string>(&v)) return *s;
  if (auto* n = std::get_if<std::int64_t>(&v)) return std::to_string(*n);
  if (auto* d = std::get_if<double>(&v)) {
    // SQLite's own rendering of a REAL (what the sqlite3 shell prints).
    char* text = sqlite3_mprintf("%!.15g", *d);
    std::string out = text ? text : "";
    sqlite3_free(text);
    return out;
  }
  return "";
}

}  // namespace coalesce::db
