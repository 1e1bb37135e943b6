// One writer per database: a second writer (in this process or another) is refused with a
// sentence, readers go on while a sweep writes, and a writer killed with SIGKILL mid-sweep leaves
// a consistent database with every committed row and no stale lease.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "kernels/simt/family.hpp"
#include "schema/db.hpp"
#include "schema/lease.hpp"
#include "schema/rows.hpp"
#include "test_util.hpp"

namespace coalesce::db {
namespace {

using testing::h200;
using testing::ok_row;
using testing::run_info;
using testing::TempDir;

TEST(Lease, SecondWriterInThisProcessIsRefused) {
  TempDir dir;
  auto path = dir / "l.db";
  {
    auto first = Database::open(path, Mode::read_write);
    EXPECT_TRUE(std::filesystem::exists(WriterLease::lock_path(path)));
    try {
      Database::open(path, Mode::read_write);
      FAIL() << "two writers";
    } catch (const WriterBusy& e) {
      std::string msg = e.what();
      EXPECT_NE(msg.find(path.string()), std::string::npos) << msg;
      EXPECT_NE(msg.find("pid " + std::to_string(getpid())), std::string::npos) << msg;
    }
    auto reader = Database::open(path, Mode::read_only);  // readers need no lease
    EXPECT_EQ(reader.schema_version(), latest_schema_version());
  }
  EXPECT_FALSE(std::filesystem::exists(WriterLease::lock_path(path)));
  EXPECT_NO_THROW(Database::open(path, Mode::read_write));
}

TEST(Lease, SecondWriterInAnotherProcessIsRefused) {
  TempDir dir;
  auto path = dir / "p.db";
  auto writer = Database::open(path, Mode::read_write);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    try {
      Database::open(path, Mode::read_write);
      _exit(0);
    } catch (const WriterBusy&) {
      _exit(3);
    } catch (...) {
      _exit(4);
    }
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3) << "the child was not refused with WriterBusy";
}

TEST(Lease, ReaderSeesCommittedRowsWhileTheWriterWorks) {
  TempDir dir;
  auto path = dir / "r.db";
  auto writer = Database::open(path, Mode::read_write);
  DeviceId dev = writer.upsert_device(h200());
  RunId run = writer.begin_run(run_info(dev));
  ProblemId prob = writer.upsert_problem({1024, 1024, 1024, Dtype::f32, Epilogue::bias_gelu});
  auto reader = Database::open(path, Mode::read_only);
  for (int i = 1; i <= 3; ++i) {
    SimtConfig c;
    c.bm = 32 * i;
    ConfigId id = writer.upsert_config(config_row(from_simt(c), Dtype::f32, Epilogue::bias_gelu, "h"));
    ASSERT_TRUE(writer.insert_measurement(ok_row(run, dev, prob, "coalesce", id, 0.5 + i)));
    EXPECT_EQ(as_int(reader.query("SELECT count(*) FROM measurements").rows[0][0]), i);
  }
}

// A child sweeps forever in lock step with the parent: after each committed row it reports on
// one pipe and waits for the go-ahead on another. After the 40th report the parent gives one more
// go-ahead and kills the child with SIGKILL while it writes the 41st row (or just after), then
// checks integrity, the committed rows and the lease. The handshake bounds what the child can
// commit before the kill, whatever the scheduler does: 40 rows, or 41.
TEST(Lease, KilledWriterLosesNothingCommitted) {
  TempDir dir;
  auto path = dir / "k.db";
  int report[2], go[2];
  ASSERT_EQ(pipe(report), 0);
  ASSERT_EQ(pipe(go), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(report[0]);
    close(go[1]);
    try {
      auto db = Database::open(path, Mode::read_write);
      DeviceId dev = db.upsert_device(h200());
      RunId run = db.begin_run(run_info(dev));
      ProblemId prob = db.upsert_problem({2048, 2048, 2048, Dtype::f32, Epilogue::bias_gelu});
      for (int i = 0;; ++i) {
        ConfigId c = db.upsert_config({"simt", "cfg_" + std::to_string(i), "{}", "h"});
        db.insert_measurement(ok_row(run, dev, prob, "coalesce", c, 1.0 + i));
        char byte = 1;
        if (write(report[1], &byte, 1) != 1) _exit(5);
        if (read(go[0], &byte, 1) != 1) _exit(6);
      }
    } catch (...) {
      _exit(4);
    }
  }
  close(report[1]);
  close(go[0]);
  constexpr int kReported = 40;
  int committed = 0;
  char byte = 1;
  while (committed < kReported && read(report[0], &byte, 1) == 1) {
    ++committed;
    ASSERT_EQ(write(go[1], &byte, 1), 1);  // the last go-ahead starts row 41
  }
  ASSERT_EQ(committed, kReported) << "the child writer stopped early";
  ASSERT_EQ(kill(child, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));
  close(report[0]);
  close(go[1]);

  auto db = Database::open(path, Mode::read_write);  // no stale lease after SIGKILL
  EXPECT_EQ(as_text(db.query("PRAGMA integrity_check").rows.at(0).at(0)), "ok");
  EXPECT_TRUE(db.query("PRAGMA foreign_key_check").rows.empty());
  auto count = as_int(db.query("SELECT count(*) FROM measurements").rows[0][0]);
  EXPECT_GE(count, committed);      // every row the child reported as committed
  EXPECT_LE(count, committed + 1);  // plus the one it was let start before the kill
  EXPECT_EQ(as_text(db.query("SELECT status FROM runs").rows[0][0]), "interrupted");
}

// The page numbers of the current frames in a WAL file: its header is 32 bytes, each frame a
// 24-byte header (the page number first, big-endian, and at 8 the two salts of the WAL's
// header, which a frame left from before the WAL was restarted does not carry), then the page.
std::vector<std::uint32_t> wal_pages(const std::string& wal, std::uint32_t& page_size) {
  auto be32 = [&](std::size_t at) {
    return std::uint32_t(std::uint8_t(wal[at])) << 24 | std::uint32_t(std::uint8_t(wal[at + 1])) << 16 |
           std::uint32_t(std::uint8_t(wal[at + 2])) << 8 | std::uint32_t(std::uint8_t(wal[at + 3]));
  };
  std::vector<std::uint32_t> pages;
  if (wal.size() < 32) return pages;
  page_size = be32(8);
  for (std::size_t at = 32; at + 24 + page_size <= wal.size(); at += 24 + page_size)
    if (wal.compare(at + 8, 8, wal, 16, 8) == 0) pages.push_back(be32(at));
  return pages;
}

// A writer killed while a checkpoint copies its WAL into the file leaves the file itself
// inconsistent: the pages the checkpoint had written are newer than the rest, and only the WAL
// makes them whole again. SQLite's recovery reads the WAL, so nothing is lost; but a reader of
// the file alone (an `immutable` open) sees a malformed image. A sweep killed at the wrong
// moment then could not be resumed ("database disk image is malformed", found by
// tuner_sweep_kill_test under load). Here the child commits rows in WAL mode and dies; every page
// its WAL holds is then overwritten in the file (all but page 1's 100-byte header, which a
// checkpoint always writes whole and SQLite reads before the WAL): the file alone is garbage,
// the file with its WAL is the database. Opening it to write must recover every row.
TEST(Lease, KilledWriterMidCheckpointIsRecoveredFromItsWal) {
  TempDir dir;
  auto path = dir / "c.db";
  constexpr int kRows = 300;
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    try {
      auto db = Database::open(path, Mode::read_write);
      DeviceId dev = db.upsert_device(h200());
      RunId run = db.begin_run(run_info(dev));
      ProblemId prob = db.upsert_problem({2048, 2048, 2048, Dtype::f32, Epilogue::bias_gelu});
      for (int i = 0; i < kRows; ++i) {
        ConfigId c = db.upsert_config({"simt", "cfg_" + std::to_string(i), "{}", "h"});
        db.insert_measurement(ok_row(run, dev, prob, "coalesce", c, 1.0 + i));
      }
      _exit(0);  // inside db's scope: the connection never checkpoints or closes, as under SIGKILL
    } catch (...) {
      _exit(4);
    }
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the child writer failed";

  std::uint32_t page_size = 0;
  const auto pages = wal_pages(testing::contents(dir / "c.db-wal"), page_size);
  ASSERT_FALSE(pages.empty()) << "the child left no WAL";
  ASSERT_NE(std::find(pages.begin(), pages.end(), 1u), pages.end()) << "the WAL should hold page 1 (the schema's root)";
  std::string file = testing::contents(path);
  for (std::uint32_t page : pages) {
    const std::size_t begin = std::size_t(page - 1) * page_size + (page == 1 ? 100 : 0);
    const std::size_t end = std::min(file.size(), std::size_t(page) * page_size);
    for (std::size_t at = begin; at < end; ++at) file[at] = char(0xA5);
  }
  testing::write_file(path, file);

  auto db = Database::open(path, Mode::read_write);
  EXPECT_EQ(as_text(db.query("PRAGMA integrity_check").rows.at(0).at(0)), "ok");
  EXPECT_EQ(as_int(db.query("SELECT count(*) FROM measurements").rows[0][0]), kRows);
  EXPECT_EQ(as_text(db.query("SELECT status FROM runs").rows[0][0]), "interrupted");
}

// A writer killed inside a transaction of the rollback journal (a migration is one: they run
// before the file goes to WAL) leaves a hot journal, and the file may already hold pages of the
// unfinished transaction: SQLite spills them there once its cache is full. Here the child
// creates a table and fills it through a two-page cache, then dies before the commit. Opening
// the database to write must roll the transaction back (SQLite's recovery, which only a
// writable connection runs) and find the file as it was.
/// Leaves `path` (a fresh database) with the hot journal of a writer killed mid-transaction.
void leave_hot_journal(const std::filesystem::path& path) {
  { auto db = Database::open(path, Mode::read_write); }
  const std::string before = testing::contents(path);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    sqlite3* db = nullptr;
    if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) _exit(4);
    const char* sql =
        "PRAGMA cache_size = 2; BEGIN IMMEDIATE; CREATE TABLE scratch (x BLOB);"
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) "
        "INSERT INTO scratch SELECT randomblob(600) FROM n;";
    if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK) _exit(5);
    _exit(0);  // no COMMIT, no close: as under SIGKILL
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the child writer failed";
  ASSERT_TRUE(std::filesystem::exists(path.string() + "-journal")) << "the child left no journal";
  ASSERT_NE(testing::contents(path), before) << "the child's transaction never reached the file";
}

