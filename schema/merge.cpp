// Merging results databases by natural keys (merge.hpp). The input's private copy is attached to
// the output's connection and each table is merged in SQL, parents first:
//   1. merge_in_<table>: the input's rows with their foreign keys remapped to the output's ids
//      through the parents' maps; a row whose parent was not taken is an orphan (left out);
//   2. merge_map_<table>: each input row's outcome against the output's row of the same natural
//      key: new (no such row), present (same values) or conflict (other values);
//   3. new rows get the ids after the output's largest, in the input's order, and are inserted;
//      the map (input id -> output id) is what the children's foreign keys go through.
#include "merge.hpp"
#include "lease.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <system_error>

namespace coalesce::db {

namespace {

namespace fs = std::filesystem;

/// How the rows of one table are told apart across databases.
struct NaturalKey {
  std::vector<std::string> columns;
  /// For a table whose rows of two kinds are keyed differently (the schema's partial unique
  /// indexes): the condition over a row `$` that selects the rows of this key; empty for all.
  std::string when;
};

/// SQL naming a row by its natural key, for messages: `r` is the row's alias in the output,
/// `depth` keeps the aliases of nested look-ups apart.
using LabelFn = std::string (*)(const std::string& r, int depth);

struct TableRule {
  std::string table;
  std::string noun;
  std::vector<NaturalKey> keys;
  /// False where the schema does not enforce the key (runs): the merge then checks that no two
  /// rows of the input, nor of the output, share it, since a key must name one row.
  bool unique_in_schema = true;
  /// Columns that describe how the row came about rather than what it holds: not compared, and
  /// the output keeps its own.
  std::vector<std::string> not_compared;
  LabelFn label = nullptr;
  /// Columns measured by one occurrence of the row (ptxas' figures of one compile): two rows of
  /// one key may differ there without conflict; the output keeps its own and the merge counts them.
  std::vector<std::string> kept = {};
};

const TableRule& rule_of(std::string_view table);

/// SQL naming the output's row of `table` whose id is the SQL expression `id`.
std::string label_of(std::string_view table, const std::string& id, int depth) {
  const std::string a = "l" + std::to_string(depth);
  return "(SELECT " + rule_of(table).label(a, depth + 1) + " FROM main." + std::string(table) + " " + a +
         " WHERE " + a + ".rowid = " + id + ")";
}

std::string device_label(const std::string& r, int) { return r + ".uuid"; }

std::string run_label(const std::string& r, int depth) {
  return "'run started ' || " + r + ".started_at || ' on ' || " + r + ".host || ' (' || ifnull(" +
         label_of("devices", r + ".device_id", depth) + ", 'no device') || ')'";
}

std::string problem_label(const std::string& r, int) {
  return r + ".m || 'x' || " + r + ".n || 'x' || " + r + ".k || ' ' || " + r + ".dtype || ' ' || " + r +
         ".epilogue";
}

std::string config_label(const std::string& r, int) {
  return r + ".name || CASE " + r + ".source_hash WHEN '' THEN '' ELSE ' (source ' || substr(" + r +
         ".source_hash, 1, 12) || ')' END";
}

std::string build_label(const std::string& r, int depth) {
  return label_of("configs", r + ".config_id", depth) + " || ' for ' || " + r +
         ".arch || ' with toolkit ' || " + r + ".toolkit";
}

std::string measurement_label(const std::string& r, int depth) {
  return r + ".method || ' ' || ifnull(" + label_of("configs", r + ".config_id", depth) +
         ", 'baseline') || ' of ' || " + label_of("problems", r + ".problem_id", depth) + " || ' on ' || " +
         label_of("devices", r + ".device_id", depth) + " || CASE WHEN " + r +
         ".config_id IS NULL THEN ' in the ' || " + label_of("runs", r + ".run_id", depth) + " WHEN " + r +
         ".protocol <> '' THEN ' in protocol ' || " + r + ".protocol ELSE '' END";
}

std::string profile_label(const std::string& r, int depth) {
  return r + ".tool || ' profile of ' || " + r + ".kernel || ' (' || " + r + ".method || ifnull(' ' || " +
         label_of("configs", r + ".config_id", depth) + ", '') || ') of ' || " +
         label_of("problems", r + ".problem_id", depth) + " || ' on ' || " + label_of("devices", r + ".device_id", depth);
}

std::string protocol_label(const std::string& r, int) { return "'protocol ' || " + r + ".name"; }

std::string peak_label(const std::string& r, int) {
  return "'cc ' || " + r + ".cc_major || '.' || " + r + ".cc_minor || ' ' || " + r + ".math";
}

// The natural key of every table (docs/reports.md, "coalesce-report merge"), parents before the
// rows that refer to them. Foreign keys are read from the schema; a key column that is one
// (runs.device_id, ...) is compared through the parent's key, never its id.
const std::vector<TableRule>& rules() {
  static const std::vector<TableRule> all = {
      {"devices", "device", {{{"uuid"}, ""}}, true, {}, device_label},
      // A run has no key in the schema. Its writer's lease makes one database's runs start one
      // at a time; a run on one device and host that started in the same millisecond with the
      // same arguments is the same run.
      {"runs", "run", {{{"device_id", "host", "started_at", "resume_key", "command_line"}, ""}}, false, {},
       run_label},
      {"problems", "problem", {{{"m", "n", "k", "dtype", "epilogue"}, ""}}, true, {}, problem_label},
      {"configs", "config", {{{"name", "source_hash"}, ""}}, true, {}, config_label},
      // The model's figures are the build; the time, the attempts and the log belong to one
      // compile of it (a retry among parallel compiles). So do ptxas' figures: two compiles of one
      // source by one toolkit label have given other register counts (on two hosts, and in two
      // concurrent compiles on one), so where they differ the output keeps its build's figures, as
      // a sweep storing the build again would keep one, and the merge says how many differed.
      {"builds", "build", {{{"config_id", "arch", "toolkit"}, ""}}, true,
       {"compile_ms", "attempts", "log", "created_at"}, build_label,
       {"registers", "spill_stores_bytes", "spill_loads_bytes", "stack_bytes", "smem_bytes",
        "blocks_per_sm"}},
      // The schema's two unique indexes: a config once per device × problem × method × timing
      // protocol whatever the run (measurements_config_once), a baseline once per run
      // (measurements_baseline_per_run).
      {"measurements", "measurement",
       {{{"device_id", "problem_id", "method", "config_id", "protocol"}, "$.config_id IS NOT NULL"},
        {{"run_id", "device_id", "problem_id", "method"}, "$.config_id IS NULL"}},
       true, {}, measurement_label},
      {"math_peaks", "math peak", {{{"cc_major", "cc_minor", "math"}, ""}}, true, {}, peak_label},
      // The timing protocols (schema 8) by name; every database holds the migration's rows.
      {"protocols", "protocol", {{{"name"}, ""}}, true, {}, protocol_label},
      // A kernel profiled once per device × problem × method × config (profiles_once; a library
      // kernel's NULL config matches NULL). When it was stored is not what it holds.
      {"profiles", "profile", {{{"device_id", "problem_id", "method", "config_id", "kernel"}, ""}}, true,
       {"created_at"}, profile_label},
  };
  return all;
}

const TableRule& rule_of(std::string_view table) {
  for (const TableRule& r : rules())
    if (r.table == table) return r;
  throw std::logic_error("merge: no natural key for table " + std::string(table));
}

std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char ch : text) out += ch == '\'' ? std::string("''") : std::string(1, ch);
  return out + "'";
}

