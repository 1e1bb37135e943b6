// The tuning table (reports/tuning_table.cpp: its TSV, its refusals, the nearest-shape rule) and
// `coalesce-report export`'s entries (reports/export.cpp) over copies of the fixture database.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "tests/unit/reports/fixture_copy.hpp"
#include "reports/export.hpp"
#include "reports/tuning_table.hpp"

namespace coalesce {
namespace {

namespace fs = std::filesystem;
using tuning::Entry;
using tuning::Match;

Entry entry(std::int64_t m, std::int64_t n, std::int64_t k, const std::string& config, double us = 10,
            const std::string& dtype = "bf16", const std::string& epilogue = "bias_gelu") {
  Entry e;
  e.gpu_model = "NVIDIA H200";
  e.arch = "sm_90";
  e.sm_count = 132;
  e.max_sm_clock_mhz = 1980;
  e.dtype = dtype;
  e.epilogue = epilogue;
  e.m = m;
  e.n = n;
  e.k = k;
  e.config_name = config;
  e.family = "wgmma";
  e.median_us = us;
  e.protocol = "flush_spin";
  e.run = 7;
  return e;
}

const tuning::Device kH200{"NVIDIA H200", 132};

std::vector<Entry> parse(const std::string& text) {
  std::istringstream in(text);
  return tuning::read_table(in, "t.tsv");
}

std::string refusal(const std::string& text) {
  try {
    parse(text);
  } catch (const tuning::FormatError& e) {
    return e.what();
  }
  return "(read)";
}

TEST(TuningTable, WritesAndReadsBackEveryField) {
  std::vector<Entry> entries = {entry(4096, 4096, 4096, "a", 188.25), entry(1, 3072, 768, "b", 11.5, "f16", "none")};
  entries[1].max_sm_clock_mhz = 0;
  const std::string text = tuning::write_table(entries, {"from x.db"});
  // docs/compiler.md's eight columns first, in its order.
  EXPECT_EQ(text.rfind("# coalesce tuning table 1\n# from x.db\ngpu_model\tdtype\tepilogue\tm\tn\tk\tconfig_name\t"
                       "median_us\tsm_count\tarch\tmax_sm_clock_mhz\tfamily\tprotocol\trun\n", 0),
            0u)
      << text;
  EXPECT_NE(text.find("\nNVIDIA H200\tbf16\tbias_gelu\t4096\t4096\t4096\ta\t188.250\t132\tsm_90\t1980\twgmma\t"
                      "flush_spin\t7\n"),
            std::string::npos)
      << text;
  const std::vector<Entry> back = parse(text);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].gpu_model, "NVIDIA H200");
  EXPECT_EQ(back[1].m, 1);
  EXPECT_EQ(back[1].n, 3072);
  EXPECT_EQ(back[1].k, 768);
  EXPECT_EQ(back[1].dtype, "f16");
  EXPECT_EQ(back[1].epilogue, "none");
  EXPECT_EQ(back[1].config_name, "b");
  EXPECT_DOUBLE_EQ(back[1].median_us, 11.5);
  EXPECT_EQ(back[1].max_sm_clock_mhz, 0);
  EXPECT_EQ(back[0].protocol, "flush_spin");
  EXPECT_EQ(back[0].run, 7);
}

// Columns are found by name: a table with only the nine required columns, in another order, with
// an unknown one, comments, blank lines and CRLF line ends reads.
TEST(TuningTable, ReadsColumnsByNameInAnyOrder) {
  const auto back = parse(
      "# coalesce tuning table 1\r\n# a comment\r\n\r\nconfig_name\tm\tn\tk\tnew_column\tdtype\tepilogue\tgpu_model\t"
      "sm_count\tmedian_us\r\nc1\t8\t16\t32\tzzz\tf32\tbias\tNVIDIA H100 80GB HBM3\t132\t1.5\r\n");
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].config_name, "c1");
  EXPECT_EQ(back[0].gpu_model, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(back[0].k, 32);
  EXPECT_EQ(back[0].family, "");
}

