// The writer lease: at most one read-write Database per results database at a time, across
// processes and within one. A second sweep on the same file is refused with a sentence naming the
// holder instead of interleaving its rows with the first (SQLite alone would serialize the
// transactions, not the sweeps).
//
// The lease is an exclusive flock(2) on the side file `<database>-lock`. The database file itself
// is never opened for it: closing any descriptor of a file drops the process's POSIX locks on
// it, which are SQLite's (sqlite.org/howtocorrupt.html, "POSIX advisory locks"). The kernel
// releases the lock when its holder dies, so `kill -9` leaves no stale lease.
#pragma once

#include <filesystem>
#include <string>

namespace coalesce::db {

class WriterLease {
 public:
  /// Takes the lease of `database`; throws WriterBusy when another holder has it, Error when the
  /// side file cannot be created.
  explicit WriterLease(const std::filesystem::path& database);
  WriterLease(const WriterLease&) = delete;
  WriterLease& operator=(const WriterLease&) = delete;
  /// Removes the side file and releases the lock.
  ~WriterLease();

  /// Throws WriterBusy (naming the holder and `what_waits`) when a writer holds `database`'s
  /// lease now; creates nothing, so it may probe a database in a directory it cannot write.
  static void refuse_if_held(const std::filesystem::path& database, const std::string& what_waits);

  /// The side file's path, `<database>-lock`.
  static std::filesystem::path lock_path(const std::filesystem::path& database);

 private:
  std::filesystem::path lock_path_;
  int fd_ = -1;
};

}  // namespace coalesce::db
