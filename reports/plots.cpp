// Plot data by GPU model and the run of the embedded plotting script (see plots.hpp).
#include "plots.hpp"

#include "by_model.hpp"
#include "coalesce/version.h"
#include "kernels/core/problem.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sstream>
#include <map>
#include <set>
#include <tuple>
#include <stdexcept>

#include "schema/embedded.hpp"
#include "schema/output_file.hpp"
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
  std::ostringstream out;
  for (std::size_t i = 0; i < header.size(); ++i) out << (i ? "," : "") << header[i];
  out << '\n';
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) out << (i ? "," : "") << csv_field(row[i]);
    out << '\n';
  }
  files::write_whole(path, out.str());
}

/// The files of fixed names make_plots writes (its data and manifest) or removes (the stacked
/// panels that the figures by model replaced).
constexpr const char* kFixedPlotFiles[] = {"by_model_shapes.csv", "by_model_m_sweep.csv", "tile_landscape.csv",
                                           "figures.csv",         "tile_landscape.png",   "tflops_vs_shape.png",
                                           "ratio_to_eager.png",  "tflops_vs_m.png"};

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

std::vector<std::filesystem::path> plot_files(const std::filesystem::path& out_dir) {
  std::vector<std::filesystem::path> out;
  for (const char* file : kFixedPlotFiles) out.push_back(out_dir / file);
  return out;
}