std::string joined(const std::vector<std::string>& parts, const std::string& separator) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : separator) + p;
  return out;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

/// A value as a message shows it: NULL, a number as SQLite prints it, a text quoted and cut.
std::string shown(const Value& v) {
  if (is_null(v)) return "NULL";
  if (!std::holds_alternative<std::string>(v)) return as_text(v);
  std::string text = as_text(v);
  constexpr std::size_t kMaxShown = 60;  // a command line or a log stays on one readable line
  if (text.size() > kMaxShown) text = text.substr(0, kMaxShown) + "...";
  return "'" + text + "'";
}

/// The snapshot attached to the output's connection as `merge_input` while in scope.
class Attached {
 public:
  Attached(Database& out, const fs::path& snapshot) : out_(out) {
    out_.exec("ATTACH DATABASE " + quoted(snapshot.string()) + " AS merge_input");
  }
  Attached(const Attached&) = delete;
  Attached& operator=(const Attached&) = delete;
  ~Attached() {
    try {
      out_.exec("DETACH DATABASE merge_input");
    } catch (const Error&) {
      // Only a statement still running could keep it attached, and none is left at this point.
    }
  }

 private:
  Database& out_;
};

}  // namespace

/// A table as this merge handles it: its rule and what the output's schema says of it.
struct Merger::Table {
  const TableRule* rule = nullptr;
  std::vector<std::string> columns;         // every column but the id, in the schema's order
  std::map<std::string, std::string> parent;  // foreign key column -> the table it refers to

