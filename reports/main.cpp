// coalesce-report: the results database as markdown / CSV / JSON reports (by GPU model, and the
// run-by-run history), plots, read-only SQL queries and run-to-run diffs; databases merged into
// one, and the published database made from the lab's (docs/reports.md). Exit status as
// every tool's (docs/working.md): 0 done, 1 the work failed (a database refused, a file not
// written, a merge conflict), 2 bad usage (one line naming the option, nothing opened).
#include <signal.h>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>

#include "coalesce/version.h"
#include "kernels/core/family.hpp"
#include "by_model.hpp"
#include "export.hpp"
#include "plots.hpp"
#include "publish.hpp"
#include "report.hpp"
#include "schema/lease.hpp"
#include "schema/merge.hpp"
#include "schema/output_file.hpp"
#include "table.hpp"

namespace {

using namespace coalesce;
using namespace coalesce::report;

/// Bad usage found after the command line parsed: one line on stderr and exit status 2.
class UsageError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// "f32, tf32, bf16, f16"
template <class T>
std::string names_of(const std::vector<T>& values) {
  std::string out;
  for (const T& v : values) out += (out.empty() ? "" : ", ") + std::string(to_string(v));
  return out;
}

/// The filter options shared by the report, diff and plots.
struct FilterArgs {
  Filters filters;
  std::vector<std::string> shapes;
  std::int64_t run = 0;

