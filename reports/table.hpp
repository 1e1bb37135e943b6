// Every output of coalesce-report is a Document: named tables of named metrics (nvbench's
// "one table, many printers"). Markdown, CSV and JSON are printers over it, and each carries
// the format version and the tool's git revision; query's aligned table is a fourth printer.
#pragma once

#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "schema/db.hpp"

namespace coalesce::report {

using db::Value;

/// The version of the layout of every printed Document. Bump it when a table, column key or
/// meta key is renamed or removed (adding one is compatible).
/// 2: the report opens with its summary table, the waves table became part of "why", outcomes
/// name post-compile spills `spills`, verdicts read "within noise" (was "same"), the
/// diff's summary table comes first and counts `within_noise`, its summary line is a note (the
/// JSON `footer` is gone), and it lists only rows changed beyond noise unless --all.
inline constexpr int kFormatVersion = 2;

/// One metric: `key` names it in CSV and JSON, `header` in markdown.
struct Column {
  std::string key;
  std::string header;
  int precision = -1;     ///< decimals printed for a REAL; -1: SQLite's shortest rendering
  bool markdown = true;   ///< false: CSV and JSON only (e.g. m, n, k beside a problem label)
  /// false: markdown only, a reader's rendering ("1.71× eager") of values that CSV and JSON carry
  /// in columns of their own.
  bool machine = true;
};

struct Table {
  std::string name;   ///< stable identifier: CSV section, JSON "name", --table NAME
  std::string title;  ///< markdown heading
  std::vector<Column> columns;
  std::vector<std::vector<Value>> rows;
  /// Markdown only: a sub-heading for each run of rows with equal values in these columns,
  /// which are then left out of the table (CSV and JSON keep every column).
  std::vector<std::string> group_by;
  /// Markdown only: each row as its own two-column "field | value" table (wide records).
  bool records = false;
  /// Markdown only: a column with no value in any row of a group (group_by) is left out of that
  /// group's table, so a method one group never measured takes no column of dashes there.
  bool hide_empty_columns = false;
  std::vector<std::string> notes;  ///< how to read the table; printed with it
  std::string empty_text = "No rows match.";

  /// The index of column `key`; throws std::logic_error if absent.
  std::size_t index(const std::string& key) const;
};

/// A printed result: its kind ("report", "diff", "query"), facts about where it came from,
/// notes, tables and (markdown) links to images.
struct Document {
  std::string kind;
  std::string title;
  std::vector<std::pair<std::string, std::string>> meta;
  std::vector<std::string> notes;
  std::vector<Table> tables;
  std::vector<std::pair<std::string, std::string>> images;  ///< caption, path
  /// Markdown only: the meta list closes the document instead of opening it,
  /// so a report's first screen is its findings. CSV and JSON always start with it.
  bool meta_at_end = false;
};

/// A Document whose meta starts with the format, its version and the tool's version and
/// git revision.
Document make_document(std::string kind, std::string title);

/// Keeps only the table named `name`; throws std::invalid_argument naming the tables if absent.
void keep_only_table(Document& doc, const std::string& name);

/// A value as text: NULL → `null_text`, REAL with `precision` decimals (or SQLite's rendering).
std::string format_value(const Value& v, int precision, const std::string& null_text);

void print_markdown(const Document& doc, std::ostream& out);
void print_csv(const Document& doc, std::ostream& out);
void print_json(const Document& doc, std::ostream& out);

/// A query's rows printed as they arrive, so a long result is never held whole (issue 45):
/// - "table": aligned columns (numbers right-aligned, NULL shown as NULL), their widths and
///   alignment taken from the header and the first kAlignedRows rows; a wider value further down
///   widens its own line only; then "(N rows)".
/// - "csv": bare CSV (header and rows only, for pipes and spreadsheets).
/// - "json": `document` (its meta and notes) with one table "result" of every row.
class QueryPrinter {
 public:
  static constexpr std::size_t kAlignedRows = 1000;
  QueryPrinter(std::string format, std::ostream& out, Document document = {});
  void columns(const std::vector<std::string>& names);
  void row(const std::vector<Value>& values);
  /// Prints what is still held (a table of fewer than kAlignedRows rows) and the closing lines.
  void finish();

 private:
  void print_held();
  void print_table_row(const std::vector<Value>& values);
  std::string format_;
  std::ostream& out_;
  Document document_;
  std::vector<std::string> columns_;
  std::vector<std::vector<Value>> held_;  ///< "table": the rows that set the widths
  bool streaming_ = false;                ///< widths fixed, rows printed as they come
  std::vector<std::size_t> width_;
  std::vector<bool> right_;
  std::size_t rows_ = 0;
  std::string json_tail_;  ///< "json": what follows the rows
};

/// A whole result through QueryPrinter.
void print_aligned(const db::ResultSet& rs, std::ostream& out);
void print_plain_csv(const db::ResultSet& rs, std::ostream& out);

}  // namespace coalesce::report
