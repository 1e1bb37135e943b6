// Workload files (tuner/workload.hpp): what a good file holds, the defaults of empty fields, one
// problem per distinct (M, N, K, dtype, epilogue), and one sentence naming FILE:LINE for each
// kind of bad line.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tuner/workload.hpp"

namespace coalesce {
namespace {

Workload parse(const std::string& text) {
  std::istringstream in(text);
  return parse_workload(in, "w.csv");
}

/// The message of the WorkloadError that parsing `text` throws ("" when it parses).
std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const WorkloadError& e) {
    return e.what();
  }
  return "";
}

TEST(Workload, ReadsLinesCommentsHeaderAndDefaults) {
  const Workload w = parse(
      "# a comment line\n"
      "\n"
      "m,n,k,dtype,epilogue,name,count\n"
      "128,2304,768,,bias,attn.c_attn,12\r\n"
      "  128 , 768 , 3072 , bf16 , , mlp.c_proj  # a trailing comment\n"
      "1,3072,768,f16,bias_gelu\n"
      "\t\n"
      "16,16,16,,,,\n");
  EXPECT_EQ(w.path, "w.csv");
  ASSERT_EQ(w.lines.size(), 4u);
  const WorkloadLine& a = w.lines[0];
  EXPECT_EQ(a.line, 4);
  EXPECT_EQ(a.m, 128);
  EXPECT_EQ(a.n, 2304);
  EXPECT_EQ(a.k, 768);
  EXPECT_FALSE(a.dtype);
  EXPECT_EQ(a.epilogue, Epilogue::bias);
  EXPECT_EQ(a.name, "attn.c_attn");
  EXPECT_EQ(a.count, 12);
  const WorkloadLine& b = w.lines[1];
  EXPECT_EQ(b.line, 5);
  EXPECT_EQ(b.dtype, Dtype::bf16);
  EXPECT_FALSE(b.epilogue);
  EXPECT_EQ(b.name, "mlp.c_proj");
  EXPECT_EQ(b.count, 1);  // no count field
  EXPECT_EQ(w.lines[2].name, "");
  EXPECT_EQ(w.lines[2].epilogue, Epilogue::bias_gelu);
  EXPECT_EQ(w.lines[3].count, 1);  // an empty count field

  // Empty fields take the defaults; explicit ones stay.
  const Problem p = a.problem(Dtype::f16, Epilogue::none);
  EXPECT_EQ(p, (Problem{128, 2304, 768, Dtype::f16, Epilogue::bias}));
  EXPECT_EQ(b.problem(Dtype::f32, Epilogue::bias_relu), (Problem{128, 768, 3072, Dtype::bf16, Epilogue::bias_relu}));
}

TEST(Workload, AHeaderMayBeShortenedToTheFieldsGiven) {
  EXPECT_EQ(parse("m,n,k,dtype,epilogue\n1,2,3,,\n").lines.size(), 1u);
  EXPECT_EQ(parse("m, n, k, dtype, epilogue, name\n1,2,3,,,x\n").lines.size(), 1u);
}

TEST(Workload, AProblemOnSeveralLinesIsOneProblem) {
  const Workload w = parse(
      "128,768,768,,bias,attention.self.query/key/value,36\n"
      "128,768,768,,bias,attention.output.dense,12\n"
      "128,3072,768,,bias_gelu,intermediate.dense,12\n"
      "128,768,768,f32,bias,the same as the first when --dtype is f32\n"
      "128,768,768,bf16,bias,not the same\n");
  const std::vector<Problem> f32 = w.problems(Dtype::f32, Epilogue::bias_gelu);
  ASSERT_EQ(f32.size(), 3u);
  EXPECT_EQ(f32[0], (Problem{128, 768, 768, Dtype::f32, Epilogue::bias}));
  EXPECT_EQ(f32[1], (Problem{128, 3072, 768, Dtype::f32, Epilogue::bias_gelu}));
  EXPECT_EQ(f32[2], (Problem{128, 768, 768, Dtype::bf16, Epilogue::bias}));
  // With --dtype bf16 the fourth line is the distinct one.
  const std::vector<Problem> bf16 = w.problems(Dtype::bf16, Epilogue::bias_gelu);
  ASSERT_EQ(bf16.size(), 3u);
  EXPECT_EQ(bf16[2], (Problem{128, 768, 768, Dtype::f32, Epilogue::bias}));

  std::vector<Problem> list = {Problem{1, 2, 3, Dtype::f32, Epilogue::bias}};
  add_unique(list, Problem{1, 2, 3, Dtype::f32, Epilogue::bias});
  add_unique(list, Problem{1, 2, 3, Dtype::f32, Epilogue::none});
  EXPECT_EQ(list.size(), 2u);
}

TEST(Workload, ExtentsAreValidatedAsAShapesSides) {
  const std::string max = std::to_string(kMaxExtent);
  EXPECT_EQ(parse(max + ",1,1,,\n").lines[0].m, kMaxExtent);
  const std::string expected = ": expected a whole number from 1 to " + max + ", as a --shape's side";
  EXPECT_EQ(error_of("0,1,1,,\n"), "w.csv:1: m '0'" + expected);
  EXPECT_EQ(error_of("# header comment\n1,-5,1,,\n"), "w.csv:2: n '-5'" + expected);
  EXPECT_EQ(error_of("1,1,abc,,\n"), "w.csv:1: k 'abc'" + expected);
  EXPECT_EQ(error_of("4x4x4,1,1,,\n"), "w.csv:1: m '4x4x4'" + expected);  // a field is one side
  EXPECT_EQ(error_of("1,1,1,,\n" + std::to_string(kMaxExtent + 1) + ",1,1,,\n"),
            "w.csv:2: m '" + std::to_string(kMaxExtent + 1) + "'" + expected);
  EXPECT_EQ(error_of("1,1,99999999999999999999,,\n"), "w.csv:1: k '99999999999999999999'" + expected);
  EXPECT_EQ(error_of(",1,1,,\n"), "w.csv:1: m is empty" + expected);
  EXPECT_EQ(error_of("1.5,1,1,,\n"), "w.csv:1: m '1.5'" + expected);
}