  void add_to(CLI::App* app) {
    app->add_option("--device", filters.device, "Only this device: its id, its UUID (GPU-...), or part of its name");
    app->add_option("--dtype", filters.dtype, "Only this dtype (" + names_of(all_dtypes()) + ")");
    app->add_option("--epilogue", filters.epilogue, "Only this epilogue (" + names_of(all_epilogues()) + ")");
    app->add_option("--shape", shapes, "Only this shape: N (M = N = K) or MxNxK (x or ×); repeatable")
        ->allow_extra_args(false);  // one shape per --shape: `query --shape 1 SQL` keeps its SQL
    app->add_option("--family", filters.family,
                    "Only this family: a kernel family (" + family_names() +
                        ") or a peer's (torch, triton: scripts/torch_peers.py)");
    app->add_option("--run", run, "Only rows of this run id");
  }
  bool given(const CLI::App& app) const {
    for (const char* flag : {"--device", "--dtype", "--epilogue", "--shape", "--family", "--run"})
      if (app.count(flag)) return true;
    return false;
  }
  Filters resolve(const CLI::App& app) {
    if (app.count("--device") && filters.device.empty())
      throw UsageError("--device '': give a device id, its UUID (GPU-...) or part of its name");
    for (const auto& s : shapes) {
      std::string error;
      auto shape = parse_shape(s, &error);
      if (!shape) throw UsageError("bad --shape '" + s + "': " + error);
      filters.shapes.push_back(*shape);
    }
    if (app.count("--run")) {
      if (run < 1) throw UsageError("--run " + std::to_string(run) + ": a run id is a positive integer");
      filters.run = run;
    }
    try {
      filters.validate();
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    return filters;
  }
};

/// Writes `text` to `out_file` (whole, through a temporary beside it: files::write_whole) or stdout.
void emit(const std::string& text, const std::string& out_file) {
  if (out_file.empty()) {
    std::cout << text;
    return;
  }
  files::write_whole(out_file, text);
}

/// Refuses, before anything is opened, an --out or a plot file that is one of `inputs`.
void refuse_outputs_onto(const std::vector<files::Input>& inputs, const std::string& out_file,
                         const std::string& plots_dir, const char* plots_flag) {
  if (!out_file.empty()) files::refuse_output_onto_inputs("--out", out_file, inputs);
  if (plots_dir.empty()) return;
  std::vector<files::Input> read_or_written = inputs;
  if (!out_file.empty()) read_or_written.push_back({out_file, "--out", false});
  for (const std::filesystem::path& plot : plot_files(plots_dir))
    files::refuse_output_onto_inputs(std::string(plots_flag) + "'s file", plot.string(), read_or_written);
  // The figures are named from the data, so any PNG in the directory may be drawn over or removed.
  const std::filesystem::path dir = files::resolved(plots_dir);
  for (const files::Input& input : read_or_written) {
    const std::filesystem::path path = files::resolved(input.path);
    if (path.parent_path() == dir && path.extension() == ".png")
      throw files::OutputIsInput(std::string(plots_flag) + " " + plots_dir + " holds " + input.role + " " + input.path +
                                 ", a PNG the figures may overwrite or remove; draw them into another directory");
  }
}

std::string render(const Document& doc, const std::string& format) {
  std::ostringstream out;
  if (format == "md") print_markdown(doc, out);
  else if (format == "csv") print_csv(doc, out);
  else print_json(doc, out);
  return out.str();
}

std::optional<Shape> landscape_of(const std::string& text) {
  if (text.empty()) return std::nullopt;
  std::string error;
  auto shape = parse_shape(text, &error);
  if (!shape) throw UsageError("bad --landscape-shape '" + text + "': " + error);
  return shape;
}

/// Says on stderr when the filters select nothing of `db`: the output is then empty, and a
/// mistyped --device or --shape should not pass for a database without those rows unnoticed.
void warn_if_nothing_matches(const db::Database& db, const Filters& f, const std::string& path) {
  if (f.describe() != "none" && !matches_any(db, f))
    std::cerr << "coalesce-report: no row of " << path << " matches " << f.describe() << '\n';
}

/// Plot options that select nothing draw nothing: status 1 with a sentence, before any file is
/// written (issue 45: they exited 0). `all_plots`: the filters choose every plot (`plots`).
void refuse_empty_plots(const db::Database& db, const Filters& f, const std::optional<Shape>& landscape,
                        const std::string& path, bool all_plots) {
  if (all_plots && f.describe() != "none" && !matches_any(db, f))
    throw std::runtime_error("no row of " + path + " matches " + f.describe() + ": no plot drawn");
  if (!landscape) return;
  Filters at = f;
  at.shapes = {*landscape};
  if (!matches_any(db, at))
    throw std::runtime_error("--landscape-shape " + std::to_string(landscape->m) + "x" + std::to_string(landscape->n) +
                             "x" + std::to_string(landscape->k) + ": no row of " + path + " at that shape" +
                             (f.describe() == "none" ? "" : " matches " + f.describe()) + ": no plot drawn");
}

/// Refuses each of `flags` given on the command line: they mean nothing to `command`.
void refuse_flags(const CLI::App& app, std::initializer_list<const char*> flags,
                  const std::string& command, const std::string& why) {
  for (const char* flag : flags)
    if (app.count(flag))
      throw UsageError(std::string(flag) + " is not an option of " + command + ": " + why);
}

/// `--format`, checked against what `command` prints.
std::string format_for(const std::string& given, std::initializer_list<const char*> allowed,
                       const std::string& command) {
  std::string names;
  for (const char* a : allowed) {
    if (given == a) return given;
    names += (names.empty() ? "" : ", ") + std::string(a);
  }
  throw UsageError("--format '" + given + "': " + command + " prints " + names);
}

volatile std::sig_atomic_t g_interrupted = 0;
void on_interrupt(int) { g_interrupted = 1; }

/// While in scope, Ctrl-C (SIGINT) and SIGTERM only set g_interrupted, so that a merge stops
/// between tables and rolls its input back; a second one kills as usual (SA_RESETHAND), which
/// SQLite's transaction makes as safe. The signals are unblocked too: a mask inherited from a
/// supervisor must not make the merge deaf to them.
class InterruptFlag {
 public:
  InterruptFlag() {
    struct sigaction action {};
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND;
    sigaction(SIGINT, &action, &old_int_);
    sigaction(SIGTERM, &action, &old_term_);
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    sigprocmask(SIG_UNBLOCK, &signals, nullptr);
  }
  InterruptFlag(const InterruptFlag&) = delete;
  InterruptFlag& operator=(const InterruptFlag&) = delete;
  ~InterruptFlag() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  bool raised() const { return g_interrupted != 0; }

