// Plot data and the run of the embedded plotting script (see plots.hpp).
#include "plots.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <tuple>
#include <stdexcept>

#include "schema/embedded.hpp"
#include "schema/vocabulary.hpp"

extern const coalesce::EmbeddedFile kPlotScript[];
extern char** environ;

namespace coalesce::report {

namespace {

using db::as_text;

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

void write_csv(const std::filesystem::path& path, const std::vector<std::string>& header,
               const std::vector<std::vector<std::string>>& rows) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path.string());
  for (std::size_t i = 0; i < header.size(); ++i) out << (i ? "," : "") << header[i];
  out << '\n';
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) out << (i ? "," : "") << csv_field(row[i]);
    out << '\n';
  }
  if (!out.flush()) throw std::runtime_error("cannot write " + path.string());
}

std::string number(double v) { return format_value(Value(v), -1, ""); }

std::string shape_label(int m, int n, int k) {
  if (m == n && n == k) return std::to_string(m) + "³";
  return std::to_string(m) + "×" + std::to_string(n) + "×" + std::to_string(k);
}

/// Runs `python` with `args`; the script, if any, goes to its standard input. Its output goes
/// to our stderr (stdout carries the report). Returns the exit status, or -1 if it did not start.
int run_python(const std::string& python, const std::vector<std::string>& args,
               std::string_view script, bool quiet) {
  int pipefd[2];
  if (pipe(pipefd) != 0) return -1;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipefd[0], 0);
  posix_spawn_file_actions_addclose(&actions, pipefd[1]);
  if (quiet) {
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  } else {
    posix_spawn_file_actions_adddup2(&actions, 2, 1);
  }
  std::vector<std::string> argv_s = {python};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, python.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipefd[0]);
  if (rc != 0) {
    close(pipefd[1]);
    return -1;
  }
  const char* p = script.data();
  std::size_t left = script.size();
  while (left > 0) {
    ssize_t n = write(pipefd[1], p, left);
    if (n <= 0) break;  // the interpreter exited early; its status tells
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  close(pipefd[1]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

PlotResult make_plots(const db::Database& db, const Filters& filters, const PlotOptions& options) {
  std::error_code ec;
  std::filesystem::create_directories(options.out_dir, ec);
  if (!std::filesystem::is_directory(options.out_dir))
    throw std::runtime_error("cannot create the plot directory " + options.out_dir.string());

  // Per shape: every ok line of the comparison, each series once per device and shape, with
  // its time ÷ eager's of the fused row's run (the ratio plot's data). A peer from another device
  // of the model (--same-model) is a series of its own, named so, so that no line joins points of
  // two GPUs.
  const bool same_model = options.peers == PeerScope::same_model;
  const std::vector<ComparisonEntry> entries = comparison_entries(db, filters, options.peers);
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, double> eager_of;  // device, problem, run
  for (const auto& e : entries)
    if (e.method == "eager" && e.status == "ok" && e.median_ms) eager_of[{e.device_id, e.problem_id, e.run}] = *e.median_ms;
  std::vector<std::vector<std::string>> shape_rows;
  std::set<std::tuple<std::int64_t, std::int64_t, std::string>> seen;
  std::int64_t fused_run = 0;
  for (const auto& e : entries) {
    if (e.method == "coalesce") fused_run = e.run;
    if (e.status != "ok" || !e.tflops) continue;
    std::string series = e.method == "coalesce" ? "coalesce (" + e.family + ")" : e.method;
    if (e.cross_device()) series += " [cross-device: " + e.measured_on + "]";
    if (!seen.insert({e.device_id, e.problem_id, series}).second) continue;
    auto eager = eager_of.find({e.device_id, e.problem_id, fused_run});
    shape_rows.push_back({e.device, std::to_string(e.m), std::to_string(e.n), std::to_string(e.k),
                          e.dtype, e.epilogue, shape_label(e.m, e.n, e.k),
                          number(2.0 * e.m * e.n * e.k), series, std::to_string(e.run), number(*e.median_ms),
                          number(*e.tflops), e.peak_tflops ? number(*e.peak_tflops) : "",
                          eager == eager_of.end() ? "" : number(*e.median_ms / eager->second)});
    if (same_model) shape_rows.back().push_back(e.measured_on);
  }
  std::vector<std::string> shape_header = {"device", "m", "n", "k", "dtype", "epilogue", "shape", "flops", "series",
                                           "run", "median_ms", "tflops", "peak_tflops", "vs_eager"};
  if (same_model) shape_header.push_back("measured_on");
  write_csv(options.out_dir / "tflops_by_shape.csv", shape_header, shape_rows);

  // Throughput against M (the m_sweep groups): per group and M, the fastest fused config, every
  // other method of the table, and the read_b floor as the throughput of a kernel limited only by
  // reading B (2·M·N·K ÷ the floor's time).
  std::vector<std::vector<std::string>> m_rows;
  for (const MSweepGroup& g : m_sweep_groups(db, entries)) {
    for (const MSweepPoint& p : g.points) {
      const double flops = 2.0 * p.m * g.n * g.k;
      auto add = [&](const std::string& series, const char* kind, std::int64_t run, double ms) {
        m_rows.push_back({g.device, g.dtype, g.epilogue, std::to_string(g.n), std::to_string(g.k), std::to_string(p.m),
                          series, kind, std::to_string(run), number(ms), number(flops / (ms * 1e9))});
      };
      add("coalesce (fastest family)", "fused", p.run, p.fused_ms);
      std::vector<std::pair<std::string, MSweepPoint::Timed>> others(p.others.begin(), p.others.end());
      std::stable_sort(others.begin(), others.end(), [](const auto& a, const auto& b) {
        return db::method_rank(a.first) < db::method_rank(b.first);
      });
      for (const auto& [method, timed] : others) add(method, "method", timed.run, timed.ms);
      if (p.floor_ms) add("read_b (B-read floor)", "floor", p.run, *p.floor_ms);
    }
  }
  write_csv(options.out_dir / "tflops_vs_m.csv",
            {"device", "dtype", "epilogue", "n", "k", "m", "series", "kind", "run", "median_ms", "tflops"}, m_rows);

  // The tile landscape: the best time of each BM × BN at one problem, every cell tried; a cell
  // with no timed config says how its configs ended. cuBLAS GEMM of the best row's run is the
  // colour scale's reference.
  SqlFilter f = filter_sql(filters, "v");
  std::string tiled = "v.method = 'coalesce' AND json_extract(v.params_json, '$.bm') IS NOT NULL AND "
                      "json_extract(v.params_json, '$.bn') IS NOT NULL AND " + f.where;
  auto params = f.params;
  std::string chosen;
  if (options.landscape_shape) {
    const Shape& s = *options.landscape_shape;
    chosen = " AND v.m = " + std::to_string(s.m) + " AND v.n = " + std::to_string(s.n) +
             " AND v.k = " + std::to_string(s.k);
  } else {
    auto pick = db.query("SELECT v.problem_id FROM v_measurements v WHERE v.status = 'ok' AND " + tiled +
                             " GROUP BY v.problem_id ORDER BY count(*) DESC, "
                             "max(v.m * v.n * v.k) DESC, v.problem_id LIMIT 1",
                         params);
    if (!pick.rows.empty()) chosen = " AND v.problem_id = " + as_text(pick.rows[0][0]);
  }
  std::vector<std::vector<std::string>> tile_rows;
  if (options.landscape_shape || !chosen.empty()) {
    std::map<std::tuple<std::int64_t, std::int64_t, std::string>, std::string> cublas;  // device, problem, family
    for (const auto& e : entries)
      if (e.method == "cublas_gemm" && e.status == "ok" && e.tflops)
        cublas[{e.device_id, e.problem_id, e.family}] = number(*e.tflops);
    // How the configs of each cell ended: "ok", "compile_failed", or "pruned: <reason>" (a
    // kernel pruned after compiling for local memory is "pruned: spills").
    auto outcomes = db.query(R"sql(
      SELECT v.device_id, v.problem_id, v.family, json_extract(v.params_json, '$.bm') AS bm,
             json_extract(v.params_json, '$.bn') AS bn,
             CASE WHEN v.status <> 'pruned' THEN v.status
                  WHEN v.build_id IS NOT NULL AND (IFNULL(b.stack_bytes, 0) > 0 OR IFNULL(v.spill_stores_bytes, 0) > 0
                       OR IFNULL(v.spill_loads_bytes, 0) > 0) THEN 'pruned: spills'
                  ELSE 'pruned: ' || v.prune_reason END AS outcome, COUNT(*)
      FROM v_measurements v LEFT JOIN builds b ON b.id = v.build_id WHERE )sql" + tiled + chosen + R"sql(
      GROUP BY v.device_id, v.problem_id, v.family, bm, bn, outcome
      ORDER BY v.device_id, v.problem_id, v.family, bm, bn, COUNT(*) DESC, outcome)sql",
                             params);
    std::map<std::tuple<std::int64_t, std::int64_t, std::string, std::int64_t, std::int64_t>,
             std::pair<std::int64_t, std::string>> cells;  // tried, and the commonest outcome
    for (auto& r : outcomes.rows) {
      auto& cell = cells[{db::as_int(r[0]), db::as_int(r[1]), as_text(r[2]), db::as_int(r[3]), db::as_int(r[4])}];
      if (cell.second.empty()) cell.second = as_text(r[5]) + " (" + as_text(r[6]);
      cell.first += db::as_int(r[6]);
    }
    // SQLite takes the bare columns (tflops, config) from the row holding MIN(median_ms).
    auto rs = db.query(R"sql(
      SELECT )sql" + device_label_sql("v") + R"sql(, v.m, v.n, v.k, v.dtype, v.epilogue, v.family,
             json_extract(v.params_json, '$.bm') AS bm, json_extract(v.params_json, '$.bn') AS bn,
             MIN(CASE WHEN v.status = 'ok' THEN v.median_ms END), v.tflops, v.config_name, v.device_id,
             v.problem_id
      FROM v_measurements v WHERE )sql" + tiled + chosen + R"sql(
      GROUP BY v.device_id, v.problem_id, v.family, bm, bn
      ORDER BY v.device_id, v.problem_id, v.family, bm, bn)sql",
                       params);
    for (auto& r : rs.rows) {
      const std::int64_t device = db::as_int(r[12]), problem = db::as_int(r[13]);
      const std::string family = as_text(r[6]);
      const auto& cell = cells[{device, problem, family, db::as_int(r[7]), db::as_int(r[8])}];
      const bool timed = !db::is_null(r[9]);
      auto ref = cublas.find({device, problem, family});
      tile_rows.push_back({as_text(r[0]), as_text(r[1]), as_text(r[2]), as_text(r[3]), as_text(r[4]),
                           as_text(r[5]),
                           shape_label(static_cast<int>(db::as_int(r[1])), static_cast<int>(db::as_int(r[2])),
                                       static_cast<int>(db::as_int(r[3]))),
                           family, as_text(r[7]), as_text(r[8]), timed ? as_text(r[9]) : "",
                           timed ? as_text(r[10]) : "", timed ? as_text(r[11]) : "",
                           ref == cublas.end() ? "" : ref->second, std::to_string(cell.first),
                           timed ? "" : cell.second + " of " + std::to_string(cell.first) + ")"});
    }
  }
  write_csv(options.out_dir / "tile_landscape.csv",
            {"device", "m", "n", "k", "dtype", "epilogue", "shape", "family", "bm", "bn", "best_ms", "tflops",
             "config", "cublas_tflops", "configs", "untimed"},
            tile_rows);

  PlotResult result;
  const std::pair<const char*, const char*> drawings[] = {
      {"tflops_vs_shape.png", "TFLOP/s against shape, every method"},
      {"ratio_to_eager.png", "Every method's time ÷ eager's, per shape"},
      {"tflops_vs_m.png", "TFLOP/s against M at fixed N and K, every method, with the B-read floor"},
      {"tile_landscape.png", "Tile landscape: best TFLOP/s of each BM×BN, cuBLAS GEMM as the reference"}};
  for (const auto& [png, caption] : drawings)
    std::filesystem::remove(options.out_dir / png, ec);  // never link a stale drawing
  std::vector<std::string> candidates = {options.python};
  if (options.python.empty()) candidates = {"python3", "/usr/bin/python3"};
  std::string python;
  for (const auto& c : candidates)
    if (run_python(c, {"-c", "import matplotlib"}, "", true) == 0) {
      python = c;
      break;
    }
  if (python.empty()) {
    result.skipped = "plots not drawn: " +
                     (options.python.empty() ? std::string("python3") : options.python) +
                     " with matplotlib is not available (install python3-matplotlib); the plot "
                     "data is in " + options.out_dir.string();
    return result;
  }
  int rc = run_python(python, {"-", options.out_dir.string()}, kPlotScript[0].text, false);
  if (rc != 0)
    throw std::runtime_error("the plotting script (scripts/plot_report.py) failed with status " +
                             std::to_string(rc));
  for (const auto& [png, caption] : drawings)
    if (std::filesystem::exists(options.out_dir / png)) result.images.emplace_back(caption, options.out_dir / png);
  return result;
}

}  // namespace coalesce::report
