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
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "schema/db.hpp"

extern char** environ;

namespace coalesce::sweep_test {

/// How a coalesce-tune process ended, and what it printed on stdout (and on stderr, where that
/// went to a file).
struct Exit {
  int code = -1;    ///< exit status, or -1 when killed
  int signal = 0;   ///< the signal that killed it, or 0
  std::string out;  ///< stdout
  std::string err;  ///< stderr, where spawn was given a file for it
};

/// Starts `exe args...` with the environment plus `env` ("NAME=value"); stdout goes to `out`
/// (a file), stderr to `err` where given, else through to the test's log. Returns the child's
/// pid.
inline pid_t spawn(const std::string& exe, const std::vector<std::string>& args, const std::vector<std::string>& env,
                   const std::filesystem::path& out, const std::filesystem::path& err = {}) {
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
    if (!err.empty() && !std::freopen(err.c_str(), "w", stderr)) _exit(126);
    execve(exe.c_str(), argv.data(), envp.data());
    _exit(127);
  }
  return pid;
}

/// The text of a child's output file, which is then removed.
inline std::string take_output(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::ostringstream s;
  s << in.rdbuf();
  std::filesystem::remove(file);
  return s.str();
}

/// Waits for `pid` and reads its stdout from `out` (and its stderr from `err`, where given).
inline Exit finish(pid_t pid, const std::filesystem::path& out, const std::filesystem::path& err = {}) {
  int status = 0;
  waitpid(pid, &status, 0);
  Exit r;
  if (WIFEXITED(status)) r.code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  r.out = take_output(out);
  if (!err.empty()) r.err = take_output(err);
  return r;
}