 private:
  struct sigaction old_int_ {}, old_term_ {};
};

std::string listed(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return out;
}

/// `merge OUT IN...`: every input is checked before OUT is opened, so a refused input leaves OUT
/// as it was (or not created); then each input is merged in its own transaction. Status 1 when
/// an input could not be merged or a row conflicted, after merging the rest; 130 when Ctrl-C
/// stopped it, with one line saying what OUT holds (the input being merged is rolled back).
int merge_databases(const std::string& out_path, const std::vector<std::string>& inputs) {
  for (const std::string& in : inputs) {
    db::schema_version_of(in);
    db::WriterLease::refuse_if_held(in, "merge it once that writer has finished");
  }
  const InterruptFlag interrupt;
  std::error_code ec;
  const bool created = !std::filesystem::exists(out_path, ec);
  std::vector<std::string> merged;
  // What OUT holds once the inputs from `next` on are left out.
  const auto holds = [&](std::size_t next) {
    const std::vector<std::string> rest(inputs.begin() + static_cast<std::ptrdiff_t>(next), inputs.end());
    if (merged.empty())
      return created ? out_path + " was created and holds nothing of " + listed(rest)
                     : out_path + " is as it was";
    return out_path + " holds what " + listed(merged) + " brought and nothing of " + listed(rest);
  };
  if (interrupt.raised()) {
    std::cerr << "coalesce-report: interrupted before " << out_path << " was opened: nothing was merged\n";
    return 130;
  }
  auto out = db::Database::open(out_path, db::Mode::read_write);
  db::Merger merger(out);
  std::size_t conflicts = 0, failed = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::string& in = inputs[i];
    if (i > 0 && interrupt.raised()) {
      std::cerr << "coalesce-report: interrupted after merging " << inputs[i - 1] << ": " << holds(i) << '\n';
      return 130;
    }
    try {
      const db::MergeResult result = merger.merge(in, [&] { return interrupt.raised(); });
      for (const db::MergeConflict& c : result.conflicts)
        std::cerr << describe(c, result, out_path) << '\n';
      std::cerr << in << ": " << summary(result) << '\n';
      conflicts += result.conflicts.size();
      merged.push_back(in);
    } catch (const db::MergeInterrupted& e) {
      std::cerr << "coalesce-report: " << e.what() << ": " << holds(i) << '\n';
      return 130;
    } catch (const std::exception& e) {
      std::cerr << "coalesce-report: " << e.what() << "; nothing of " << in << " was merged\n";
      ++failed;
    }
  }
  if (conflicts > 0)
    std::cerr << "coalesce-report: " << conflicts << (conflicts == 1 ? " row" : " rows")
              << " conflicted with " << out_path << " (listed above): not taken, nor the rows that refer to "
              << (conflicts == 1 ? "it" : "them") << "\n";
  return conflicts > 0 || failed > 0 ? 1 : 0;
}

/// Draws the plots into options.out_dir and links them from `doc`, relative to the directory of
/// `out_file` (or the working directory) so the markdown renders where it lies; without python3
/// and matplotlib, says so on stderr and in the document.
void attach_plots(Document& doc, const db::Database& database, const Filters& f, const PlotOptions& options,
                  const std::string& out_file) {
  PlotResult result = make_plots(database, f, options);
  if (!result.skipped.empty()) {
    std::cerr << "coalesce-report: " << result.skipped << '\n';
    doc.notes.push_back("No plots: " + result.skipped + ".");
  }
  std::filesystem::path base = out_file.empty() ? std::filesystem::current_path()
                                                : std::filesystem::absolute(out_file).parent_path();
  for (const auto& [caption, path] : result.images)
    doc.images.emplace_back(caption, std::filesystem::relative(std::filesystem::absolute(path), base).string());
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"coalesce-report: reports over the Coalesce results database (docs/reports.md)"};
  app.set_version_flag("--version", std::string("coalesce-report ") + COALESCE_VERSION + " (git " +
                                        COALESCE_GIT_REVISION + ")");
  app.require_subcommand(0, 1);
  app.footer(
      "Options of coalesce-report (--db, --format, --out, the filters) may come before or after "
      "the sub-command.\nExit status: 0 done, 1 the work failed, 2 bad usage (docs/working.md).");