  const std::string& name() const { return rule->table; }
  std::string out() const { return "main." + name(); }
  std::string in() const { return "temp.merge_in_" + name(); }
  std::string map() const { return "temp.merge_map_" + name(); }
  std::string map_of(const std::string& column) const { return "temp.merge_map_" + parent.at(column); }
  /// Whether two rows of one key must agree on `column` (the key's own columns agree already).
  bool compared(const std::string& column) const {
    const auto& skip = rule->not_compared;
    return std::find(skip.begin(), skip.end(), column) == skip.end() && !kept(column);
  }
  /// Whether `column` may differ between two rows of one key, the output keeping its own.
  bool kept(const std::string& column) const {
    return std::find(rule->kept.begin(), rule->kept.end(), column) != rule->kept.end();
  }
  /// `column` of row `r` as it is compared: a JSON text by its value, as upsert_config() does.
  std::string value(const std::string& r, const std::string& column) const {
    const bool json = column.size() > 5 && column.compare(column.size() - 5, 5, "_json") == 0;
    return json ? "json(" + r + "." + column + ")" : r + "." + column;
  }
};

std::int64_t MergeResult::added() const {
  std::int64_t n = 0;
  for (const MergeCount& c : tables) n += c.added;
  return n;
}

std::int64_t MergeResult::present() const {
  std::int64_t n = 0;
  for (const MergeCount& c : tables) n += c.present;
  return n;
}

