// NVRTC compilation without a GPU: ptxas' report parsed from real logs, the content-addressed
// cache (hits, misses, key sensitivity, atomic entries), and the simt kernel compiled for sm_90.
#include "tuner/jit.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "Coalesce/Emit.h"
#include "kernels/simt/family.hpp"
#include "tuner/space.hpp"

namespace coalesce::tuner {
namespace {

namespace fs = std::filesystem;

// Captured from NVRTC 13.0 (`--gpu-architecture=sm_90 -Xptxas=-v`) compiling a kernel with a
// 64-float local array: once as written, once under --maxrregcount=32 to force spills.
constexpr const char* kLogNoSpill =
    "ptxas info    : 17 bytes gmem\n"
    "ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
    "ptxas info    : Function properties for k\n"
    "ptxas         .     256 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 80 registers, used 1 barriers, 256 bytes cumulative stack size, 1024 bytes smem\n"
    "ptxas info    : Compile time = 236.218 ms\n";
constexpr const char* kLogSpill =
    "ptxas info    : Overriding maximum register limit 256 for 'k' with  32 of maxrregcount option\n"
    "ptxas info    : 17 bytes gmem\n"
    "ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
    "ptxas info    : Function properties for k\n"
    "ptxas         .     656 bytes stack frame, 864 bytes spill stores, 968 bytes spill loads\n"
    "ptxas info    : Used 32 registers, used 1 barriers, 656 bytes cumulative stack size, 1024 bytes smem\n"
    "ptxas info    : Compile time = 321.698 ms\n";

TEST(PtxasReport, ParsesRegistersStackAndSharedMemory) {
  auto r = parse_ptxas_report(kLogNoSpill, "k");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->registers, 80);
  EXPECT_EQ(r->stack_bytes, 256);
  EXPECT_EQ(r->spill_store_bytes, 0);
  EXPECT_EQ(r->spill_load_bytes, 0);
  EXPECT_EQ(r->smem_bytes, 1024);
  EXPECT_FALSE(r->spills());
}

TEST(PtxasReport, ParsesSpills) {
  auto r = parse_ptxas_report(kLogSpill, "k");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->registers, 32);
  EXPECT_EQ(r->spill_store_bytes, 864);
  EXPECT_EQ(r->spill_load_bytes, 968);
  EXPECT_TRUE(r->spills());
}

TEST(PtxasReport, PicksTheNamedEntryAmongSeveral) {
  std::string two = std::string(kLogSpill) + kLogNoSpill;
  // Rename the first report's entry so the log holds entries 'first' and 'k'.
  for (std::size_t at; (at = two.find("'k'")) != std::string::npos && at < two.find("Compile time");)
    two.replace(at, 3, "'first'");
  two.replace(two.find("properties for k"), 16, "properties for first");
  auto first = parse_ptxas_report(two, "first");
  auto second = parse_ptxas_report(two, "k");
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->registers, 32);
  EXPECT_EQ(second->registers, 80);
}

TEST(PtxasReport, AbsentOrTruncatedReportIsNullopt) {
  EXPECT_FALSE(parse_ptxas_report(kLogNoSpill, "other"));
  EXPECT_FALSE(parse_ptxas_report("", "k"));
  std::string truncated(kLogNoSpill);
  truncated.resize(truncated.find("ptxas info    : Used"));
  EXPECT_FALSE(parse_ptxas_report(truncated, "k"));
}

TEST(NvrtcOptions, CompileForTheArchWithPtxasReportAndExactMath) {
  auto o = nvrtc_options("sm_90");
  auto has = [&](const std::string& s) { return std::find(o.begin(), o.end(), s) != o.end(); };
  EXPECT_TRUE(has("--gpu-architecture=sm_90"));
  EXPECT_TRUE(has("-Xptxas=-v"));
  EXPECT_TRUE(has("-std=c++17"));
  EXPECT_FALSE(has("--use_fast_math"));
}

// Every family's template and what it includes travel in the binary; host-only headers do not.
TEST(KernelHeaders, TheFamilyTemplatesAndTheirIncludesAreEmbedded) {
  std::set<std::string> names;
  for (const KernelHeader& h : kernel_headers()) {
    names.insert(h.name);
    EXPECT_GT(std::string(h.text).size(), 100u) << h.name;
  }
  for (const Family* f : families()) EXPECT_TRUE(names.count(std::string(f->kernel_header()))) << f->name();
  EXPECT_TRUE(names.count("kernels/simt/gemm.cuh"));
  EXPECT_TRUE(names.count("kernels/simt/config.hpp"));
  EXPECT_TRUE(names.count("kernels/core/epilogue.cuh"));
  EXPECT_TRUE(names.count("kernels/core/limits.hpp"));
  EXPECT_FALSE(names.count("kernels/core/family.hpp"));
}

