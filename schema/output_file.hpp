// Output files that never destroy an input: a command's output path is refused when it is the
// same file as one it reads (the results database with its side files, a workload file, a diff's
// databases), however it is spelled, and outputs are written whole or not at all (issue 45).
#pragma once

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace coalesce::files {

/// A file a command reads, as it was named on the command line.
struct Input {
  std::string path;
  std::string role;       ///< how the message names it: "the database (--db)", "--workload"
  bool database = false;  ///< also guard SQLite's side files: PATH-wal, -shm, -journal and -lock
};

/// An output that would overwrite an input: bad usage, refused before anything is written.
class OutputIsInput : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Throws OutputIsInput (one sentence, naming `output_role` and the input) when `output` is the
/// same file as an input or a database's side file: through symlinks (dangling ones too, which
/// a write would follow), `..` and `.`, or a hard link (same device and inode).
void refuse_output_onto_inputs(const std::string& output_role, const std::string& output,
                               const std::vector<Input>& inputs);

/// `path` with every symlink followed (also a dangling last one and symlinks in the directory
/// part), `.` and `..` folded; what does not exist is kept as spelled. Absolute.
std::filesystem::path resolved(const std::filesystem::path& path);

/// A file written whole, as write_whole does, from a stream: the text goes to a fresh temporary
/// beside the target, renamed over it by commit(); destroyed uncommitted (an error, an
/// interrupt's unwinding), the temporary is removed and `path` is as it was.
class PendingFile {
 public:
  /// Throws std::runtime_error naming `path` when no temporary can be made beside it.
  explicit PendingFile(const std::filesystem::path& path);
  ~PendingFile();
  PendingFile(const PendingFile&) = delete;
  PendingFile& operator=(const PendingFile&) = delete;
  std::ostream& stream() { return out_; }
  /// Flushes and renames into place; throws std::runtime_error naming `path` on failure.
  void commit();

 private:
  std::filesystem::path path_, target_, temporary_;
  std::ofstream out_;
  bool committed_ = false;
};

/// Writes `text` to `path` through a fresh temporary file in its directory (mkstemp: never a
/// name a user's file could have), renamed over the file a symlink at `path` points to, so a
/// reader sees the old file or the new one, never a part; a failure leaves `path` as it was.
/// Throws std::runtime_error naming `path`.
void write_whole(const std::filesystem::path& path, std::string_view text);

}  // namespace coalesce::files
