// The printers of a Document (see table.hpp).
#include "table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "coalesce/version.h"

namespace coalesce::report {

namespace {

bool is_number(const Value& v) {
  return std::holds_alternative<std::int64_t>(v) || std::holds_alternative<double>(v);
}

/// A column is right-aligned in markdown when every non-NULL value in it is a number.
bool numeric_column(const Table& t, std::size_t c) {
  bool any = false;
  for (const auto& row : t.rows) {
    if (db::is_null(row[c])) continue;
    if (!is_number(row[c])) return false;
    any = true;
  }
  return any;
}

std::string md_cell(std::string s) {
  std::string out;
  for (char ch : s) {
    if (ch == '|') out += "\\|";
    else if (ch == '\n') out += ' ';
    else out += ch;
  }
  return out;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + "\"";
}

nlohmann::ordered_json json_value(const Value& v, int precision) {
  if (auto* n = std::get_if<std::int64_t>(&v)) return *n;
  if (auto* d = std::get_if<double>(&v)) {
    if (!std::isfinite(*d)) return nullptr;
    if (precision < 0) return *d;
    double scale = std::pow(10.0, precision);
    return std::round(*d * scale) / scale;
  }
  if (auto* s = std::get_if<std::string>(&v)) return *s;
  return nullptr;
}

/// The columns CSV and JSON print (Column::machine).
std::vector<std::size_t> machine_columns(const Table& t) {
  std::vector<std::size_t> out;
  for (std::size_t c = 0; c < t.columns.size(); ++c)
    if (t.columns[c].machine) out.push_back(c);
  return out;
}

void print_md_rows(const Table& t, const std::vector<std::size_t>& cols,
                   const std::vector<const std::vector<Value>*>& rows, std::ostream& out) {
  out << '|';
  for (auto c : cols) out << ' ' << md_cell(t.columns[c].header) << " |";
  out << "\n|";
  for (auto c : cols) out << (numeric_column(t, c) ? " ---: |" : " --- |");
  out << '\n';
  for (const auto* row : rows) {
    out << '|';
    for (auto c : cols)
      out << ' ' << md_cell(format_value((*row)[c], t.columns[c].precision, "—")) << " |";
    out << '\n';
  }
}

void print_md_table(const Table& t, std::ostream& out) {
  out << "## " << t.title << "\n\n";
  if (t.rows.empty()) {
    out << "_" << t.empty_text << "_\n\n";
  } else if (t.records) {
    for (const auto& row : t.rows) {
      out << "| " << md_cell(t.columns[0].header) << " | "
          << md_cell(format_value(row[0], t.columns[0].precision, "—")) << " |\n| --- | --- |\n";
      for (std::size_t c = 1; c < t.columns.size(); ++c) {
        if (!t.columns[c].markdown) continue;
        out << "| " << md_cell(t.columns[c].header) << " | "
            << md_cell(format_value(row[c], t.columns[c].precision, "—")) << " |\n";
      }
      out << '\n';
    }
  } else {
    std::vector<std::size_t> groups, cols;
    for (const auto& key : t.group_by) groups.push_back(t.index(key));
    for (std::size_t c = 0; c < t.columns.size(); ++c)
      if (t.columns[c].markdown && std::find(groups.begin(), groups.end(), c) == groups.end())
        cols.push_back(c);
    auto label = [&](const std::vector<Value>& row) {
      std::string s;
      for (auto g : groups)
        s += (s.empty() ? "" : " · ") + format_value(row[g], t.columns[g].precision, "—");
      return s;
    };
    std::size_t i = 0;
    while (i < t.rows.size()) {
      std::vector<const std::vector<Value>*> block;
      std::string heading = label(t.rows[i]);
      while (i < t.rows.size() && label(t.rows[i]) == heading) block.push_back(&t.rows[i++]);
      if (!groups.empty()) out << "### " << heading << "\n\n";
      std::vector<std::size_t> shown = cols;
      if (t.hide_empty_columns)
        std::erase_if(shown, [&](std::size_t c) {
          return std::all_of(block.begin(), block.end(), [c](const auto* row) { return db::is_null((*row)[c]); });
        });
      print_md_rows(t, shown, block, out);
      out << '\n';
    }
  }
  for (const auto& note : t.notes) out << note << "\n\n";
}

}  // namespace

std::size_t Table::index(const std::string& key) const {
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i].key == key) return i;
  throw std::logic_error("table " + name + " has no column " + key);
}

