// The printers of a Document: markdown grouping and escaping, CSV quoting, JSON numbers rounded
// to the column's precision, the aligned query table, and the version stamp on every format.
#include <gtest/gtest.h>

#include <sstream>

#include <nlohmann/json.hpp>

#include "coalesce/version.h"
#include "reports/table.hpp"

namespace coalesce::report {
namespace {

Document sample() {
  Document d = make_document("report", "Sample");
  d.meta.emplace_back("database", "x.db");
  Table t;
  t.name = "times";
  t.title = "Times";
  t.columns = {{"device", "device"}, {"shape", "shape"}, {"m", "M", -1, false},
               {"config", "config"}, {"ms", "median (ms)", 3}};
  t.group_by = {"device", "shape"};
  t.rows = {{std::string("H200"), std::string("1024³"), std::int64_t{1024}, std::string("a|b"), 0.12345},
            {std::string("H200"), std::string("1024³"), std::int64_t{1024}, std::string("x,\"y\""), Value()},
            {std::string("H200"), std::string("4096³"), std::int64_t{4096}, std::string("c"), 2.5}};
  t.notes = {"A note."};
  d.tables.push_back(t);
  return d;
}

TEST(Printers, MarkdownGroupsRowsAndEscapesCells) {
  std::ostringstream out;
  print_markdown(sample(), out);
  std::string md = out.str();
  EXPECT_NE(md.find("- format_version: `" + std::to_string(kFormatVersion) + "`"), std::string::npos) << md;
  EXPECT_NE(md.find(std::string("- tool_git_revision: `") + COALESCE_GIT_REVISION + "`"),
            std::string::npos);
  EXPECT_NE(md.find("### H200 · 1024³\n\n| config | median (ms) |\n| --- | ---: |\n"
                    "| a\\|b | 0.123 |\n| x,\"y\" | — |\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("### H200 · 4096³\n\n| config | median (ms) |\n| --- | ---: |\n| c | 2.500 |"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("| M |"), std::string::npos) << "a CSV/JSON-only column reached markdown";
  EXPECT_NE(md.find("A note."), std::string::npos);
}

// Column::machine false: a reader's rendering ("1.44× unfused") that markdown prints and CSV and
// JSON leave out, their own columns carrying its parts.
TEST(Printers, AReadersColumnIsMarkdownsOnly) {
  Document d = sample();
  Table& t = d.tables[0];
  Column reading{"reading", "speed-up"};
  reading.machine = false;
  t.columns.push_back(reading);
  for (auto& row : t.rows) row.push_back(std::string("1.44× unfused"));
  std::ostringstream md, csv, json;
  print_markdown(d, md);
  print_csv(d, csv);
  print_json(d, json);
  EXPECT_NE(md.str().find("| config | median (ms) | speed-up |"), std::string::npos) << md.str();
  EXPECT_NE(md.str().find("| c | 2.500 | 1.44× unfused |"), std::string::npos) << md.str();
  EXPECT_NE(csv.str().find("\ndevice,shape,m,config,ms\n"), std::string::npos) << csv.str();
  EXPECT_EQ(csv.str().find("1.44"), std::string::npos) << csv.str();
  auto j = nlohmann::json::parse(json.str());
  EXPECT_EQ(j["tables"][0]["columns"].size(), 5u);
  EXPECT_FALSE(j["tables"][0]["rows"][0].contains("reading"));
}

// hide_empty_columns: in markdown, a column with no value in a group's rows is left out of that
// group's table only; CSV keeps it.
TEST(Printers, MarkdownHidesAGroupsEmptyColumnsWhenAsked) {
  Document d = sample();
  d.tables[0].hide_empty_columns = true;
  d.tables[0].rows[0][d.tables[0].index("ms")] = Value();
  std::ostringstream md, csv;
  print_markdown(d, md);
  EXPECT_NE(md.str().find("### H200 · 1024³\n\n| config |\n| --- |\n| a\\|b |\n| x,\"y\" |\n"), std::string::npos)
      << md.str();
  EXPECT_NE(md.str().find("### H200 · 4096³\n\n| config | median (ms) |\n| --- | ---: |\n| c | 2.500 |"),
            std::string::npos)
      << md.str();
  print_csv(d, csv);
  EXPECT_NE(csv.str().find("device,shape,m,config,ms\n"), std::string::npos);
}

TEST(Printers, CsvQuotesAndKeepsEveryColumn) {
  std::ostringstream out;
  print_csv(sample(), out);
  EXPECT_EQ(out.str(), std::string("# format: coalesce-report/report\n# format_version: ") +
                           std::to_string(kFormatVersion) + "\n" +
                           "# tool: coalesce-report " + COALESCE_VERSION +
                           "\n# tool_git_revision: " + COALESCE_GIT_REVISION +
                           "\n# database: x.db\n# table times: Times\n"
                           "device,shape,m,config,ms\n"
                           "H200,1024³,1024,a|b,0.123\n"
                           "H200,1024³,1024,\"x,\"\"y\"\"\",\n"
                           "H200,4096³,4096,c,2.500\n");
}

TEST(Printers, JsonRoundsToTheColumnsPrecision) {
  std::ostringstream out;
  print_json(sample(), out);
  auto j = nlohmann::json::parse(out.str());
  EXPECT_EQ(j["format"], "coalesce-report/report");
  EXPECT_EQ(j["format_version"], kFormatVersion);
  EXPECT_EQ(j["tool_git_revision"], COALESCE_GIT_REVISION);
  auto rows = j["tables"][0]["rows"];
  EXPECT_DOUBLE_EQ(rows[0]["ms"].get<double>(), 0.123);
  EXPECT_TRUE(rows[1]["ms"].is_null());
  EXPECT_EQ(rows[2]["m"], 4096);
}

TEST(Printers, KeepOnlyTableNamesTheAlternatives) {
  Document d = sample();
  try {
    keep_only_table(d, "nope");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("tables: times"), std::string::npos);
  }
  keep_only_table(d, "times");
  EXPECT_EQ(d.tables.size(), 1u);
}

TEST(Printers, AlignedTableRightAlignsNumbers) {
  db::ResultSet rs{{"name", "n"}, {{std::string("a"), std::int64_t{5}}, {std::string("long"), Value()}}};
  std::ostringstream out;
  print_aligned(rs, out);
  EXPECT_EQ(out.str(), "name     n\n----  ----\na        5\nlong  NULL\n(2 rows)\n");
}

}  // namespace
}  // namespace coalesce::report