TEST(Lease, KilledWriterMidTransactionIsRolledBack) {
  TempDir dir;
  auto path = dir / "j.db";
  ASSERT_NO_FATAL_FAILURE(leave_hot_journal(path));

  auto db = Database::open(path, Mode::read_write);
  EXPECT_EQ(as_text(db.query("PRAGMA integrity_check").rows.at(0).at(0)), "ok");
  EXPECT_EQ(as_int(db.query("SELECT count(*) FROM sqlite_schema WHERE name = 'scratch'").rows[0][0]), 0);
  EXPECT_EQ(as_int(db.query("SELECT count(*) FROM measurements").rows[0][0]), 0);
}

// A reader cannot roll a hot journal back (only a writable connection's first read does), and
// SQLite's own word for that is "attempt to write a readonly database" (issue 45): every
// read-only open says instead that a killed writer left the file mid-write and how to recover,
// and leaves the file and its journal as they were.
TEST(Lease, KilledWriterMidTransactionIsToldToAReader) {
  TempDir dir;
  auto path = dir / "j.db";
  ASSERT_NO_FATAL_FAILURE(leave_hot_journal(path));
  const std::string file = testing::contents(path);
  const std::string journal = testing::contents(path.string() + "-journal");
  for (const auto& open : std::vector<std::function<void()>>{
           [&] { Database::open(path, Mode::read_only); }, [&] { schema_version_of(path); },
           [&] { copy_database(path, dir / "copy.db"); }}) {
    try {
      open();
      ADD_FAILURE() << "a database with a hot journal was read";
    } catch (const Error& e) {
      const std::string msg = e.what();
      EXPECT_EQ(msg.rfind(path.string() + " was left mid-write by a killed writer", 0), 0u) << msg;
      EXPECT_NE(msg.find("sqlite3 " + path.string() + " 'PRAGMA integrity_check'"), std::string::npos) << msg;
      EXPECT_EQ(msg.find("readonly"), std::string::npos) << msg;
    }
  }
  EXPECT_EQ(testing::contents(path), file);
  EXPECT_EQ(testing::contents(path.string() + "-journal"), journal);

  // What the message advises works: a writable open rolls the transaction back.
  auto db = Database::open(path, Mode::read_write);
  EXPECT_EQ(as_text(db.query("PRAGMA integrity_check").rows.at(0).at(0)), "ok");
}

}  // namespace
}  // namespace coalesce::db
