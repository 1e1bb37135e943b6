// The writer lease (see lease.hpp).
#include "lease.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "db.hpp"

namespace coalesce::db {

namespace {

std::string holder_of(const std::filesystem::path& lock) {
  std::ifstream in(lock);
  std::string who;
  std::getline(in, who);
  return who.empty() ? "another process" : who;
}

std::string this_process() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) std::strcpy(host, "?");
  std::ostringstream who;
  who << "pid " << getpid() << " on " << host;
  return who.str();
}

}  // namespace

std::filesystem::path WriterLease::lock_path(const std::filesystem::path& database) {
  return std::filesystem::path(database.string() + "-lock");
}

WriterLease::WriterLease(const std::filesystem::path& database) : lock_path_(lock_path(database)) {
  // The holder unlinks the side file when it lets go, so a lock taken on a file that was unlinked
  // meanwhile is worthless: retry until the locked file is the one at the path.
  for (;;) {
    fd_ = ::open(lock_path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0)
      throw Error("cannot create the writer lock " + lock_path_.string() + ": " +
                  std::strerror(errno));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      int err = errno;
      ::close(fd_);
      fd_ = -1;
      if (err == EWOULDBLOCK)
        throw WriterBusy(database.string() + " is being written by " + holder_of(lock_path_) +
                         "; wait for it to finish (one writer per database)");
      throw Error("cannot lock " + lock_path_.string() + ": " + std::strerror(err));
    }
    struct stat held {}, at_path {};
    if (::fstat(fd_, &held) == 0 && ::stat(lock_path_.c_str(), &at_path) == 0 &&
        held.st_ino == at_path.st_ino && held.st_dev == at_path.st_dev)
      break;
    ::close(fd_);
    fd_ = -1;
  }
  // Name the holder for whoever is refused next; failing to write it only loses that courtesy.
  std::string who = this_process() + "\n";
  if (::ftruncate(fd_, 0) == 0) {
    ssize_t written = ::write(fd_, who.data(), who.size());
    (void)written;
  }
}

void WriterLease::refuse_if_held(const std::filesystem::path& database, const std::string& what_waits) {
  const std::filesystem::path lock = lock_path(database);
  const int fd = ::open(lock.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;  // no side file: no writer
  const bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);
  if (held) throw WriterBusy(database.string() + " is being written by " + holder_of(lock) + "; " + what_waits);
}

WriterLease::~WriterLease() {
  if (fd_ < 0) return;
  ::unlink(lock_path_.c_str());  // while still locked: see the retry loop in the constructor
  ::close(fd_);
}

}  // namespace coalesce::db