  // One set of options, before or after the sub-command (the sub-commands fall through to it),
  // so `--db X query ...` and `query --db X ...` open the same file.
  std::string db_path = "results/coalesce.db", format, out_file, table, plots_dir, landscape,
              python;
  std::vector<std::string> workload_files;
  int top = 5;
  bool same_model = false;
  FilterArgs filter_args;
  app.add_option("--db", db_path, "Results database (the report, history, query, plots; publish: the lab database it reads)")
      ->capture_default_str();
  app.add_option("--format", format,
                 "Output format: md (default), csv or json; query: table (default), csv or json");
  app.add_option("--out", out_file, "Write to FILE instead of stdout");
  app.add_option("--table", table,
                 "Print only this table (report: answer, by_model, models, runs; history: summary, workloads, "
                 "workload_missing, m_sweep, comparison, devices_side_by_side, why, profiles, top_configs, outcomes, "
                 "runs, devices; diff: summary, diff)");
  app.add_option("--workload", workload_files,
                 "history: also sum each method over a workload file's lines (m,n,k,dtype,epilogue[,name][,count]; "
                 "workloads/); repeatable")
      ->allow_extra_args(false);  // one file per --workload: `query --workload F SQL` keeps its SQL
  app.add_option("--top", top, "history: configs listed per device, problem and family (default 5)");
  app.add_flag("--same-model", same_model,
               "history: take a peer (torch_eager, torch_compile, triton) the device lacks from another device of "
               "the same model (name, arch, SMs, max SM clock), marked cross-device");
  app.add_option("--plots", plots_dir, "The report: also draw its figures into DIR and link them from the markdown");
  app.add_option("--landscape-shape", landscape,
                 "Shape of the tile landscape plot (default: the one with most timed configs)");
  app.add_option("--python", python,
                 "Python interpreter for the plots (default: python3, else /usr/bin/python3)");
  filter_args.add_to(&app);

  auto* history = app.add_subcommand(
      "history", "The run-by-run, per-device report: every device's best per family against every baseline");
  history->fallthrough();

  auto* query = app.add_subcommand("query", "Run one read-only SQL statement over the database");
  std::string sql;
  query->add_option("sql", sql, "The SQL statement (tables and views: docs/database.md)")->required();
  query->fallthrough();

  auto* diff = app.add_subcommand("diff", "What got faster or slower from database A to B");
  std::string diff_a, diff_b;
  bool ignore_device = false, diff_all = false;
  std::optional<double> fail_on_slower;
  diff->add_option("a", diff_a, "Database A (before)")->required();
  diff->add_option("b", diff_b, "Database B (after)")->required();
  diff->add_flag("--ignore-device", ignore_device,
                 "Pair rows whatever their device (each database must hold one device)");
  diff->add_flag("--all", diff_all, "List every compared row, not only those changed beyond noise");
  diff->add_option("--fail-on-slower", fail_on_slower,
                   "Exit with status 1 when a row is slower beyond noise by more than PCT percent");
  diff->fallthrough();

  auto* plots = app.add_subcommand("plots", "Draw the figures by GPU model (python3 + matplotlib) into a directory");
  std::string plots_out;
  plots->add_option("--out-dir", plots_out, "Directory for the plots and their CSV data")->required();
  plots->fallthrough();

  auto* merge = app.add_subcommand(
      "merge", "Merge databases into OUT by natural keys (Slurm array tasks, one database each)");
  std::string merge_out;
  std::vector<std::string> merge_inputs;
  merge->add_option("out", merge_out, "The database to merge into (created if missing)")->required();
  merge->add_option("inputs", merge_inputs, "The databases to merge, read only")->required();
  merge->fallthrough();

  auto* publish = app.add_subcommand(
      "publish", "Write the published database OUT from the lab database --db: the rows the report cites, vacuumed");
  std::string publish_out;
  std::vector<std::int64_t> keep_runs;
  publish->add_option("out", publish_out, "The published database (replaced whole)")->required();
  publish->add_option("--keep-run", keep_runs, "Also keep every row of this run (repeatable)")
      ->allow_extra_args(false);
  publish->fallthrough();

  auto* export_table = app.add_subcommand(
      "export", "Write the tuning table (TSV) the runtime and the PyTorch ops read: per GPU model, dtype, epilogue "
                "and shape the best checked config (docs/pytorch.md)");
  export_table->fallthrough();

