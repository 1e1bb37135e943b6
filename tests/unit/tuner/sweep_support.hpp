// Shared by the sweep tests (tests/unit/tuner/sweep_test.cpp with a stand-in worker, and
// tests/gpu/tuner_sweep_test.cpp on the GPU): run coalesce-tune as a user does and read the
// database it wrote.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "schema/db.hpp"

extern char** environ;

namespace coalesce::sweep_test {

/// How a coalesce-tune process ended, and what it printed on stdout.
struct Exit {
  int code = -1;    ///< exit status, or -1 when killed
  int signal = 0;   ///< the signal that killed it, or 0
  std::string out;  ///< stdout
};

/// Starts `exe args...` with the environment plus `env` ("NAME=value"); stdout goes to `out`
/// (a file), stderr passes through to the test's log. Returns the child's pid.
inline pid_t spawn(const std::string& exe, const std::vector<std::string>& args, const std::vector<std::string>& env,
                   const std::filesystem::path& out) {
  std::vector<std::string> envs;
  for (char** e = environ; *e; ++e) envs.emplace_back(*e);
  for (const std::string& e : env) envs.push_back(e);
  std::vector<char*> argv{const_cast<char*>(exe.c_str())}, envp;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (std::string& e : envs) envp.push_back(e.data());
  envp.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    if (!std::freopen(out.c_str(), "w", stdout)) _exit(126);
    execve(exe.c_str(), argv.data(), envp.data());
    _exit(127);
  }
  return pid;
}

/// Waits for `pid` and reads its stdout from `out`.
inline Exit finish(pid_t pid, const std::filesystem::path& out) {
  int status = 0;
  waitpid(pid, &status, 0);
  Exit r;
  if (WIFEXITED(status)) r.code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  std::ifstream in(out);
  std::ostringstream s;
  s << in.rdbuf();
  r.out = s.str();
  std::filesystem::remove(out);
  return r;
}

inline Exit run(const std::string& exe, const std::vector<std::string>& args, const std::vector<std::string>& env = {}) {
  const std::filesystem::path out =
      std::filesystem::temp_directory_path() / ("coalesce-tune-stdout-" + std::to_string(getpid()));
  return finish(spawn(exe, args, env, out), out);
}

inline db::ResultSet query(const std::filesystem::path& path, const std::string& sql) {
  return db::Database::open(path, db::Mode::read_only).query(sql);
}

inline long long count(const std::filesystem::path& path, const std::string& sql) {
  return db::as_int(query(path, sql).rows.at(0).at(0));
}

/// Rows as (method, config, status, prune_reason): what an interrupted and resumed sweep must
/// share with an uninterrupted one. The winner unfused is named by its role when
/// `winner_by_role`, since on a GPU timing noise may crown another config.
using RowKey = std::tuple<std::string, std::string, std::string, std::string>;
inline std::multiset<RowKey> row_set(const std::filesystem::path& path, bool winner_by_role) {
  std::multiset<RowKey> rows;
  const std::string config = winner_by_role
                                 ? "CASE WHEN method = 'coalesce_unfused' THEN 'the winner' ELSE coalesce(config_name, '') END"
                                 : "coalesce(config_name, '')";
  for (const auto& r :
       query(path, "SELECT method, " + config + ", status, coalesce(prune_reason, '') FROM v_measurements").rows)
    rows.emplace(db::as_text(r[0]), db::as_text(r[1]), db::as_text(r[2]), db::as_text(r[3]));
  return rows;
}

}  // namespace coalesce::sweep_test