TEST(Workload, EachBadFieldIsOneSentenceNamingTheLine) {
  EXPECT_EQ(error_of("1,2,3\n"), "w.csv:1: expected m,n,k,dtype,epilogue[,name][,count], found 3 fields");
  EXPECT_EQ(error_of("1,2,3,,,a,1,extra\n"), "w.csv:1: expected m,n,k,dtype,epilogue[,name][,count], found 8 fields");
  EXPECT_EQ(error_of("hello\n"), "w.csv:1: expected m,n,k,dtype,epilogue[,name][,count], found 1 field");
  EXPECT_EQ(error_of("1,2,3,f64,bias\n"),
            "w.csv:1: dtype 'f64' is not a dtype (f32, tf32, bf16, f16; empty: the tool's --dtype)");
  EXPECT_EQ(error_of("1,2,3,,swish\n"),
            "w.csv:1: epilogue 'swish' is not an epilogue (none, bias, bias_relu, bias_gelu, bias_gelu_tanh, bias_silu, "
            "bias_gelu_residual, swiglu, geglu; empty: the tool's "
            "--epilogue)");
  const std::string count = ": expected a whole number from 1 to 2147483647 (how many times the workload runs the "
                            "problem; empty: 1)";
  EXPECT_EQ(error_of("1,2,3,,,x,0\n"), "w.csv:1: count '0'" + count);
  EXPECT_EQ(error_of("1,2,3,,,x,-2\n"), "w.csv:1: count '-2'" + count);
  EXPECT_EQ(error_of("1,2,3,,,x,2.5\n"), "w.csv:1: count '2.5'" + count);
  EXPECT_EQ(error_of("1,2,3,,,x,2147483648\n"), "w.csv:1: count '2147483648'" + count);
  EXPECT_EQ(parse("1,2,3,,,x,2147483647\n").lines[0].count, kMaxWorkloadCount);
}

// A spreadsheet's "CSV UTF-8" starts with a byte-order mark: read past it, header or not. UTF-16
// text is refused in one sentence that says so (issue 45: "m '\xEF\xBB\xBFm'" before).
TEST(Workload, AUtf8ByteOrderMarkIsReadPastAndUtf16IsRefused) {
  const Workload with_header = parse("\xEF\xBB\xBFm,n,k,dtype,epilogue\n64,128,256,,\n");
  ASSERT_EQ(with_header.lines.size(), 1u);
  EXPECT_EQ(with_header.lines[0].m, 64);
  const Workload bare = parse("\xEF\xBB\xBF" "64,128,256,,\n");
  ASSERT_EQ(bare.lines.size(), 1u);
  EXPECT_EQ(bare.lines[0].m, 64);
  EXPECT_EQ(error_of(std::string("\xFF\xFEm\0,\0n\0", 8)), "w.csv: the file is UTF-16 text; save it as UTF-8 (or ASCII) CSV");
  EXPECT_EQ(error_of(std::string("\xFE\xFF\0m\0,", 6)), "w.csv: the file is UTF-16 text; save it as UTF-8 (or ASCII) CSV");
}

TEST(Workload, TheHeaderIsExactAndOnlyFirst) {
  EXPECT_EQ(error_of("m,n,k,type,epilogue\n"),
            "w.csv:1: a header line reads m,n,k,dtype,epilogue,name,count (or its first five or six fields)");
  EXPECT_EQ(error_of("m,n,k\n"),
            "w.csv:1: a header line reads m,n,k,dtype,epilogue,name,count (or its first five or six fields)");
  EXPECT_EQ(error_of("1,2,3,,\nm,n,k,dtype,epilogue,name,count\n"),
            "w.csv:2: the header m,n,k,dtype,epilogue,name,count may only be the first line");
}

TEST(Workload, AFileWithoutProblemsIsRefused) {
  const std::string none = "w.csv: no problem in it (each line m,n,k,dtype,epilogue[,name][,count]; '#' starts a comment)";
  EXPECT_EQ(error_of(""), none);
  EXPECT_EQ(error_of("# only comments\n\n"), none);
  EXPECT_EQ(error_of("m,n,k,dtype,epilogue,name,count\n"), none);
}

TEST(Workload, ReadsAFileAndRefusesOneItCannotRead) {
  const auto dir = std::filesystem::temp_directory_path() / ("coalesce-workload-test-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "w.csv").string();
  std::ofstream(path) << "4,5,6,,bias,x,3\n";
  const Workload w = read_workload(path);
  EXPECT_EQ(w.path, path);
  ASSERT_EQ(w.lines.size(), 1u);
  EXPECT_EQ(w.lines[0].count, 3);
  try {
    read_workload((dir / "missing.csv").string());
    ADD_FAILURE() << "a missing file was read";
  } catch (const WorkloadError& e) {
    EXPECT_EQ(std::string(e.what()), (dir / "missing.csv").string() + ": cannot read it (No such file or directory)");
  }
  try {
    read_workload(dir.string());
    ADD_FAILURE() << "a directory was read";
  } catch (const WorkloadError& e) {
    EXPECT_EQ(std::string(e.what()), dir.string() + ": cannot read it (a directory)");
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace coalesce