  app.allow_extras();  // told apart below: an unknown command, or arguments not expected
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::cerr << "coalesce-report: " << e.what() << " (see --help)\n";
    return 2;
  }
  if (const std::vector<std::string> rest = app.remaining(); !rest.empty()) {
    if (app.get_subcommands().empty() && rest.front().rfind('-', 0) != 0) {
      std::cerr << "coalesce-report: '" << rest.front()
                << "' is not a command (history, query, diff, plots, merge, publish, export; none for the report)\n";
    } else {
      std::cerr << "coalesce-report: The following argument" << (rest.size() > 1 ? "s were" : " was")
                << " not expected:";
      for (const std::string& r : rest) std::cerr << ' ' << r;
      std::cerr << " (see --help)\n";
    }
    return 2;
  }

  const PeerScope peer_scope = same_model ? PeerScope::same_model : PeerScope::same_device;
  try {
    if (app.count("--db") && db_path.empty()) throw UsageError("--db '': name the database file");
    if (*query) {
      const std::string why = "a query selects with its SQL";
      refuse_flags(app, {"--device", "--dtype", "--epilogue", "--shape", "--family", "--run"},
                   "query", why);
      refuse_flags(app, {"--table", "--top", "--plots", "--landscape-shape", "--python", "--workload", "--same-model"},
                   "query", "it prints the statement's rows");
      const std::string query_format =
          format_for(format.empty() ? "table" : format, {"table", "csv", "json"}, "query");
      refuse_outputs_onto({{db_path, "the database (--db)", true}}, out_file, "", "");
      auto database = db::Database::open(db_path, db::Mode::read_only);
      Document doc;
      if (query_format == "json") {
        doc = make_document("query", "Query");
        doc.meta.emplace_back("database", db_path);
        doc.meta.emplace_back("sql", sql);
      }
      // The rows are printed as SQLite steps them, never held whole (issue 45): into a file
      // renamed into place once every row is written.
      std::optional<files::PendingFile> file;
      if (!out_file.empty()) file.emplace(out_file);
      QueryPrinter printer(query_format, file ? file->stream() : std::cout, std::move(doc));
      database.query_each(
          sql, {}, [&](const std::vector<std::string>& columns) { printer.columns(columns); },
          [&](const std::vector<db::Value>& row) { printer.row(row); });
      printer.finish();
      if (file) file->commit();
      return 0;
    }
    if (*diff) {
      refuse_flags(app, {"--db"}, "diff", "it compares the two databases named A and B");
      refuse_flags(app, {"--top", "--plots", "--landscape-shape", "--python", "--workload", "--same-model"}, "diff",
                   "they shape the report");
      const std::string diff_format =
          format_for(format.empty() ? "md" : format, {"md", "csv", "json"}, "diff");
      if (fail_on_slower && !(*fail_on_slower >= 0))
        throw UsageError("--fail-on-slower " + diff->get_option("--fail-on-slower")->as<std::string>() +
                         ": give a percentage, 0 or more");
      Filters f = filter_args.resolve(app);
      refuse_outputs_onto({{diff_a, "database A", true}, {diff_b, "database B", true}}, out_file, "", "");
      auto a = db::Database::open(diff_a, db::Mode::read_only);
      auto b = db::Database::open(diff_b, db::Mode::read_only);
      warn_if_nothing_matches(a, f, diff_a);
      warn_if_nothing_matches(b, f, diff_b);
      Document doc = build_diff(a, b, f, {diff_a, diff_b, ignore_device, diff_all});
      const std::vector<std::string> too_slow =
          fail_on_slower ? slower_by_more_than(doc, *fail_on_slower) : std::vector<std::string>{};
      if (!table.empty()) keep_only_table(doc, table);
      emit(render(doc, diff_format), out_file);
      if (!too_slow.empty()) {
        char pct[32];
        std::snprintf(pct, sizeof pct, "%g", *fail_on_slower);
        std::cerr << "coalesce-report: " << too_slow.size() << " row" << (too_slow.size() == 1 ? " is" : "s are")
                  << " slower beyond noise by more than " << pct << "% (--fail-on-slower): " << too_slow.front()
                  << (too_slow.size() > 1 ? ", ..." : "") << '\n';
        return 1;
      }
      return 0;
    }
    if (*plots) {
      refuse_flags(app, {"--format", "--out", "--table", "--top", "--plots", "--workload"}, "plots",
                   "it writes PNG and CSV files into --out-dir");
      refuse_flags(app, {"--same-model"}, "plots", "the figures are by GPU model already");
      Filters f = filter_args.resolve(app);
      refuse_outputs_onto({{db_path, "the database (--db)", true}}, "", plots_out, "--out-dir");
      auto database = db::Database::open(db_path, db::Mode::read_only);
      refuse_empty_plots(database, f, landscape_of(landscape), db_path, true);
      PlotResult result = make_plots(database, f, {plots_out, landscape_of(landscape), python});
      if (!result.skipped.empty()) {
        std::cerr << "coalesce-report: " << result.skipped << '\n';
        return 1;
      }
      for (const auto& [caption, path] : result.images) std::cout << path.string() << '\n';
      return 0;
    }

    if (*merge) {
      refuse_flags(app, {"--db", "--format", "--out", "--table", "--top", "--plots", "--landscape-shape",
                         "--python", "--device", "--dtype", "--epilogue", "--shape", "--family", "--run",
                         "--same-model"},
                   "merge", "it merges every row of the databases named");
      std::vector<files::Input> inputs;
      for (const std::string& in : merge_inputs) inputs.push_back({in, "the input", true});
      files::refuse_output_onto_inputs("OUT", merge_out, inputs);
      return merge_databases(merge_out, merge_inputs);
    }

    if (*publish) {
      refuse_flags(app, {"--format", "--out", "--table", "--top", "--plots", "--landscape-shape", "--python",
                         "--device", "--dtype", "--epilogue", "--shape", "--family", "--run", "--workload",
                         "--same-model"},
                   "publish", "it keeps what the report by model cites, from every row of --db");
      const PublishResult r = publish_database({db_path, publish_out, keep_runs});
      std::cerr << publish_out << ": " << r.measurements << " of " << r.lab_measurements << " measurements, " << r.runs
                << " runs, " << r.devices << " devices, " << r.problems << " problems, " << r.configs << " configs, "
                << r.builds << " builds, " << r.profiles << " profiles; " << r.bytes << " bytes\n";
      return 0;
    }

    if (*export_table) {
      refuse_flags(app, {"--format"}, "export", "it writes the tuning table's TSV");
      refuse_flags(app, {"--table", "--top", "--plots", "--landscape-shape", "--python", "--workload", "--same-model"},
                   "export", "they shape the reports");
      refuse_flags(app, {"--run"}, "export", "the table takes the best of every run, as the report by model does");
      Filters f = filter_args.resolve(app);
      refuse_outputs_onto({{db_path, "the database (--db)", true}}, out_file, "", "");
      auto database = db::Database::open(db_path, db::Mode::read_only);
      warn_if_nothing_matches(database, f, db_path);
      emit(export_tuning_table(database, f, db_path), out_file);
      return 0;
    }

    if (!*history) {
      const std::string model_format =
          format_for(format.empty() ? "md" : format, {"md", "csv", "json"}, "the report");
      refuse_flags(app, {"--top", "--workload", "--same-model"}, "the report by model",
                   "it belongs to coalesce-report history");
      Filters f = filter_args.resolve(app);
      std::optional<Shape> landscape_shape = landscape_of(landscape);
      refuse_outputs_onto({{db_path, "the database (--db)", true}}, out_file, plots_dir, "--plots");
      auto database = db::Database::open(db_path, db::Mode::read_only);
      warn_if_nothing_matches(database, f, db_path);
      if (!plots_dir.empty()) refuse_empty_plots(database, f, landscape_shape, db_path, false);
      Document doc = build_model_report(database, f, db_path);
      if (!plots_dir.empty()) attach_plots(doc, database, f, {plots_dir, landscape_shape, python}, out_file);
      if (!table.empty()) keep_only_table(doc, table);
      emit(render(doc, model_format), out_file);
      return 0;
    }

    refuse_flags(app, {"--plots", "--landscape-shape", "--python"}, "history",
                 "the plots are by GPU model: coalesce-report --plots DIR");
    const std::string report_format =
        format_for(format.empty() ? "md" : format, {"md", "csv", "json"}, "history");
    if (top < 1) throw UsageError("--top " + std::to_string(top) + ": list at least 1 config");
    Filters f = filter_args.resolve(app);
    ReportOptions options{top, db_path, {}, peer_scope};
    for (const std::string& file : workload_files) {
      try {
        options.workloads.push_back(read_workload(file));
      } catch (const WorkloadError& e) {
        throw UsageError(std::string("--workload ") + e.what());
      }
    }
    std::vector<files::Input> inputs = {{db_path, "the database (--db)", true}};
    for (const std::string& file : workload_files) inputs.push_back({file, "--workload", false});
    refuse_outputs_onto(inputs, out_file, plots_dir, "--plots");
    auto database = db::Database::open(db_path, db::Mode::read_only);
    warn_if_nothing_matches(database, f, db_path);
    Document doc = build_report(database, f, options);
    if (!table.empty()) keep_only_table(doc, table);
    emit(render(doc, report_format), out_file);
    return 0;
  } catch (const std::invalid_argument& e) {
    std::cerr << "coalesce-report: " << e.what() << '\n';
    return 2;
  } catch (const db::QueryRefused& e) {  // a statement that would write, or more than one
    std::cerr << "coalesce-report: " << e.what() << '\n';
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "coalesce-report: " << e.what() << '\n';
    return 1;
  }
}
