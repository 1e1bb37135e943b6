// coalesce-report: the results database as markdown / CSV / JSON reports, plots, read-only SQL
// queries and run-to-run diffs (docs/reports.md). Bad input gets one line on stderr and a
// non-zero exit.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>

#include "coalesce/version.h"
#include "plots.hpp"
#include "report.hpp"
#include "table.hpp"

namespace {

using namespace coalesce;
using namespace coalesce::report;

/// The filter options shared by the report, diff and plots.
struct FilterArgs {
  Filters filters;
  std::vector<std::string> shapes;
  std::int64_t run = 0;

  void add_to(CLI::App* app) {
    app->add_option("--device", filters.device, "Only this device: part of its name, its uuid or id");
    app->add_option("--dtype", filters.dtype, "Only this dtype (f32, tf32, bf16)");
    app->add_option("--epilogue", filters.epilogue, "Only this epilogue (none, bias, bias_relu, bias_gelu)");
    app->add_option("--shape", shapes, "Only this shape: N (M = N = K) or MxNxK; repeatable");
    app->add_option("--family", filters.family, "Only this kernel family (simt, mma, wgmma)");
    app->add_option("--run", run, "Only rows of this run id")->check(CLI::PositiveNumber);
  }
  Filters resolve() {
    for (const auto& s : shapes) {
      auto shape = parse_shape(s);
      if (!shape)
        throw std::invalid_argument("bad --shape '" + s +
                                    "': expected N or MxNxK with positive integers");
      filters.shapes.push_back(*shape);
    }
    if (run > 0) filters.run = run;
    filters.validate();
    return filters;
  }
};

/// Writes `text` to `out_file` (through a temporary beside it, renamed into place) or stdout.
void emit(const std::string& text, const std::string& out_file) {
  if (out_file.empty()) {
    std::cout << text;
    return;
  }
  std::filesystem::path path(out_file);
  std::filesystem::path tmp = path;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out || !(out << text) || !out.flush())
      throw std::runtime_error("cannot write " + out_file);
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    throw std::runtime_error("cannot write " + out_file);
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
  auto shape = parse_shape(text);
  if (!shape)
    throw std::invalid_argument("bad --landscape-shape '" + text +
                                "': expected N or MxNxK with positive integers");
  return shape;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"coalesce-report: reports over the Coalesce results database (docs/reports.md)"};
  app.set_version_flag("--version", std::string("coalesce-report ") + COALESCE_VERSION + " (git " +
                                        COALESCE_GIT_REVISION + ")");
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return std::string("coalesce-report: ") + e.what() + " (see --help)\n";
  });
  app.require_subcommand(0, 1);

  std::string db_path = "results/coalesce.db", format = "md", out_file, table, plots_dir,
              landscape, python;
  int top = 5;
  FilterArgs report_filters;
  app.add_option("--db", db_path, "Results database")->capture_default_str();
  app.add_option("--format", format, "Output format")->check(CLI::IsMember({"md", "csv", "json"}))
      ->capture_default_str();
  app.add_option("--out", out_file, "Write to FILE instead of stdout");
  app.add_option("--table", table, "Print only this table (runs, devices, comparison, waves, top_configs, outcomes)");
  app.add_option("--top", top, "Configs listed per device, problem and family")
      ->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("--plots", plots_dir, "Also draw the plots into DIR and link them from the markdown");
  app.add_option("--landscape-shape", landscape, "Shape of the tile landscape plot (default: the one with most timed configs)");
  app.add_option("--python", python,
                 "Python interpreter for the plots (default: python3, else /usr/bin/python3)");
  report_filters.add_to(&app);

  auto* query = app.add_subcommand("query", "Run one read-only SQL statement over the database");
  std::string query_db = "results/coalesce.db", query_format = "table", query_out, sql;
  query->add_option("sql", sql, "The SQL statement (tables and views: docs/database.md)")->required();
  query->add_option("--db", query_db, "Results database")->capture_default_str();
  query->add_option("--format", query_format, "Output format")
      ->check(CLI::IsMember({"table", "csv", "json"}))->capture_default_str();
  query->add_option("--out", query_out, "Write to FILE instead of stdout");

  auto* diff = app.add_subcommand("diff", "What got faster or slower from database A to B");
  std::string diff_a, diff_b, diff_format = "md", diff_out, diff_table;
  bool ignore_device = false;
  FilterArgs diff_filters;
  diff->add_option("a", diff_a, "Database A (before)")->required();
  diff->add_option("b", diff_b, "Database B (after)")->required();
  diff->add_option("--format", diff_format, "Output format")
      ->check(CLI::IsMember({"md", "csv", "json"}))->capture_default_str();
  diff->add_option("--out", diff_out, "Write to FILE instead of stdout");
  diff->add_option("--table", diff_table, "Print only this table (diff, summary)");
  diff->add_flag("--ignore-device", ignore_device,
                 "Pair rows whatever their device (each database must hold one device)");
  diff_filters.add_to(diff);

  auto* plots = app.add_subcommand("plots", "Draw the plots (python3 + matplotlib) into a directory");
  std::string plots_out, plots_db = "results/coalesce.db", plots_landscape, plots_python;
  FilterArgs plots_filters;
  plots->add_option("--out-dir", plots_out, "Directory for the plots and their CSV data")->required();
  plots->add_option("--db", plots_db, "Results database")->capture_default_str();
  plots->add_option("--landscape-shape", plots_landscape, "Shape of the tile landscape plot");
  plots->add_option("--python", plots_python,
                    "Python interpreter (default: python3, else /usr/bin/python3)");
  plots_filters.add_to(plots);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  try {
    if (*query) {
      auto database = db::Database::open(query_db, db::Mode::read_only);
      db::ResultSet rs = database.query(sql);
      std::ostringstream out;
      if (query_format == "table") {
        print_aligned(rs, out);
      } else if (query_format == "csv") {
        print_plain_csv(rs, out);
      } else {
        Document doc = make_document("query", "Query");
        doc.meta.emplace_back("database", query_db);
        doc.meta.emplace_back("sql", sql);
        Table t;
        t.name = "result";
        t.title = "Result";
        for (const auto& c : rs.columns) t.columns.push_back({c, c});
        t.rows = std::move(rs.rows);
        doc.tables.push_back(std::move(t));
        print_json(doc, out);
      }
      emit(out.str(), query_out);
      return 0;
    }
    if (*diff) {
      Filters f = diff_filters.resolve();
      auto a = db::Database::open(diff_a, db::Mode::read_only);
      auto b = db::Database::open(diff_b, db::Mode::read_only);
      Document doc = build_diff(a, b, f, {diff_a, diff_b, ignore_device});
      if (!diff_table.empty()) keep_only_table(doc, diff_table);
      emit(render(doc, diff_format), diff_out);
      return 0;
    }
    if (*plots) {
      Filters f = plots_filters.resolve();
      auto database = db::Database::open(plots_db, db::Mode::read_only);
      PlotResult result =
          make_plots(database, f, {plots_out, landscape_of(plots_landscape), plots_python});
      if (!result.skipped.empty()) {
        std::cerr << "coalesce-report: " << result.skipped << '\n';
        return 1;
      }
      for (const auto& [caption, path] : result.images) std::cout << path.string() << '\n';
      return 0;
    }

    Filters f = report_filters.resolve();
    auto database = db::Database::open(db_path, db::Mode::read_only);
    Document doc = build_report(database, f, {top, db_path});
    if (!plots_dir.empty()) {
      PlotResult result = make_plots(database, f, {plots_dir, landscape_of(landscape), python});
      if (!result.skipped.empty()) {
        std::cerr << "coalesce-report: " << result.skipped << '\n';
        doc.notes.push_back("No plots: " + result.skipped + ".");
      }
      // Links relative to the report's own directory, so the markdown renders where it lies.
      std::filesystem::path base = out_file.empty()
                                       ? std::filesystem::current_path()
                                       : std::filesystem::absolute(out_file).parent_path();
      for (const auto& [caption, path] : result.images)
        doc.images.emplace_back(
            caption, std::filesystem::relative(std::filesystem::absolute(path), base).string());
    }
    if (!table.empty()) keep_only_table(doc, table);
    emit(render(doc, format), out_file);
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "coalesce-report: " << e.what() << '\n';
    return 1;
  }
}
