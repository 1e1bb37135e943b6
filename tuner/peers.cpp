// The peers of `sweep --peers` (see peers.hpp): the script's command lines, whether torch
// imports, and running the script.
#include "peers.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>

extern char** environ;

namespace coalesce::tuner {

namespace fs = std::filesystem;

namespace {

bool chosen(const PeersOptions& o, const std::string& mode) {
  return o.modes.empty() || std::find(o.modes.begin(), o.modes.end(), mode) != o.modes.end();
}

std::string number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

}  // namespace

std::optional<fs::path> find_peers_script(const fs::path& checkout) {
  if (checkout.empty()) return std::nullopt;
  std::error_code ec;
  const fs::path script = checkout / "scripts" / "torch_peers.py";
  if (fs::is_regular_file(script, ec)) return script;
  return std::nullopt;
}

std::vector<std::vector<std::string>> peers_commands(const PeersOptions& options, const PeersCall& call) {
  const Problem& p = call.problem;
  // Everything that decides the protocol and the sampling goes along: the rows of the script's run
  // then fall in the sweep's protocol (v_run_protocols) and stop by the same rule.
  std::vector<std::string> common = {options.python,
                                     options.script.string(),
                                     "--db",
                                     call.db.string(),
                                     "--tune",
                                     call.tune.string(),
                                     "--shape",
                                     shape_string(p),
                                     "--dtype",
                                     std::string(to_string(p.dtype)),
                                     "--epilogue",
                                     std::string(to_string(p.epilogue)),
                                     "--device",
                                     std::to_string(call.device),
                                     "--spin-cycles",
                                     std::to_string(call.timing.spin_cycles),
                                     "--min-samples",
                                     std::to_string(call.timing.min_samples),
                                     "--max-samples",
                                     std::to_string(call.timing.max_samples)};
  if (call.timing.sample_gap_ms > 0) {
    common.push_back("--sample-gap-ms");
    common.push_back(number(call.timing.sample_gap_ms));
  }
  std::vector<std::vector<std::string>> out;
  std::vector<std::string> first = common;
  bool any = false;
  for (const char* method : {"torch_eager", "torch_compile", "triton"})
    if (chosen(options, method)) {
      first.push_back("--method");
      first.push_back(method);
      any = true;
    }
  if (any) {
    first.push_back("--compile-mode");
    first.push_back("default");
    out.push_back(std::move(first));
  }
  if (chosen(options, "torch_compile_max_autotune")) {
    std::vector<std::string> autotune = common;
    for (const char* arg : {"--method", "torch_compile", "--compile-mode", "max-autotune-no-cudagraphs"})
      autotune.push_back(arg);
    out.push_back(std::move(autotune));
  }
  return out;
}

std::optional<std::string> torch_unavailable(const std::string& python) {
  // The import's own last line says why ("ModuleNotFoundError: No module named 'torch'").
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return "cannot create a pipe to ask " + python;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDERR_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  // `-c` puts the working directory first on sys.path, where a script run by its path has its
  // own directory instead: without it, the import is the one the script will make.
  const std::string code = "import sys; sys.path.pop(0); import torch";
  char* argv[] = {const_cast<char*>(python.c_str()), const_cast<char*>("-c"), const_cast<char*>(code.c_str()),
                  nullptr};
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, python.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  if (rc != 0) {
    close(out[0]);
    return python + " does not start: " + std::strerror(rc);
  }
  std::string said;
  char buf[4096];
  for (ssize_t n; (n = read(out[0], buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    said.append(buf, static_cast<std::size_t>(n));
  }
  close(out[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return std::nullopt;
  std::string last;
  std::istringstream lines(said);
  for (std::string line; std::getline(lines, line);)
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && last.empty()) return python + " was not found";
  return last.empty() ? python + " -c 'import torch' failed" : last;
}

int run_and_wait(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = -1;
  if (posix_spawnp(&pid, args[0], nullptr, nullptr, args.data(), environ) != 0) return 127;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return 127;
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

}  // namespace coalesce::tuner