PlotResult make_plots(const db::Database& db, const Filters& filters, const PlotOptions& options) {
  std::error_code ec;
  std::filesystem::create_directories(options.out_dir, ec);
  if (!std::filesystem::is_directory(options.out_dir))
    throw std::runtime_error("cannot create the plot directory " + options.out_dir.string());

  const std::vector<GpuModel> models = gpu_models(db, filters);
  const std::vector<ModelEntry> model_rows = model_entries(db, filters, models);
  std::vector<std::string> slugs;
  for (const GpuModel& m : models) slugs.push_back(m.slug(models));
  std::vector<std::pair<std::string, std::string>> figures;  // file, caption, in drawing order

  // Across shapes: per model and dtype the answer's entry of each problem, parts of at most
  // kShapesPerFigure problems.
  std::vector<std::vector<std::string>> shape_rows;
  {
    std::map<std::pair<std::size_t, int>, std::vector<const ModelEntry*>> by_figure;  // model, dtype order
    std::map<std::string, int> dtype_order;
    for (std::size_t i = 0; i < all_dtypes().size(); ++i) dtype_order[std::string(to_string(all_dtypes()[i]))] = static_cast<int>(i);
    for (const ModelEntry* e : answer_entries(model_rows)) by_figure[{e->model, dtype_order[e->dtype]}].push_back(e);
    for (const auto& [key, list] : by_figure) {
      const std::size_t parts = (list.size() + kShapesPerFigure - 1) / kShapesPerFigure;
      for (std::size_t i = 0; i < list.size(); ++i) {
        const ModelEntry& e = *list[i];
        const std::size_t part = i / kShapesPerFigure;
        const std::string file = slugs[e.model] + "_" + e.dtype + "_shapes" + (part ? "_" + std::to_string(part + 1) : "") + ".png";
        const std::string title = models[e.model].label() + " · " + e.dtype +
                                  (parts > 1 ? " (part " + std::to_string(part + 1) + " of " + std::to_string(parts) + ")" : "");
        if (figures.empty() || figures.back().first != file)
          figures.emplace_back(file, models[e.model].name + " " + e.dtype +
                                         ": every method's TFLOP/s and the fused kernel's speed-up over it, per shape" +
                                         (parts > 1 ? " (part " + std::to_string(part + 1) + ")" : ""));
        const Alternative* fastest = e.fastest_alternative();
        auto add = [&](const std::string& method, const std::string& kind, double ms, const std::optional<double>& tflops,
                       std::int64_t run, bool is_fastest) {
          shape_rows.push_back({file, title, models[e.model].label(), e.dtype, e.epilogue, std::to_string(e.m),
                                std::to_string(e.n), std::to_string(e.k), shape_label(e.m, e.n, e.k), e.protocol, method,
                                kind, std::to_string(run), number(ms), tflops ? number(*tflops) : "",
                                kind == "fused" ? "" : number(ms / e.median_ms), is_fastest ? "1" : ""});
        };
        add("coalesce (" + e.family + ")", "fused", e.median_ms, e.tflops, e.run, false);
        for (const Alternative& a : e.alternatives)
          if (a.status == "ok" && a.median_ms)
            add(a.method, a.whole_problem ? "alternative" : "ceiling", *a.median_ms, a.tflops, a.run, &a == fastest);
      }
    }
  }
  write_csv(options.out_dir / "by_model_shapes.csv",
            {"figure", "title", "model", "dtype", "epilogue", "m", "n", "k", "shape", "protocol", "series", "kind", "run",
             "median_ms", "tflops", "speedup", "fastest"},
            shape_rows);

  // Against M: per model, dtype, epilogue, N, K and protocol measured at kMinSweepPoints or more M,
  // a panel; parts of at most kPanelsPerFigure panels per model and dtype.
  std::vector<std::vector<std::string>> m_rows;
  {
    using GroupKey = std::tuple<std::size_t, std::string, std::string, int, int, std::string>;  // model, dtype, epilogue, N, K, protocol
    std::map<GroupKey, std::map<int, const ModelEntry*>> groups;
    for (const ModelEntry& e : model_rows) groups[{e.model, e.dtype, e.epilogue, e.n, e.k, e.protocol}][e.m] = &e;
    std::map<std::pair<std::size_t, std::string>, std::vector<const std::pair<const GroupKey, std::map<int, const ModelEntry*>>*>> panels;
    for (const auto& g : groups)
      if (g.second.size() >= kMinSweepPoints) panels[{std::get<0>(g.first), std::get<1>(g.first)}].push_back(&g);
    std::vector<std::pair<std::size_t, std::string>> order;
    for (const auto& [key, list] : panels) order.push_back(key);
    std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
      auto rank = [](const std::string& d) {
        for (std::size_t i = 0; i < all_dtypes().size(); ++i)
          if (to_string(all_dtypes()[i]) == d) return i;
        return all_dtypes().size();
      };
      return std::make_pair(a.first, rank(a.second)) < std::make_pair(b.first, rank(b.second));
    });
    for (const auto& key : order) {
      const auto& list = panels[key];
      const std::size_t parts = (list.size() + kPanelsPerFigure - 1) / kPanelsPerFigure;
      for (std::size_t i = 0; i < list.size(); ++i) {
        const auto& [gkey, points] = *list[i];
        const auto& [model, dtype, epilogue, n, k, protocol] = gkey;
        const std::size_t part = i / kPanelsPerFigure;
        const std::string file = slugs[model] + "_" + dtype + "_m_sweep" + (part ? "_" + std::to_string(part + 1) : "") + ".png";
        const std::string title = models[model].label() + " · " + dtype +
                                  (parts > 1 ? " (part " + std::to_string(part + 1) + " of " + std::to_string(parts) + ")" : "");
        if (figures.empty() || figures.back().first != file)
          figures.emplace_back(file, models[model].name + " " + dtype +
                                         ": TFLOP/s against M at fixed N and K, every method, with the B-read floor" +
                                         (parts > 1 ? " (part " + std::to_string(part + 1) + ")" : ""));
        const std::string panel = epilogue + " · N = " + std::to_string(n) + ", K = " + std::to_string(k) + " · " + protocol;
        for (const auto& [m, e] : points) {
          const double flops = 2.0 * m * n * k;
          auto add = [&](const std::string& series, const char* kind, std::int64_t run, double ms) {
            m_rows.push_back({file, title, panel, models[model].label(), dtype, epilogue, std::to_string(n),
                              std::to_string(k), protocol, std::to_string(m), series, kind, std::to_string(run), number(ms),
                              number(flops / (ms * 1e9))});
          };
          add("coalesce (fastest family)", "fused", e->run, e->median_ms);
          for (const Alternative& a : e->alternatives)
            if (a.status == "ok" && a.median_ms) add(a.method, "method", a.run, *a.median_ms);
          if (e->floor_ms) add("read_b (B-read floor)", "floor", e->run, *e->floor_ms);
        }
      }
    }
  }
  write_csv(options.out_dir / "by_model_m_sweep.csv",
            {"figure", "title", "panel", "model", "dtype", "epilogue", "n", "k", "protocol", "m", "series", "kind", "run",
             "median_ms", "tflops"},
            m_rows);

  const std::vector<ComparisonEntry> entries = comparison_entries(db, filters);
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
  if (!tile_rows.empty()) figures.emplace_back("tile_landscape.png", "Tile landscape: best TFLOP/s of each BM×BN, cuBLAS GEMM as the reference");
  // Never link a stale drawing: remove those of the previous manifest and the stacked panels of
  // the per-device plots that these figures replace, then write the manifest of this drawing.
  // The manifest is a file anyone may edit: only a PNG directly in the folder is removed, never
  // another file it names, nor a path out of the folder (issue 45).
  const std::filesystem::path manifest = options.out_dir / "figures.csv";
  {
    std::ifstream previous(manifest);
    std::string line;
    std::getline(previous, line);  // header
    while (std::getline(previous, line)) {
      const std::filesystem::path file = line.substr(0, line.find(','));
      const bool png_of_the_folder = file.has_stem() && file.extension() == ".png" && file == file.filename();
      if (!png_of_the_folder) continue;
      // A link is removed, never what it points to; a directory of that name is no drawing.
      const auto status = std::filesystem::symlink_status(options.out_dir / file, ec);
      if (std::filesystem::is_regular_file(status) || std::filesystem::is_symlink(status))
        std::filesystem::remove(options.out_dir / file, ec);
    }
  }
  for (const char* legacy : {"tflops_vs_shape.png", "ratio_to_eager.png", "tflops_vs_m.png", "tile_landscape.png"})
    std::filesystem::remove(options.out_dir / legacy, ec);
  // Each figure says what drew it and from what, as every printed document does (its footer).
  const std::string source = std::string("coalesce-report ") + COALESCE_VERSION + " · tool_git_revision " +
                             COALESCE_GIT_REVISION + " · format_version " + std::to_string(kFormatVersion) + " · " +
                             db.path().string() + " (schema " + std::to_string(db.schema_version()) + ")";
  std::vector<std::vector<std::string>> manifest_rows;
  for (const auto& [file, caption] : figures) manifest_rows.push_back({file, caption, source});
  write_csv(manifest, {"file", "caption", "source"}, manifest_rows);
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
  for (const auto& [file, caption] : figures)
    if (std::filesystem::exists(options.out_dir / file)) result.images.emplace_back(caption, options.out_dir / file);
  return result;
}

}  // namespace coalesce::report
