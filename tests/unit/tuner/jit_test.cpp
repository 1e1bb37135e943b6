// NVRTC compilation without a GPU: ptxas' report parsed from real logs, the content-addressed
// cache (hits, misses, key sensitivity, atomic entries, damaged entries recompiled), figures
// from the cubin when the log is empty, the serialized retry and its gate, and the simt kernel
// compiled for sm_90.
#include "tuner/jit.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

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
  EXPECT_EQ(first.attempts, 1);
  ASSERT_TRUE(first.resources);
  EXPECT_GT(first.resources->registers, 0);
  ASSERT_TRUE(first.ptxas);  // the log came back: its figures agree with the cubin's
  EXPECT_EQ(first.ptxas->registers, first.resources->registers);
  EXPECT_GT(first.compile_seconds, 0.0);
  EXPECT_TRUE(fs::exists(first.cubin_path));
  EXPECT_GT(fs::file_size(first.cubin_path), 0u);

  CompileResult second = Jit(dir_, "sm_90").compile("small", kSmallKernel);
  ASSERT_TRUE(second.ok);
  EXPECT_TRUE(second.cache_hit);
  EXPECT_EQ(second.key, first.key);
  EXPECT_EQ(second.cubin_path, first.cubin_path);
  EXPECT_EQ(second.resources->registers, first.resources->registers);
  EXPECT_EQ(second.compile_seconds, first.compile_seconds);
  EXPECT_EQ(second.attempts, 1);
  // No temporary files are left behind.
  for (const auto& e : fs::recursive_directory_iterator(dir_))
    EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << e.path();
}

// Issue 13: NVRTC succeeded but its log (the ptxas -v report) came back empty. The figures
// come from the cubin, so the compile is whole; spills are 0 since the cubin shows no local
// memory, and the entry is cached as a success.
TEST_F(JitCache, AnEmptyLogStillGivesTheCubinsFigures) {
  CompileResult r = Jit(dir_, "sm_90", JitFaults{.empty_log = true}).compile("small", kSmallKernel);
  ASSERT_TRUE(r.ok) << r.log;
  EXPECT_EQ(r.attempts, 1);
  EXPECT_EQ(r.log, "");
  EXPECT_FALSE(r.ptxas);
  ASSERT_TRUE(r.resources);
  EXPECT_GT(r.resources->registers, 0);
  EXPECT_EQ(r.spill_store_bytes(), 0);
  EXPECT_EQ(r.spill_load_bytes(), 0);
  CompileResult again = Jit(dir_, "sm_90").compile("small", kSmallKernel);
  EXPECT_TRUE(again.ok && again.cache_hit);
}

// Spills are unknown, not 0, when the log is empty and the cubin shows local memory.
TEST_F(JitCache, SpillsAreUnknownWithoutTheLogWhenLocalMemoryIsUsed) {
  const std::string local =
      "extern \"C\" __global__ void local_array(float* x, int n) {\n"
      "  float a[64];\n"
      "  for (int i = 0; i < 64; ++i) a[(i * n) & 63] = x[i];\n"
      "  x[threadIdx.x] = a[n & 63];\n"
      "}\n";
  CompileResult blank = Jit(dir_ / "blank", "sm_90", JitFaults{.empty_log = true}).compile("local_array", local);
  ASSERT_TRUE(blank.ok) << blank.log;
  EXPECT_TRUE(blank.resources->uses_local_memory());
  EXPECT_FALSE(blank.spill_store_bytes());
  CompileResult logged = Jit(dir_ / "logged", "sm_90").compile("local_array", local);
  EXPECT_EQ(logged.spill_store_bytes(), 0);  // ptxas: a local array, not a spill
}

// A first attempt that fails among parallel compiles (here: a cut-off cubin) is retried alone;
// the retry's success is what is cached, with the two attempts recorded.
TEST_F(JitCache, AFailedFirstAttemptIsRetriedAloneAndTheSuccessCached) {
  CompileResult r = Jit(dir_, "sm_90", JitFaults{.first_attempt_fails = true}).compile("small", kSmallKernel);
  ASSERT_TRUE(r.ok) << r.log;
  EXPECT_EQ(r.attempts, 2);
  ASSERT_TRUE(r.resources);
  EXPECT_NE(r.log.find("retry, run alone"), std::string::npos) << r.log;
  EXPECT_NE(r.log.find("cut short"), std::string::npos) << r.log;  // why the first attempt failed
  CompileResult hit = Jit(dir_, "sm_90").compile("small", kSmallKernel);
  EXPECT_TRUE(hit.ok);
  EXPECT_TRUE(hit.cache_hit);
  EXPECT_EQ(hit.attempts, 2);
}