Document make_document(std::string kind, std::string title) {
  Document d;
  d.kind = kind;
  d.title = std::move(title);
  d.meta = {{"format", "coalesce-report/" + kind},
            {"format_version", std::to_string(kFormatVersion)},
            {"tool", std::string("coalesce-report ") + COALESCE_VERSION},
            {"tool_git_revision", COALESCE_GIT_REVISION}};
  return d;
}

void keep_only_table(Document& doc, const std::string& name) {
  std::string names;
  for (const auto& t : doc.tables) {
    if (t.name == name) {
      Table kept = t;
      doc.tables = {std::move(kept)};
      doc.images.clear();
      return;
    }
    names += (names.empty() ? "" : ", ") + t.name;
  }
  throw std::invalid_argument("no table '" + name + "' in this output (tables: " + names + ")");
}

std::string format_value(const Value& v, int precision, const std::string& null_text) {
  if (db::is_null(v)) return null_text;
  if (auto* d = std::get_if<double>(&v); d && precision >= 0) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", precision, *d);
    return buf;
  }
  return db::as_text(v);
}

void print_markdown(const Document& doc, std::ostream& out) {
  auto print_meta = [&] {
    for (const auto& [key, value] : doc.meta) out << "- " << key << ": `" << value << "`\n";
  };
  out << "# " << doc.title << "\n\n";
  if (!doc.meta_at_end) {
    print_meta();
    out << '\n';
  }
  for (const auto& note : doc.notes) out << note << "\n\n";
  for (const auto& t : doc.tables) print_md_table(t, out);
  if (!doc.images.empty()) {
    out << "## Plots\n\n";
    for (const auto& [caption, path] : doc.images)
      out << "![" << caption << "](" << path << ")\n\n";
  }
  if (doc.meta_at_end) {
    out << "## This document\n\n";
    print_meta();
  }
}

void print_csv(const Document& doc, std::ostream& out) {
  // Comment lines carry the document's facts; pandas.read_csv(comment='#') reads past them.
  for (const auto& [key, value] : doc.meta) out << "# " << key << ": " << value << '\n';
  for (const auto& note : doc.notes) out << "# note: " << note << '\n';
  bool first = true;
  for (const auto& t : doc.tables) {
    if (!first) out << '\n';
    first = false;
    out << "# table " << t.name << ": " << t.title << '\n';
    const std::vector<std::size_t> cols = machine_columns(t);
    for (std::size_t i = 0; i < cols.size(); ++i) out << (i ? "," : "") << csv_field(t.columns[cols[i]].key);
    out << '\n';
    for (const auto& row : t.rows) {
      for (std::size_t i = 0; i < cols.size(); ++i)
        out << (i ? "," : "") << csv_field(format_value(row[cols[i]], t.columns[cols[i]].precision, ""));
      out << '\n';
    }
  }
}

void print_json(const Document& doc, std::ostream& out) {
  nlohmann::ordered_json j;
  for (const auto& [key, value] : doc.meta) {
    if (key == "format_version") j[key] = kFormatVersion;
    else j[key] = value;
  }
  j["title"] = doc.title;
  j["notes"] = doc.notes;
  j["tables"] = nlohmann::ordered_json::array();
  for (const auto& t : doc.tables) {
    nlohmann::ordered_json jt;
    jt["name"] = t.name;
    jt["title"] = t.title;
    jt["columns"] = nlohmann::ordered_json::array();
    const std::vector<std::size_t> cols = machine_columns(t);
    for (std::size_t c : cols) jt["columns"].push_back({{"key", t.columns[c].key}, {"header", t.columns[c].header}});
    jt["rows"] = nlohmann::ordered_json::array();
    for (const auto& row : t.rows) {
      nlohmann::ordered_json jr = nlohmann::ordered_json::object();
      for (std::size_t c : cols)
        jr[t.columns[c].key] = json_value(row[c], t.columns[c].precision);
      jt["rows"].push_back(std::move(jr));
    }
    jt["notes"] = t.notes;
    j["tables"].push_back(std::move(jt));
  }
  j["images"] = nlohmann::ordered_json::array();
  for (const auto& [caption, path] : doc.images)
    j["images"].push_back({{"caption", caption}, {"path", path}});
  // Text that is not UTF-8 (a BLOB cast to TEXT, a byte string in the SQL) is printed with
  // U+FFFD in place of each bad byte, not refused by the JSON library mid-document (issue 45).
  out << j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
}

QueryPrinter::QueryPrinter(std::string format, std::ostream& out, Document document)
    : format_(std::move(format)), out_(out), document_(std::move(document)) {}