// A fresh, empty cache directory per test.
class JitCache : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("coalesce-jit-test-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

constexpr const char* kSmallKernel =
    "#include \"kernels/core/epilogue.cuh\"\n"
    "extern \"C\" __global__ void small(float* x, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) x[i] = coalesce::gelu_erf(x[i]);\n"
    "}\n";

TEST_F(JitCache, MissCompilesThenHitReadsTheSameEntry) {
  Jit jit(dir_, "sm_90");
  CompileResult first = jit.compile("small", kSmallKernel);
  ASSERT_TRUE(first.ok) << first.log;
  EXPECT_FALSE(first.cache_hit);
  ASSERT_TRUE(first.ptxas);
  EXPECT_GT(first.ptxas->registers, 0);
  EXPECT_GT(first.compile_seconds, 0.0);
  EXPECT_TRUE(fs::exists(first.cubin_path));
  EXPECT_GT(fs::file_size(first.cubin_path), 0u);

  CompileResult second = Jit(dir_, "sm_90").compile("small", kSmallKernel);
  ASSERT_TRUE(second.ok);
  EXPECT_TRUE(second.cache_hit);
  EXPECT_EQ(second.key, first.key);
  EXPECT_EQ(second.cubin_path, first.cubin_path);
  EXPECT_EQ(second.ptxas->registers, first.ptxas->registers);
  EXPECT_EQ(second.compile_seconds, first.compile_seconds);
  // No temporary files are left behind.
  for (const auto& e : fs::recursive_directory_iterator(dir_))
    EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << e.path();
}

TEST_F(JitCache, KeyChangesWithSourceAndArchButNotWithDirectory) {
  Jit a(dir_, "sm_90");
  std::string changed = std::string(kSmallKernel) + "// a comment is still a different source\n";
  EXPECT_NE(a.cache_key(kSmallKernel), a.cache_key(changed));
  EXPECT_NE(a.cache_key(kSmallKernel), Jit(dir_, "sm_90a").cache_key(kSmallKernel));
  EXPECT_NE(a.cache_key(kSmallKernel), Jit(dir_, "sm_80").cache_key(kSmallKernel));
  EXPECT_EQ(a.cache_key(kSmallKernel), Jit(dir_ / "elsewhere", "sm_90").cache_key(kSmallKernel));
  EXPECT_EQ(Jit::source_hash(kSmallKernel), Jit::source_hash(kSmallKernel));
  EXPECT_NE(Jit::source_hash(kSmallKernel), Jit::source_hash(changed));
  EXPECT_EQ(Jit::source_hash(kSmallKernel).size(), 64u);
}

TEST_F(JitCache, ACompileErrorIsAResultWithTheLogAndIsCached) {
  Jit jit(dir_, "sm_90");
  const std::string bad = "extern \"C\" __global__ void broken(float* x) { x[0] = not_declared; }\n";
  CompileResult r = jit.compile("broken", bad);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.log.find("not_declared"), std::string::npos) << r.log;
  CompileResult again = jit.compile("broken", bad);
  EXPECT_FALSE(again.ok);
  EXPECT_TRUE(again.cache_hit);
  EXPECT_EQ(again.log, r.log);
}

TEST_F(JitCache, AMissingEntryFunctionIsAFailure) {
  CompileResult r = Jit(dir_, "sm_90").compile("absent", kSmallKernel);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.log.find("absent"), std::string::npos);
}

TEST_F(JitCache, ACorruptEntryIsRecompiled) {
  Jit jit(dir_, "sm_90");
  CompileResult first = jit.compile("small", kSmallKernel);
  ASSERT_TRUE(first.ok);
  fs::path meta = first.cubin_path;
  meta.replace_extension(".json");
  std::ofstream(meta, std::ios::trunc) << "{not json";
  CompileResult again = jit.compile("small", kSmallKernel);
  EXPECT_TRUE(again.ok);
  EXPECT_FALSE(again.cache_hit);
}

// A candidate as the sweep builds it: emitted by the compiler (dialect -> fuse -> apply config
// -> CUDA) and compiled for the H200's architecture. A 128x128 tile with 8x8 thread tiles fits
// without spilling, and ptxas' registers pass the device rule.
TEST_F(JitCache, AnEmittedKernelCompilesForSm90WithoutSpills) {
  const SimtConfig c{.bm = 128, .bn = 128, .bk = 16, .wm = 64, .wn = 32, .tm = 8, .tn = 8, .stages = 3, .vec = 4,
                     .group_m = 8, .min_blocks = 1};
  const Problem p{4096, 4096, 4096, Dtype::f32, Epilogue::bias_gelu};
  const compiler::EmittedKernel k = compiler::emit_fused_kernel(p, from_simt(c), Target{9, 0, true, {}});
  EXPECT_EQ(k.symbol, config_name(from_simt(c), Dtype::f32, Epilogue::bias_gelu));
  CompileResult r = Jit(dir_, "sm_90").compile(k.symbol, k.source);
  ASSERT_TRUE(r.ok) << r.log;
  ASSERT_TRUE(r.ptxas);
  EXPECT_FALSE(r.ptxas->spills()) << r.log;
  EXPECT_GT(r.ptxas->registers, c.tm * c.tn);  // the accumulators alone need TM*TN
  EXPECT_TRUE(compiled_verdict(simt_family(), from_simt(c), DeviceLimits{}, r.ptxas->registers, r.ptxas->spills()).ok());
}

// Forcing a register budget below the accumulators makes ptxas spill, and the post-compile
// rule prunes it as `registers`.
TEST(CompiledVerdict, SpillsPruneAndRealRegistersAreChecked) {
  const SimtConfig c{.bm = 128, .bn = 128, .bk = 16, .wm = 64, .wn = 32, .tm = 8, .tn = 8, .stages = 3, .vec = 4,
                     .group_m = 8, .min_blocks = 1};
  const Family& simt = simt_family();
  EXPECT_EQ(compiled_verdict(simt, from_simt(c), DeviceLimits{}, 128, /*spills=*/true).violation, Violation::registers);
  EXPECT_TRUE(compiled_verdict(simt, from_simt(c), DeviceLimits{}, 168, false).ok());
  DeviceLimits few_registers;
  few_registers.regs_per_sm = 32768;  // 168 registers x 256 threads no longer fit
  EXPECT_FALSE(compiled_verdict(simt, from_simt(c), few_registers, 168, false).ok());
}

}  // namespace
}  // namespace coalesce::tuner
