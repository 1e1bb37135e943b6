// The benchmark's printers and shape parser, and the fixed simt configs' validity.
#include "harness/bench_rows.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "harness/simt_fixed.hpp"
#include "kernels/simt/family.hpp"

namespace {

using namespace coalesce;

int fields(const std::string& line) { return 1 + static_cast<int>(std::count(line.begin(), line.end(), ',')); }

BenchRow timed_row() {
  BenchRow r{{4096, 4096, 4096, Dtype::f32, Epilogue::bias_gelu}, "coalesce", "simt", "simt_f32_x", {}};
  r.result.status = Status::ok;
  CheckResult c;
  c.errors.rel_frobenius = 2.5e-6;
  c.passed = true;
  r.result.check = c;
  Timing t;
  t.samples_ms = {2.0, 2.0, 2.0};
  t.stats = summarize(t.samples_ms);
  r.result.timing = t;
  return r;
}

TEST(BenchCsv, HeaderIsExactlyTheIssuesOne) {
  EXPECT_STREQ(kBenchCsvHeader,
               "m,n,k,dtype,epilogue,method,family,config,median_ms,min_ms,max_ms,tflops,rel_err,status");
}

TEST(BenchCsv, TimedRowHasEveryField) {
  const BenchRow r = timed_row();
  EXPECT_NEAR(r.tflops(), 2.0 * 4096 * 4096 * 4096 / 2e-3 / 1e12, 1e-9);
  const std::string line = csv_line(r);
  EXPECT_EQ(fields(line), fields(kBenchCsvHeader));
  EXPECT_EQ(line, "4096,4096,4096,f32,bias_gelu,coalesce,simt,simt_f32_x,2,2,2,68.7195,2.5e-06,ok");
}

TEST(BenchCsv, SkippedRowLeavesNumbersEmpty) {
  const BenchRow r = unmeasured_row({8192, 8192, 8192, Dtype::f32, Epilogue::bias_gelu}, "coalesce",
                                    "naive", "naive_f32", Status::skipped, "too slow");
  const std::string line = csv_line(r);
  EXPECT_EQ(fields(line), fields(kBenchCsvHeader));
  EXPECT_EQ(line, "8192,8192,8192,f32,bias_gelu,coalesce,naive,naive_f32,,,,,,skipped");
}

TEST(BenchTable, ShowsPercentOfCublasAndTheBestSimtComparison) {
  BenchRow simt = timed_row();
  BenchRow cublas = timed_row();
  cublas.method = "cublas_gemm";
  cublas.family = "cublas";
  cublas.config = "cublasGemmEx";
  cublas.result.timing->samples_ms = {1.0, 1.0, 1.0};
  cublas.result.timing->stats = summarize(cublas.result.timing->samples_ms);
  const std::string table = format_table({simt, cublas});
  EXPECT_NE(table.find("50.0"), std::string::npos) << table;  // simt at half cuBLAS's rate
  EXPECT_NE(table.find("0.50x cublas_gemm"), std::string::npos) << table;
}

TEST(BenchJson, CarriesEverySample) {
  const nlohmann::json j = timed_row();
  EXPECT_EQ(j.at("timing").at("samples_ms").size(), 3u);
  EXPECT_EQ(j.at("status"), "ok");
  EXPECT_DOUBLE_EQ(j.at("check").at("rel_frobenius").get<double>(), 2.5e-6);
}

TEST(ParseShapes, SquareAndRectangularLists) {
  std::string error;
  const auto p = parse_shapes("512,4096x1024x2048", Epilogue::bias, &error);
  ASSERT_TRUE(p) << error;
  ASSERT_EQ(p->size(), 2u);
  EXPECT_EQ((*p)[0].m, 512);
  EXPECT_EQ((*p)[0].k, 512);
  EXPECT_EQ((*p)[1].m, 4096);
  EXPECT_EQ((*p)[1].n, 1024);
  EXPECT_EQ((*p)[1].k, 2048);
  EXPECT_EQ((*p)[1].epilogue, Epilogue::bias);
}

TEST(ParseShapes, RejectsMalformedItemsWithASentence) {
  for (const char* bad : {"", "12x", "0", "4096x4096", "1x2x3x4", "abc", "512,,1024", "2000000", "-5"}) {
    std::string error;
    EXPECT_FALSE(parse_shapes(bad, Epilogue::none, &error)) << bad;
    EXPECT_NE(error.find("bad shape"), std::string::npos) << bad;
    EXPECT_NE(error.find("from 1 to 1048576"), std::string::npos) << bad;  // the limit is stated
  }
}

TEST(FixedSimt, EveryConfigIsValidOnTheH200AndTheDefaultIsAmongThem) {
  const std::vector<SimtConfig> configs = fixed_simt_configs();
  EXPECT_GE(configs.size(), 5u);
  EXPECT_EQ(fixed_simt_kernels().size(), configs.size() * 4);  // four epilogues each
  for (const SimtConfig& c : configs) {
    const Verdict v = c.check(DeviceLimits{});
    EXPECT_TRUE(v.ok()) << config_name(from_simt(c), Dtype::f32, Epilogue::none) << ": " << v.why;
  }
  for (Epilogue e : {Epilogue::none, Epilogue::bias, Epilogue::bias_relu, Epilogue::bias_gelu})
    EXPECT_NE(find_fixed_simt_kernel(SimtConfig{}, e), nullptr);
  bool any_scalar = false;
  for (const SimtConfig& c : configs) any_scalar |= c.vec == 1;
  EXPECT_TRUE(any_scalar) << "no config takes N % 4 != 0";
}

}  // namespace