void QueryPrinter::columns(const std::vector<std::string>& names) {
  columns_ = names;
  if (format_ == "csv") {
    for (std::size_t c = 0; c < columns_.size(); ++c) out_ << (c ? "," : "") << csv_field(columns_[c]);
    out_ << '\n';
  } else if (format_ == "json") {
    // The document printed with an empty table, cut where its rows go: the rows are printed
    // between, each as print_json would indent it.
    Table t;
    t.name = "result";
    t.title = "Result";
    for (const auto& c : columns_) t.columns.push_back({c, c});
    document_.tables.push_back(std::move(t));
    std::ostringstream whole;
    print_json(document_, whole);
    const std::string text = whole.str();
    const std::string empty_rows = "\"rows\": []";
    const std::size_t at = text.find(empty_rows);
    out_ << text.substr(0, at) << "\"rows\": [";
    json_tail_ = text.substr(at + empty_rows.size());
  }
}

void QueryPrinter::row(const std::vector<Value>& values) {
  ++rows_;
  if (format_ == "csv") {
    for (std::size_t c = 0; c < values.size(); ++c)
      out_ << (c ? "," : "") << csv_field(format_value(values[c], -1, ""));
    out_ << '\n';
  } else if (format_ == "json") {
    nlohmann::ordered_json jr = nlohmann::ordered_json::object();
    for (std::size_t c = 0; c < columns_.size(); ++c) jr[columns_[c]] = json_value(values[c], -1);
    // print_json's indent of a row object: 8 spaces, its keys 10 (dump(2) at depth 4).
    std::string text = jr.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
    std::string indented = "        ";
    for (char ch : text) indented += ch == '\n' ? std::string("\n        ") : std::string(1, ch);
    out_ << (rows_ > 1 ? ",\n" : "\n") << indented;
  } else if (streaming_) {
    print_table_row(values);
  } else {
    held_.push_back(values);
    if (held_.size() == kAlignedRows) print_held();
  }
}

void QueryPrinter::print_held() {
  const std::size_t n = columns_.size();
  width_.assign(n, 0);
  right_.assign(n, false);
  for (std::size_t c = 0; c < n; ++c) width_[c] = columns_[c].size();
  for (std::size_t c = 0; c < n; ++c) {
    bool numeric = false, text = false;
    for (const auto& row : held_) {
      if (is_number(row[c])) numeric = true;
      else if (!db::is_null(row[c])) text = true;
      width_[c] = std::max(width_[c], format_value(row[c], -1, "NULL").size());
    }
    right_[c] = numeric && !text;
  }
  for (std::size_t c = 0; c < n; ++c) {
    const bool last = c + 1 == n;
    const std::string fill(width_[c] - columns_[c].size(), ' ');
    out_ << (c ? "  " : "") << (right_[c] ? fill + columns_[c] : last ? columns_[c] : columns_[c] + fill);
  }
  out_ << '\n';
  for (std::size_t c = 0; c < n; ++c) out_ << (c ? "  " : "") << std::string(width_[c], '-');
  out_ << '\n';
  streaming_ = true;
  for (const auto& row : held_) print_table_row(row);
  held_.clear();
  held_.shrink_to_fit();
}

void QueryPrinter::print_table_row(const std::vector<Value>& values) {
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    const std::string s = format_value(values[c], -1, "NULL");
    const bool last = c + 1 == columns_.size();
    const std::string fill(width_[c] > s.size() ? width_[c] - s.size() : 0, ' ');
    out_ << (c ? "  " : "") << (right_[c] ? fill + s : last ? s : s + fill);  // no trailing blanks
  }
  out_ << '\n';
}

void QueryPrinter::finish() {
  if (format_ == "json") {
    out_ << (rows_ > 0 ? "\n      ]" : "]") << json_tail_;
  } else if (format_ == "table") {
    if (!streaming_) print_held();
    out_ << "(" << rows_ << (rows_ == 1 ? " row)" : " rows)") << '\n';
  }
  out_.flush();
}

namespace {
void print_result(const db::ResultSet& rs, const std::string& format, std::ostream& out) {
  QueryPrinter printer(format, out);
  printer.columns(rs.columns);
  for (const auto& row : rs.rows) printer.row(row);
  printer.finish();
}
}  // namespace

void print_aligned(const db::ResultSet& rs, std::ostream& out) { print_result(rs, "table", out); }
void print_plain_csv(const db::ResultSet& rs, std::ostream& out) { print_result(rs, "csv", out); }

}  // namespace coalesce::report