// Many threads, each first attempt failing: every compile ends ok after its retry.
TEST_F(JitCache, RetriesUnderParallelCompilesAllSucceed) {
  const Jit jit(dir_, "sm_90", JitFaults{.first_attempt_fails = true});
  std::vector<CompileResult> results(4);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < results.size(); ++i)
    threads.emplace_back([&, i] {
      results[i] = jit.compile("small", std::string(kSmallKernel) + "// variant " + std::to_string(i) + "\n");
    });
  for (std::thread& t : threads) t.join();
  for (const CompileResult& r : results) {
    EXPECT_TRUE(r.ok) << r.log;
    EXPECT_EQ(r.attempts, 2);
  }
}

// Two devices of one sweep plan the same kernel at once (each through its own Jit): it is
// compiled once, the other request waits and shares the result (a cache hit), so both store the
// same figures; without this ptxas gave one source 242 and 240 registers in two concurrent
// compiles on this machine.
TEST_F(JitCache, ConcurrentRequestsForOneSourceCompileItOnce) {
  std::vector<CompileResult> results(4);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < results.size(); ++i)
    threads.emplace_back([&, i] { results[i] = Jit(dir_, "sm_90").compile("small", kSmallKernel); });
  for (std::thread& t : threads) t.join();
  int fresh = 0;
  for (const CompileResult& r : results) {
    ASSERT_TRUE(r.ok) << r.log;
    fresh += !r.cache_hit;
    EXPECT_EQ(r.key, results[0].key);
    EXPECT_EQ(r.cubin_path, results[0].cubin_path);
    ASSERT_TRUE(r.resources);
    EXPECT_EQ(r.resources->registers, results[0].resources->registers);
  }
  EXPECT_EQ(fresh, 1) << "one compile, the other requests shared it or read the cache";
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

// A real compile error happens again alone, so the failure is cached (with both attempts).
TEST_F(JitCache, ACompileErrorIsRetriedThenCachedWithTheLog) {
  Jit jit(dir_, "sm_90");
  const std::string bad = "extern \"C\" __global__ void broken(float* x) { x[0] = not_declared; }\n";
  CompileResult r = jit.compile("broken", bad);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.attempts, 2);
  EXPECT_NE(r.log.find("not_declared"), std::string::npos) << r.log;
  CompileResult again = jit.compile("broken", bad);
  EXPECT_FALSE(again.ok);
  EXPECT_TRUE(again.cache_hit);
  EXPECT_EQ(again.attempts, 2);
  EXPECT_EQ(again.log, r.log);
}

TEST_F(JitCache, AMissingEntryFunctionIsAFailure) {
  CompileResult r = Jit(dir_, "sm_90").compile("absent", kSmallKernel);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.log.find("'absent'"), std::string::npos) << r.log;
  EXPECT_NE(r.log.find("no such entry function"), std::string::npos) << r.log;
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

// A cubin cut short in the cache (a full disk, a copy interrupted) is compiled afresh, not
// reported as a failure.
TEST_F(JitCache, ATruncatedCubinIsRecompiled) {
  Jit jit(dir_, "sm_90");
  CompileResult first = jit.compile("small", kSmallKernel);
  ASSERT_TRUE(first.ok);
  const auto size = fs::file_size(first.cubin_path);
  fs::resize_file(first.cubin_path, size / 2);
  CompileResult again = jit.compile("small", kSmallKernel);
  ASSERT_TRUE(again.ok) << again.log;
  EXPECT_FALSE(again.cache_hit);
  EXPECT_EQ(again.attempts, 1);
  EXPECT_EQ(fs::file_size(again.cubin_path), size);
}

