// Output paths checked against inputs, and whole-file writes (see output_file.hpp).
#include "output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace coalesce::files {

namespace fs = std::filesystem;

namespace {

// Linux's own bound on a chain of symlinks (MAXSYMLINKS): deeper is a loop.
constexpr int kMaxSymlinks = 40;

// The side files SQLite keeps beside a database: overwriting one corrupts it as surely.
constexpr const char* kDatabaseSideFiles[] = {"-wal", "-shm", "-journal", "-lock"};

struct Identity {
  fs::path path;
  bool exists = false;
  dev_t device = 0;
  ino_t inode = 0;
};

Identity identity_of(const fs::path& path) {
  Identity id{resolved(path)};
  struct stat st {};
  if (::stat(id.path.c_str(), &st) == 0) {
    id.exists = true;
    id.device = st.st_dev;
    id.inode = st.st_ino;
  }
  return id;
}

bool same_file(const Identity& a, const Identity& b) {
  if (a.path == b.path) return true;
  return a.exists && b.exists && a.device == b.device && a.inode == b.inode;
}

}  // namespace

fs::path resolved(const fs::path& path) {
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  if (ec) p = path;
  for (int hops = 0; hops < kMaxSymlinks; ++hops) {
    // The directory part through realpath's rules (weakly_canonical), the last part by hand: a
    // dangling symlink there is where a write would land.
    fs::path dir = fs::weakly_canonical(p.parent_path(), ec);
    if (ec) dir = p.parent_path().lexically_normal();
    const fs::path name = p.filename();
    if (name.empty() || name == "." || name == "..") return (dir / name).lexically_normal();
    const fs::path here = dir / name;
    if (!fs::is_symlink(fs::symlink_status(here, ec))) return here;
    const fs::path target = fs::read_symlink(here, ec);
    if (ec) return here;
    p = target.is_absolute() ? target : dir / target;
  }
  return p.lexically_normal();
}

void refuse_output_onto_inputs(const std::string& output_role, const std::string& output,
                               const std::vector<Input>& inputs) {
  const Identity out = identity_of(output);
  for (const Input& in : inputs) {
    if (in.path.empty()) continue;
    const Identity file = identity_of(in.path);
    if (same_file(out, file))
      throw OutputIsInput(output_role + " " + output + " is " + in.role + " " + in.path +
                          ": writing it would destroy it; write to another file");
    if (!in.database) continue;
    for (const char* suffix : kDatabaseSideFiles) {
      Identity side = identity_of(file.path.string() + suffix);
      if (same_file(out, side))
        throw OutputIsInput(output_role + " " + output + " is the " + std::string(suffix + 1) + " file of " +
                            in.role + " " + in.path + ": writing it would corrupt the database; write to another file");
    }
  }
}

PendingFile::PendingFile(const fs::path& path) : path_(path), target_(resolved(path)) {
  std::string name = (target_.parent_path() / ("." + target_.filename().string() + ".XXXXXX")).string();
  const int fd = ::mkstemp(name.data());
  if (fd < 0) throw std::runtime_error("cannot write " + path_.string() + " (" + std::strerror(errno) + ")");
  // mkstemp makes the file 0600; an output is as readable as any file the user creates.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  ::close(fd);
  temporary_ = name;
  out_.open(temporary_, std::ios::binary | std::ios::trunc);
  if (!out_) {
    ::unlink(temporary_.c_str());
    throw std::runtime_error("cannot write " + path_.string());
  }
}

PendingFile::~PendingFile() {
  if (committed_) return;
  out_.close();
  ::unlink(temporary_.c_str());
}

void PendingFile::commit() {
  out_.flush();
  const bool written = static_cast<bool>(out_);
  out_.close();
  if (!written || out_.fail()) throw std::runtime_error("cannot write " + path_.string());
  if (::rename(temporary_.c_str(), target_.c_str()) != 0)
    throw std::runtime_error("cannot write " + path_.string() + " (" + std::strerror(errno) + ")");
  committed_ = true;
}

void write_whole(const fs::path& path, std::string_view text) {
  PendingFile file(path);
  file.stream().write(text.data(), static_cast<std::streamsize>(text.size()));
  file.commit();
}

}  // namespace coalesce::files