/// Runs `exe args...` to its end. With `keep_stderr`, its stderr (the sweep's progress lines)
/// is kept in Exit::err instead of the test's log, for tests that run many sweeps and should
/// print only what fails.
inline Exit run(const std::string& exe, const std::vector<std::string>& args, const std::vector<std::string>& env = {},
                bool keep_stderr = false) {
  const std::filesystem::path tmp = std::filesystem::temp_directory_path();
  const std::string pid = std::to_string(getpid());
  const std::filesystem::path out = tmp / ("coalesce-tune-stdout-" + pid);
  const std::filesystem::path err = keep_stderr ? tmp / ("coalesce-tune-stderr-" + pid) : std::filesystem::path();
  return finish(spawn(exe, args, env, out, err), out, err);
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

/// One line per row of `sql`, every value spelled out: NULL, integers, reals to 17 digits (so
/// equal lines are equal numbers), quoted text.
inline std::multiset<std::string> rows_as_text(const std::filesystem::path& path, const std::string& sql) {
  std::multiset<std::string> rows;
  for (const auto& row : query(path, sql).rows) {
    std::string line;
    for (const db::Value& v : row) {
      if (!line.empty()) line += " | ";
      if (db::is_null(v)) {
        line += "NULL";
      } else if (const double* d = std::get_if<double>(&v)) {
        char buf[40];
        std::snprintf(buf, sizeof buf, "%.17g", *d);
        line += buf;
      } else if (std::holds_alternative<std::string>(v)) {
        line += "'" + db::as_text(v) + "'";
      } else {
        line += db::as_text(v);
      }
    }
    rows.insert(line);
  }
  return rows;
}

/// Everything a sweep's database holds that the stand-in worker makes deterministic, table by
/// table: every column but row ids (each foreign key is spelled by its natural key instead),
/// timestamps and the runs' resume counter. Two databases of the same stand-in sweep, however
/// often it was killed and resumed, must hold the same. A column a migration adds must be sorted
/// here into compared or left out, or `unclassified` names it.
using Content = std::map<std::string, std::multiset<std::string>>;
inline Content deterministic_content(const std::filesystem::path& path, std::vector<std::string>* unclassified = nullptr) {
  // Per table: the SELECT and the columns it leaves out on purpose.
  struct Table {
    const char* name;
    const char* sql;
    std::set<std::string> left_out;
  };
  const std::vector<Table> tables = {
      {"devices", "SELECT uuid, name, arch, cc_major, cc_minor, sm_count, l2_bytes, global_mem_bytes, max_sm_clock_mhz, "
                  "fp32_lanes_per_sm, smem_per_block_optin, smem_per_sm, max_threads_per_block, max_threads_per_sm, "
                  "regs_per_sm, max_regs_per_thread, max_blocks_per_sm FROM devices",
       {"id"}},
      {"runs", "SELECT (SELECT uuid FROM devices d WHERE d.id = r.device_id), status, resume_key, tool, tool_version, "
               "git_revision, command_line, host, driver_version, driver_release, runtime_version, toolkit, harness_json "
               "FROM runs r",
       {"id", "device_id", "started_at", "ended_at", "resumed"}},
      {"problems", "SELECT m, n, k, dtype, epilogue FROM problems", {"id"}},
      {"configs", "SELECT family, name, params_json, source_hash FROM configs", {"id"}},
      {"builds", "SELECT c.name, c.source_hash, b.arch, b.toolkit, b.status, b.registers, b.spill_stores_bytes, "
                 "b.spill_loads_bytes, b.stack_bytes, b.smem_bytes, b.threads, b.blocks_per_sm, b.predicted_registers, "
                 "b.predicted_smem_bytes, b.predicted_blocks_per_sm, b.compile_ms, b.log, b.attempts, "
                 "(SELECT COUNT(*) FROM measurements x WHERE x.build_id = b.id) AS measured_rows "
                 "FROM builds b JOIN configs c ON c.id = b.config_id",
       {"id", "config_id", "created_at"}},
      {"measurements", "SELECT r.resume_key, d.uuid, p.m, p.n, p.k, p.dtype, p.epilogue, x.method, c.name, c.source_hash, "
                       "bc.name, bc.source_hash, x.status, x.prune_reason, x.median_ms, x.min_ms, x.max_ms, x.p10_ms, "
                       "x.p90_ms, x.rel_spread, x.samples, x.tflops, x.rel_err, x.max_abs_err, x.max_scaled_err, "
                       "x.sm_clock_before_mhz, x.sm_clock_after_mhz, x.grid_blocks, x.workspace_bytes, x.steady_state, x.protocol, "
                       "x.message "
                       "FROM measurements x JOIN runs r ON r.id = x.run_id JOIN devices d ON d.id = x.device_id "
                       "JOIN problems p ON p.id = x.problem_id LEFT JOIN configs c ON c.id = x.config_id "
                       "LEFT JOIN builds b ON b.id = x.build_id LEFT JOIN configs bc ON bc.id = b.config_id",
       {"id", "run_id", "device_id", "problem_id", "config_id", "build_id", "created_at"}},
  };
  Content content;
  for (const Table& t : tables) {
    // The command line names the database: the same command on another file is the same sweep.
    for (std::string row : rows_as_text(path, t.sql)) {
      for (std::size_t at; (at = row.find(path.string())) != std::string::npos;) row.replace(at, path.string().size(), "<db>");
      content[t.name].insert(std::move(row));
    }
    if (!unclassified) continue;
    const std::string sql(t.sql);
    for (const auto& column : query(path, std::string("SELECT name FROM pragma_table_info('") + t.name + "')").rows) {
      const std::string c = db::as_text(column[0]);
      // Compared when the SELECT names it (as `c`, `x.c`, `b.c`), else it must be left out.
      const bool named = sql.find(" " + c + ",") != std::string::npos || sql.find("." + c + ",") != std::string::npos ||
                         sql.find(" " + c + " ") != std::string::npos || sql.find("." + c + " ") != std::string::npos;
      if (!named && !t.left_out.count(c)) unclassified->push_back(std::string(t.name) + "." + c);
    }
  }
  return content;
}

/// The rows in which two contents differ, one line each ("<table> only in first: ..."); empty
/// when they are the same.
inline std::string content_diff(const Content& first, const Content& second) {
  std::string diff;
  auto only = [&](const Content& a, const Content& b, const char* which) {
    for (const auto& [table, rows] : a) {
      const auto it = b.find(table);
      std::multiset<std::string> left = rows;
      if (it != b.end())
        for (const std::string& r : it->second)
          if (auto f = left.find(r); f != left.end()) left.erase(f);
      for (const std::string& r : left) diff += table + " only in " + which + ": " + r + "\n";
    }
  };
  only(first, second, "first");
  only(second, first, "second");
  return diff;
}

}  // namespace coalesce::sweep_test