TEST(TuningTable, RefusesWhatItCannotReadNamingTheLine) {
  const std::string head =
      "# coalesce tuning table 1\ngpu_model\tsm_count\tdtype\tepilogue\tm\tn\tk\tconfig_name\tmedian_us\n";
  EXPECT_EQ(refusal(""), "t.tsv:0: no header line (the column names)");
  EXPECT_EQ(refusal("gpu_model\tm\n"), "t.tsv:1: no column 'dtype' in the header");
  EXPECT_EQ(refusal("# coalesce tuning table 2\n"),
            "t.tsv:1: format version 2 is newer than this build reads (1)");
  EXPECT_EQ(refusal("# coalesce tuning table x\n"), "t.tsv:1: bad format version 'x'");
  EXPECT_EQ(refusal("# coalesce tuning table 1\n# only comments\n"), "t.tsv:2: no header line (the column names)");
  EXPECT_EQ(refusal("# coalesce tuning table 1\ngpu_model\tsm_count\tdtype\tepilogue\tm\tn\tk\tconfig_name\n"),
            "t.tsv:2: no column 'median_us' in the header");
  EXPECT_EQ(refusal("# coalesce tuning table 1\nm\tm\n"), "t.tsv:2: column 'm' appears twice");
  EXPECT_EQ(refusal(head + "H200\t132\tbf16\tnone\t1\t2\t3\tc\n"), "t.tsv:3: 8 fields, the header has 9");
  EXPECT_EQ(refusal(head + "H200\t132\tbf16\tnone\t0\t2\t3\tc\t1.0\n"),
            "t.tsv:3: m '0' is not an integer of at least 1");
  EXPECT_EQ(refusal(head + "H200\t132\tbf16\tnone\t1\t2x\t3\tc\t1.0\n"),
            "t.tsv:3: n '2x' is not an integer of at least 1");
  EXPECT_EQ(refusal(head + "H200\t132\tbf16\tnone\t1\t2\t3\tc\tnan\n"),
            "t.tsv:3: median_us 'nan' is not a number of at least 0");
  EXPECT_EQ(refusal(head + "H200\t132\tbf16\tnone\t1\t2\t3\tc\t-1\n"),
            "t.tsv:3: median_us '-1' is not a number of at least 0");
  EXPECT_EQ(refusal(head + "H200\t132\tbf16\tnone\t1\t2\t3\t\t1\n"), "t.tsv:3: config_name is empty");
  EXPECT_EQ(refusal(head + "H200\t132\tbf16\tnone\t1\t2\t3\tc\t1\n"), "(read)");
  EXPECT_THROW(tuning::read_table_file("/nonexistent/table.tsv"), tuning::FormatError);
}

// docs/compiler.md's minimal table: no version line, no sm_count (then any SM count matches).
TEST(TuningTable, ReadsTheRuntimesMinimalTable) {
  const auto back = parse(
      "# written by coalesce-report export from results/coalesce.db\n"
      "gpu_model\tdtype\tepilogue\tm\tn\tk\tconfig_name\tmedian_us\n"
      "NVIDIA H200\tbf16\tbias_gelu\t4096\t6400\t1600\twgmma_cfg\t118.4\n");
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].sm_count, 0);
  const tuning::Choice c = tuning::choose(back, {"NVIDIA H200", 114}, "bf16", "bias_gelu", 4096, 6400, 1600);
  EXPECT_EQ(c.match, Match::exact);
  EXPECT_EQ(tuning::choose(back, {"NVIDIA H100", 132}, "bf16", "bias_gelu", 4096, 6400, 1600).match, Match::none);
}

TEST(TuningTable, WriterRefusesAFieldThatWouldShiftTheColumns) {
  Entry bad = entry(1, 1, 1, "a\tb");
  EXPECT_THROW(tuning::write_table({bad}, {}), std::invalid_argument);
}

