//===- OutputGuard.h - an output file never written over an input -----------===//
// coalesce-opt and coalesce-translate open their -o file before they read the input through to
// the end, and LLVM's ToolOutputFile removes it when the tool fails: `-o` naming the input (or the
// tuning database of --coalesce-apply-tile-config=db=) truncated it, and a failing run then deleted
// it (issue 45). The drivers refuse such an -o before anything is opened.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "llvm/Support/raw_ostream.h"

namespace coalesce::tools {

/// A file the tool reads, and how a refusal names it ("the input", "the tuning database (db=)").
struct ReadFile {
  std::string path;
  std::string role;
};

/// Every `db=PATH` in the arguments (pass options such as
/// "--coalesce-apply-tile-config=db=results/coalesce.db device=H200"); PATH ends at a space and
/// loses one pair of surrounding quotes.
inline std::vector<ReadFile> tuning_databases(int argc, char** argv) {
  std::vector<ReadFile> found;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    for (size_t at = arg.find("db="); at != std::string_view::npos; at = arg.find("db=", at + 3)) {
      if (at > 0 && arg[at - 1] != ' ' && arg[at - 1] != '=' && arg[at - 1] != '{') continue;
      std::string_view path = arg.substr(at + 3);
      path = path.substr(0, path.find_first_of(" }"));
      if (path.size() >= 2 && (path.front() == '\'' || path.front() == '"') && path.back() == path.front())
        path = path.substr(1, path.size() - 2);
      if (!path.empty()) found.push_back({std::string(path), "the tuning database (db=)"});
    }
  }
  return found;
}

/// Prints one sentence and returns true when `output` is the same file as one of `reads`
/// (through symlinks, `..` or a hard link: the same device and inode). "-" is stdin or stdout.
inline bool output_is_an_input(std::string_view tool, const std::string& output,
                               const std::vector<ReadFile>& reads) {
  if (output.empty() || output == "-") return false;
  for (const ReadFile& read : reads) {
    std::error_code error;
    if (read.path == "-" || !std::filesystem::equivalent(read.path, output, error)) continue;
    llvm::errs() << tool << ": -o " << output << " is " << read.role << " " << read.path
                 << ": writing it would destroy it; write to another file\n";
    return true;
  }
  return false;
}

}  // namespace coalesce::tools