// The gate lets shared holders overlap, keeps an exclusive holder alone, and lets a waiting
// exclusive holder in before shared holders that arrive after it.
TEST(CompileGate, ARetryRunsAloneAndIsNotStarved) {
  CompileGate gate;
  std::mutex m;
  std::vector<std::string> order;
  auto log = [&](std::string s) {
    std::lock_guard l(m);
    order.push_back(std::move(s));
  };
  std::atomic<int> inside{0};
  std::atomic<bool> overlap{false};
  std::optional<CompileGate::Hold> first(std::in_place, gate, false);  // a compile in flight
  std::thread retry([&] {
    CompileGate::Hold h(gate, true);
    if (inside.fetch_add(1) != 0) overlap = true;
    log("retry");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    inside.fetch_sub(1);
  });
  while (gate.exclusive_waiting() == 0) std::this_thread::yield();
  std::thread later([&] {
    CompileGate::Hold h(gate, false);
    if (inside.load() != 0) overlap = true;
    log("later compile");
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // time for `later` to slip in, were it let
  log("first compile done");
  first.reset();
  retry.join();
  later.join();
  EXPECT_FALSE(overlap);
  EXPECT_EQ(order, (std::vector<std::string>{"first compile done", "retry", "later compile"}));
}

// A candidate as the sweep builds it: emitted by the compiler (dialect -> fuse -> apply config
// -> CUDA) and compiled for the H200's architecture. A 128x128 tile with 8x8 thread tiles fits
// without spilling, and the cubin's registers pass the device rule.
TEST_F(JitCache, AnEmittedKernelCompilesForSm90WithoutSpills) {
  const SimtConfig c{.bm = 128, .bn = 128, .bk = 16, .wm = 64, .wn = 32, .tm = 8, .tn = 8, .stages = 3, .vec = 4,
                     .group_m = 8, .min_blocks = 1};
  const Problem p{4096, 4096, 4096, Dtype::f32, Epilogue::bias_gelu};
  const compiler::EmittedKernel k = compiler::emit_fused_kernel(p, from_simt(c), Target{9, 0, true, {}});
  EXPECT_EQ(k.symbol, config_name(from_simt(c), Dtype::f32, Epilogue::bias_gelu));
  CompileResult r = Jit(dir_, "sm_90").compile(k.symbol, k.source);
  ASSERT_TRUE(r.ok) << r.log;
  ASSERT_TRUE(r.resources);
  EXPECT_FALSE(r.resources->uses_local_memory()) << r.log;
  EXPECT_EQ(r.spill_store_bytes(), 0);
  EXPECT_GT(r.resources->registers, c.tm * c.tn);  // the accumulators alone need TM*TN
  EXPECT_EQ(r.resources->static_smem_bytes(), 0);  // the pipeline's shared memory is dynamic
  EXPECT_TRUE(compiled_verdict(simt_family(), from_simt(c), DeviceLimits{}, *r.resources).ok());
}

// The post-compile rule on the cubin's figures: local memory prunes as `registers`, static
// shared memory counts against the block's limit, and the real registers are checked.
TEST(CompiledVerdict, LocalMemoryPrunesAndRealFiguresAreChecked) {
  const SimtConfig c{.bm = 128, .bn = 128, .bk = 16, .wm = 64, .wn = 32, .tm = 8, .tn = 8, .stages = 3, .vec = 4,
                     .group_m = 8, .min_blocks = 1};
  const KernelResources fits{.registers = 168};
  EXPECT_TRUE(compiled_verdict(simt_family(), from_simt(c), DeviceLimits{}, fits).ok());
  KernelResources spilled{.registers = 128, .frame_bytes = 96, .min_stack_bytes = 96};
  EXPECT_EQ(compiled_verdict(simt_family(), from_simt(c), DeviceLimits{}, spilled).violation, Violation::registers);
  KernelResources local{.registers = 128, .local_bytes = 16};
  EXPECT_EQ(compiled_verdict(simt_family(), from_simt(c), DeviceLimits{}, local).violation, Violation::registers);
  KernelResources big_static{.registers = 168, .shared_section_bytes = 1024 + 200 * 1024, .reserved_smem_bytes = 1024};
  EXPECT_EQ(compiled_verdict(simt_family(), from_simt(c), DeviceLimits{}, big_static).violation, Violation::smem);
  DeviceLimits few_registers;
  few_registers.regs_per_sm = 32768;  // 168 registers x 256 threads no longer fit
  EXPECT_FALSE(compiled_verdict(simt_family(), from_simt(c), few_registers, fits).ok());
}

}  // namespace
}  // namespace coalesce::tuner