// The rule, step by step: exact, then the same N and K at the nearest M (log scale, ties to the
// smaller M), then the nearest shape; only the device's name and SM count, the dtype and the
// epilogue; nothing else matches: none.
TEST(TuningTable, ChoosesExactThenNearestMThenNearestShape) {
  const std::vector<Entry> t = {
      entry(4096, 4096, 4096, "square"),  entry(128, 3072, 768, "m128"),      entry(1024, 3072, 768, "m1024"),
      entry(4096, 3072, 768, "m4096", 5), entry(4096, 3072, 768, "m4096_slow", 6),
      entry(64, 64, 64, "f16", 1, "f16"), entry(64, 64, 64, "relu", 1, "bf16", "bias_relu"),
  };
  auto pick = [&](std::int64_t m, std::int64_t n, std::int64_t k, const tuning::Device& d = kH200) {
    const tuning::Choice c = tuning::choose(t, d, "bf16", "bias_gelu", m, n, k);
    return std::string(to_string(c.match)) + ":" + (c.entry ? c.entry->config_name : "-");
  };
  EXPECT_EQ(pick(4096, 4096, 4096), "exact:square");
  EXPECT_EQ(pick(4096, 3072, 768), "exact:m4096");  // the faster of two rows of one shape
  EXPECT_EQ(pick(1024, 3072, 768), "exact:m1024");
  EXPECT_EQ(pick(1000, 3072, 768), "nearest_m:m1024");
  EXPECT_EQ(pick(362, 3072, 768), "nearest_m:m128");    // log2(362/128) = 1.50 < log2(1024/362) = 1.50+
  EXPECT_EQ(pick(363, 3072, 768), "nearest_m:m1024");
  EXPECT_EQ(pick(2048, 3072, 768), "nearest_m:m1024");  // exactly between 1024 and 4096: the smaller M
  EXPECT_EQ(pick(1, 3072, 768), "nearest_m:m128");
  EXPECT_EQ(pick(1 << 20, 3072, 768), "nearest_m:m4096");
  EXPECT_EQ(pick(4096, 3072, 769), "nearest_shape:m4096");
  EXPECT_EQ(pick(4096, 4095, 4097), "nearest_shape:square");
  EXPECT_EQ(pick(64, 64, 64), "nearest_shape:m128");  // f16's and bias_relu's 64³ never match
  EXPECT_EQ(pick(4096, 4096, 4096, {"NVIDIA H200", 114}), "none:-");
  EXPECT_EQ(pick(4096, 4096, 4096, {"NVIDIA H100", 132}), "none:-");
  EXPECT_EQ(tuning::choose({}, kH200, "bf16", "bias_gelu", 1, 1, 1).match, Match::none);
}

using coalesce::report::fixture_db::Copy;
using coalesce::report::fixture_db::fixture;

/// The fastest ok coalesce row of a problem, by SQL, for the export to agree with.
std::string fastest_config(const db::Database& db, int n) {
  auto rs = db.query("SELECT c.name FROM measurements x JOIN configs c ON c.id = x.config_id JOIN problems p ON "
                     "p.id = x.problem_id WHERE x.method = 'coalesce' AND x.status = 'ok' AND p.m = ?1 AND p.n = ?1 "
                     "ORDER BY x.median_ms, x.id LIMIT 1",
                     {db::Value(static_cast<std::int64_t>(n))});
  return db::as_text(rs.rows.at(0)[0]);
}

TEST(Export, TakesTheFastestCheckedConfigOfEachProblem) {
  auto db = db::Database::open(fixture("fixture.db"), db::Mode::read_only);
  const std::vector<Entry> entries = report::tuning_entries(db, {});
  ASSERT_EQ(entries.size(), 2u);
  for (const Entry& e : entries) {
    EXPECT_EQ(e.gpu_model, "NVIDIA H200");
    EXPECT_EQ(e.sm_count, 132);
    EXPECT_EQ(e.config_name, fastest_config(db, static_cast<int>(e.m))) << e.m;
    EXPECT_GT(e.median_us, 0);
  }
  EXPECT_EQ(entries[0].m, 1024);
  EXPECT_DOUBLE_EQ(entries[0].median_us, 68.8);  // run 2's row (0.0688 ms), faster than run 1's 0.0703
  EXPECT_EQ(entries[0].run, 2);

  report::Filters only_4096;
  only_4096.shapes.push_back({4096, 4096, 4096});
  const auto filtered = report::tuning_entries(db, only_4096);
  ASSERT_EQ(filtered.size(), 1u);
  EXPECT_EQ(filtered[0].m, 4096);

  // The text reads back as the entries.
  std::istringstream text(report::export_tuning_table(db, {}, "fixture.db"));
  const auto back = tuning::read_table(text, "export");
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].config_name, entries[0].config_name);
}

// A faster row of a less preferred protocol (rested) is not the table's: the compiler and the
// report take the most preferred protocol measured first.
TEST(Export, TakesTheMostPreferredProtocolNotTheFastestRow) {
  Copy rested("fixture.db",
              "UPDATE runs SET harness_json = json_set(harness_json, '$.sample_gap_ms', 5) WHERE id = 2;"
              "UPDATE measurements SET protocol = 'flush_rested' WHERE run_id = 2;");
  auto db = db::Database::open(rested.path(), db::Mode::read_only);
  const auto entries = report::tuning_entries(db, {});
  ASSERT_FALSE(entries.empty());
  EXPECT_EQ(entries[0].m, 1024);
  EXPECT_EQ(entries[0].run, 1);
  EXPECT_DOUBLE_EQ(entries[0].median_us, 70.3);
  EXPECT_EQ(entries[0].protocol, "flush_b2b");
}

}  // namespace
}  // namespace coalesce