Merger::Merger(Database& out) : out_(out) {
  std::set<std::string> in_schema;
  auto tables = out_.query(
      "SELECT name FROM main.sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
  for (const auto& row : tables.rows) in_schema.insert(as_text(row[0]));
  std::set<std::string> seen;
  for (const TableRule& rule : rules()) {
    if (!in_schema.count(rule.table))
      throw std::logic_error("merge: table " + rule.table + " has a natural key but is not in the schema");
    Table t;
    t.rule = &rule;
    for (const auto& row : out_.query("SELECT name FROM pragma_table_info(?1, 'main')", {rule.table}).rows)
      if (as_text(row[0]) != "id") t.columns.push_back(as_text(row[0]));
    auto foreign_keys = out_.query(
        "SELECT \"from\", \"table\", \"to\" FROM pragma_foreign_key_list(?1, 'main')", {rule.table});
    for (const auto& row : foreign_keys.rows) {
      const std::string column = as_text(row[0]), parent = as_text(row[1]);
      if (!seen.count(parent) || as_text(row[2]) != "id")
        throw std::logic_error("merge: " + rule.table + "." + column + " refers to " + parent +
                               ", which is not merged before it by id");
      t.parent[column] = parent;
    }
    for (const NaturalKey& key : rule.keys)
      for (const std::string& c : key.columns)
        if (std::find(t.columns.begin(), t.columns.end(), c) == t.columns.end())
          throw std::logic_error("merge: the natural key of " + rule.table + " names no column " + c);
    seen.insert(rule.table);
    tables_.push_back(std::move(t));
  }
  for (const std::string& table : in_schema)
    if (!seen.count(table))
      throw std::logic_error("merge: table " + table +
                             " of the schema has no natural key (schema/merge.cpp, rules())");
}

Merger::~Merger() = default;

MergeResult Merger::merge(const fs::path& input, const std::function<bool()>& stop) {
  const auto stop_here = [&] {
    if (stop && stop())
      throw MergeInterrupted("merging " + input.string() + " into " + out_.path().string() +
                             " was interrupted and rolled back");
  };
  stop_here();
  MergeResult result;
  result.input = input;
  // A sweep still writing the input would give the merge part of its run, and the merge would
  // succeed in silence (issue 45): its lease says so.
  WriterLease::refuse_if_held(input, "merge it once that writer has finished");
  MigratedCopy snapshot(input);
  result.schema_version = snapshot.source_version();
  std::vector<std::pair<std::string, Added>> added;
  {
    Attached attached(out_, snapshot.path());
    out_.in_transaction([&] {
      for (const Table& t : tables_) {
        stop_here();
        stage(t, input);
        classify(t);
        const std::int64_t last = insert_new(t);
        MergeCount count = outcomes(t);
        if (count.added > 0) added.push_back({t.name(), {last + 1, last + count.added, input}});
        if (count.conflicts > 0) add_conflicts(t, result);
        result.tables.push_back(std::move(count));
      }
      for (const Table& t : tables_) out_.exec("DROP TABLE " + t.in() + "; DROP TABLE " + t.map() + ";");
      stop_here();
    });
  }
  for (auto& [table, range] : added) added_[table].push_back(std::move(range));
  return result;
}

void Merger::stage(const Table& t, const fs::path& input) {
  // The input's rows with their foreign keys in the output's ids, through the parents' maps.
  std::vector<std::string> select = {"s.rowid AS src_id"}, joins, orphan;
  for (const std::string& c : t.columns) {
    if (!t.parent.count(c)) {
      select.push_back("s." + c + " AS " + c);
      continue;
    }
    const std::string p = "p_" + c;
    select.push_back(p + ".out_id AS " + c);
    joins.push_back("LEFT JOIN " + t.map_of(c) + " " + p + " ON " + p + ".src_id = s." + c);
    orphan.push_back("(s." + c + " IS NOT NULL AND " + p + ".out_id IS NULL)");
  }
  select.push_back((orphan.empty() ? "0" : joined(orphan, " OR ")) + " AS orphan");
  out_.exec("CREATE TEMP TABLE " + t.in() + " AS SELECT " + joined(select, ", ") +
            " FROM merge_input." + t.name() + " s " + joined(joins, " ") + ";" +
            // stored: the output's row of the key; out_id: what the children's keys go through.
            "CREATE TEMP TABLE " + t.map() +
            " (src_id INTEGER PRIMARY KEY, outcome TEXT NOT NULL, stored INTEGER, out_id INTEGER);");
  if (t.rule->unique_in_schema) return;
  for (const NaturalKey& key : t.rule->keys) {
    const std::string columns = joined(key.columns, ", ");
    for (const auto& [rows, holder] : {std::pair{t.in() + " WHERE NOT orphan", input.string()},
                                       std::pair{t.out(), out_.path().string()}}) {
      auto shared = out_.query("SELECT count(*) FROM (SELECT 1 FROM " + rows + " GROUP BY " + columns +
                               " HAVING count(*) > 1)");
      if (as_int(shared.rows[0][0]) > 0)
        throw Error("cannot merge " + input.string() + ": " + holder + " holds two " + t.name() +
                    " with one natural key (" + columns + "), and the merge cannot tell them apart");
    }
  }
}

void Merger::classify(const Table& t) {
  std::vector<std::string> same;
  for (const std::string& c : t.columns)
    if (t.compared(c)) same.push_back(t.value("o", c) + " IS " + t.value("i", c));
  out_.exec("INSERT INTO " + t.map() + " (src_id, outcome) SELECT src_id, 'left_out' FROM " + t.in() +
            " WHERE orphan;");
  for (const NaturalKey& key : t.rule->keys) {
    std::vector<std::string> match;
    for (const std::string& c : key.columns) match.push_back("o." + c + " IS i." + c);
    // The condition on both sides, so that the schema's partial unique index serves the match.
    if (!key.when.empty()) match.push_back(replaced(key.when, "$", "o"));
    out_.exec("INSERT INTO " + t.map() + " (src_id, stored, outcome) SELECT i.src_id, o.rowid, "
              "CASE WHEN o.rowid IS NULL THEN 'new' WHEN " + (same.empty() ? "1" : joined(same, " AND ")) +
              " THEN 'present' ELSE 'conflict' END FROM " + t.in() + " i LEFT JOIN " + t.out() + " o ON " +
              joined(match, " AND ") + " WHERE NOT i.orphan" +
              (key.when.empty() ? "" : " AND " + replaced(key.when, "$", "i")) + ";");
  }
}

std::int64_t Merger::insert_new(const Table& t) {
  // New rows take the ids after the output's largest, in the input's order.
  const std::int64_t last = as_int(out_.query("SELECT ifnull(max(rowid), 0) FROM " + t.out()).rows[0][0]);
  out_.exec("UPDATE " + t.map() + " SET out_id = stored WHERE outcome = 'present';"
            "UPDATE " + t.map() + " AS m SET out_id = " + std::to_string(last) + " + n.number FROM "
            "(SELECT src_id, row_number() OVER (ORDER BY src_id) AS number FROM " + t.map() +
            " WHERE outcome = 'new') AS n WHERE m.src_id = n.src_id;"
            "INSERT INTO " + t.out() + " (rowid, " + joined(t.columns, ", ") + ") SELECT m.out_id, i." +
            joined(t.columns, ", i.") + " FROM " + t.in() + " i JOIN " + t.map() +
            " m USING (src_id) WHERE m.outcome = 'new' ORDER BY m.out_id;");
  return last;
}

MergeCount Merger::outcomes(const Table& t) const {
  MergeCount count;
  count.table = t.name();
  count.noun = t.rule->noun;
  std::int64_t rows = 0;
  for (const auto& row : out_.query("SELECT outcome, count(*) FROM " + t.map() + " GROUP BY outcome").rows) {
    const std::string outcome = as_text(row[0]);
    const std::int64_t n = as_int(row[1]);
    rows += n;
    if (outcome == "new") count.added = n;
    else if (outcome == "present") count.present = n;
    else if (outcome == "conflict") count.conflicts = n;
    else count.left_out = n;
  }
  if (rows != as_int(out_.query("SELECT count(*) FROM " + t.in()).rows[0][0]))
    throw std::logic_error("merge: the natural keys of " + t.name() + " do not cover every row");
  std::vector<std::string> differ;
  for (const std::string& c : t.columns)
    if (t.kept(c)) differ.push_back(t.value("o", c) + " IS NOT " + t.value("i", c));
  if (!differ.empty())
    count.kept_own = as_int(out_.query("SELECT count(*) FROM " + t.map() + " m JOIN " + t.in() +
                                       " i USING (src_id) JOIN " + t.out() + " o ON o.rowid = m.stored "
                                       "WHERE m.outcome = 'present' AND (" + joined(differ, " OR ") + ")")
                                .rows[0][0]);
  return count;
}

void Merger::add_conflicts(const Table& t, MergeResult& result) const {
  // Column by column; a foreign key is compared by id and shown by its parent's key.
  struct Column {
    std::string name;
    std::size_t compare, show;  // positions in the result: the input's value, then the output's
  };
  std::vector<Column> columns;
  std::vector<std::string> select = {t.rule->label("o", 0), "o.rowid"};
  for (const std::string& c : t.columns) {
    if (!t.compared(c)) continue;
    Column column{c, select.size(), select.size()};
    select.push_back(t.value("i", c));
    select.push_back(t.value("o", c));
    if (t.parent.count(c)) {
      column.show = select.size();
      select.push_back(label_of(t.parent.at(c), "i." + c, 0));
      select.push_back(label_of(t.parent.at(c), "o." + c, 0));
    }
    columns.push_back(column);
  }
  auto rs = out_.query("SELECT " + joined(select, ", ") + " FROM " + t.map() + " m JOIN " + t.in() +
                       " i USING (src_id) JOIN " + t.out() +
                       " o ON o.rowid = m.stored WHERE m.outcome = 'conflict' ORDER BY m.src_id");
  for (const auto& row : rs.rows) {
    MergeConflict conflict;
    conflict.table = t.name();
    conflict.key = as_text(row[0]);
    conflict.stored_from = stored_from(t.name(), as_int(row[1]));
    for (const Column& c : columns)
      if (row[c.compare] != row[c.compare + 1])
        conflict.differences.push_back({c.name, shown(row[c.show]), shown(row[c.show + 1])});
    result.conflicts.push_back(std::move(conflict));
  }
}

fs::path Merger::stored_from(const std::string& table, std::int64_t id) const {
  if (auto it = added_.find(table); it != added_.end())
    for (const Added& a : it->second)
      if (id >= a.first && id <= a.last) return a.input;
  return out_.path();
}

namespace {

/// "1 device, 2 runs" over the tables whose `field` is not zero; `none` when every one is.
std::string listed(const MergeResult& r, std::int64_t MergeCount::*field, const std::string& none) {
  std::vector<std::string> parts;
  for (const MergeCount& c : r.tables)
    if (c.*field > 0) parts.push_back(std::to_string(c.*field) + " " + c.noun + (c.*field == 1 ? "" : "s"));
  return parts.empty() ? none : joined(parts, ", ");
}

}  // namespace

std::string summary(const MergeResult& r) {
  std::int64_t conflicts = 0, left_out = 0;
  for (const MergeCount& c : r.tables) conflicts += c.conflicts, left_out += c.left_out;
  std::string line = listed(r, &MergeCount::added, "nothing") + " new; " +
                     listed(r, &MergeCount::present, "nothing") + " already present; " +
                     std::to_string(conflicts) + (conflicts == 1 ? " conflict" : " conflicts");
  if (conflicts > 0) line += " (" + listed(r, &MergeCount::conflicts, "") + ")";
  if (left_out > 0)
    line += "; " + listed(r, &MergeCount::left_out, "") + " left out with " +
            (conflicts == 1 ? "it" : "them");
  std::int64_t kept = 0;
  for (const MergeCount& c : r.tables) kept += c.kept_own;
  if (kept > 0)
    line += "; " + listed(r, &MergeCount::kept_own, "") + " present with other ptxas figures (the output's kept)";
  if (r.schema_version < latest_schema_version())
    line += " (read at schema version " + std::to_string(r.schema_version) + ", migrated on a copy)";
  return line;
}

std::string describe(const MergeConflict& c, const MergeResult& r, const fs::path& out) {
  constexpr std::size_t kMaxColumns = 3;  // the rest are counted: a conflict stays one line
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < c.differences.size() && i < kMaxColumns; ++i) {
    const MergeDifference& d = c.differences[i];
    parts.push_back(d.column + " " + d.input_value + " vs " + d.output_value);
  }
  if (c.differences.size() > kMaxColumns)
    parts.push_back("and " + std::to_string(c.differences.size() - kMaxColumns) + " more columns");
  std::string sides = r.input.string() + " vs " + out.string();
  if (c.stored_from != out) sides += ", stored from " + c.stored_from.string();
  return r.input.string() + ": conflict in " + c.table + ", " + c.key + ": " + joined(parts, ", ") + " (" +
         sides + "); not taken";
}

}  // namespace coalesce::db
