// The tuning table's format (compiler/runtime/tuning_table.hpp, docs/compiler.md "The tuning
// table"): what loads, how rows are ranked, and each refusal naming its line.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "compiler/runtime/tuning_table.hpp"

namespace coalesce::runtime {
namespace {

const std::string kSimt = "simt_f32_bm128_bn128_bk16_wm64_wn32_tm8_tn8_s3_v4_g8_o2_bias_gelu";
const std::string kSimtV2 = "simt_f32_bm128_bn128_bk16_wm64_wn32_tm8_tn8_s3_v2_g8_o2_bias_gelu";
const std::string kHeader = "gpu_model\tdtype\tepilogue\tm\tn\tk\tconfig_name\tmedian_us\n";

std::string row(const std::string& gpu, const std::string& config, const std::string& median,
                const std::string& extents = "4096\t4096\t4096") {
  return gpu + "\tf32\tbias_gelu\t" + extents + "\t" + config + "\t" + median + "\n";
}

// The error of parsing `text`, or "" when it loads.
std::string refusal(const std::string& text) {
  try {
    parse_tuning_table(text, "t.tsv");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(TuningTable, LoadsRowsAndRanksThemByMedianForOneGpuAndProblem) {
  const TuningTable t = parse_tuning_table("# exported\n\n" + kHeader + row("NVIDIA H200", kSimt, "2991.5") +
                                               row("NVIDIA H200", kSimtV2, "2500") +
                                               row("NVIDIA H100 80GB HBM3", kSimt, "10") +
                                               row("NVIDIA H200", kSimt, "1", "4096\t4096\t4095"),
                                           "t.tsv");
  ASSERT_EQ(t.rows.size(), 4u);
  const auto c = t.candidates("NVIDIA H200", Problem{4096, 4096, 4096, Dtype::f32, Epilogue::bias_gelu});
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0]->config_name, kSimtV2);
  EXPECT_EQ(c[1]->config_name, kSimt);
  EXPECT_TRUE(t.candidates("NVIDIA H200", Problem{4096, 4096, 4096, Dtype::f32, Epilogue::bias}).empty());
}

TEST(TuningTable, ColumnsMayComeInAnyOrderWithMoreBeside) {
  const TuningTable t = parse_tuning_table(
      "config_name\tmedian_us\trun\tgpu_model\tdtype\tepilogue\tm\tn\tk\r\n" + kSimt + "\t3.5\t12\tNVIDIA H200\tf32\tbias_gelu\t64\t32\t16\r\n",
      "t.tsv");
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_EQ(t.rows[0].problem, (Problem{64, 32, 16, Dtype::f32, Epilogue::bias_gelu}));
  EXPECT_DOUBLE_EQ(t.rows[0].median_us, 3.5);
}

TEST(TuningTable, RefusesEachMalformedFieldNamingItsLine) {
  EXPECT_EQ(refusal("# nothing\n"), "t.tsv: the tuning table has no header line");
  EXPECT_NE(refusal("gpu_model\tdtype\n").find("t.tsv:1: the header has no column 'epilogue'"), std::string::npos);
  EXPECT_NE(refusal(kHeader + "NVIDIA H200\tf32\n").find("t.tsv:2: the row has 2 fields"), std::string::npos);
  EXPECT_NE(refusal(kHeader + "NVIDIA H200\tf64\tbias_gelu\t1\t1\t1\t" + kSimt + "\t1\n").find("t.tsv:2: dtype 'f64'"),
            std::string::npos);
  EXPECT_NE(refusal(kHeader + "NVIDIA H200\tf32\tswish\t1\t1\t1\t" + kSimt + "\t1\n").find("epilogue 'swish'"),
            std::string::npos);
  EXPECT_NE(refusal(kHeader + row("NVIDIA H200", kSimt, "1", "0\t1\t1")).find("m '0' is not an integer"),
            std::string::npos);
  EXPECT_NE(refusal(kHeader + row("NVIDIA H200", kSimt, "1", "1\t1x\t1")).find("n '1x'"), std::string::npos);
  EXPECT_NE(refusal(kHeader + row("NVIDIA H200", kSimt, "1", "1\t1\t1048577")).find("k '1048577'"),
            std::string::npos);
  EXPECT_NE(refusal(kHeader + row("NVIDIA H200", "simt_nonsense", "1")).find("'simt_nonsense' is not a config name"),
            std::string::npos);
  // A config named for another epilogue than the row's.
  EXPECT_NE(refusal(kHeader + row("NVIDIA H200", kSimt.substr(0, kSimt.size() - 5) + "_relu", "1"))
                .find("is not for the row's dtype f32 and epilogue bias_gelu"),
            std::string::npos);
  EXPECT_NE(refusal(kHeader + row("NVIDIA H200", kSimt, "-1")).find("median_us '-1'"), std::string::npos);
  EXPECT_NE(refusal(kHeader + row("NVIDIA H200", kSimt, "fast")).find("median_us 'fast'"), std::string::npos);
  EXPECT_NE(refusal(kHeader + row("", kSimt, "1")).find("gpu_model is empty"), std::string::npos);
}

}  // namespace
}  // namespace coalesce::runtime
