// The cubin reader against real NVRTC cubins for sm_90 (no GPU needed): its figures equal the
// ptxas -v report of the same compile for registers, stack frame and static shared memory, its
// local-memory test agrees with ptxas' spills on simt kernels that do and do not spill, and a
// damaged cubin is one CubinError, never a crash. Where a cuobjdump is found, its
// --dump-resource-usage is compared too.
#include "tuner/cubin_resources.hpp"

#include <gtest/gtest.h>
#include <nvrtc.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "Coalesce/Emit.h"
#include "kernels/simt/family.hpp"
#include "tuner/jit.hpp"

namespace coalesce::tuner {
namespace {

namespace fs = std::filesystem;

struct Compiled {
  std::string cubin;
  std::string log;
};

// NVRTC straight, with extra options (the Jit's cache and retry are not under test here).
Compiled nvrtc(const std::string& source, const std::string& arch, std::vector<std::string> extra = {}) {
  std::vector<const char*> names, texts;
  for (const KernelHeader& k : kernel_headers()) {
    names.push_back(k.name);
    texts.push_back(k.text);
  }
  std::vector<std::string> options = nvrtc_options(arch);
  options.insert(options.end(), extra.begin(), extra.end());
  std::vector<const char*> opts;
  for (const std::string& o : options) opts.push_back(o.c_str());
  nvrtcProgram prog = nullptr;
  EXPECT_EQ(nvrtcCreateProgram(&prog, source.c_str(), "test.cu", static_cast<int>(names.size()), texts.data(),
                               names.data()),
            NVRTC_SUCCESS);
  const nvrtcResult rc = nvrtcCompileProgram(prog, static_cast<int>(opts.size()), opts.data());
  Compiled c;
  std::size_t size = 0;
  nvrtcGetProgramLogSize(prog, &size);
  c.log.assign(size, '\0');
  nvrtcGetProgramLog(prog, c.log.data());
  EXPECT_EQ(rc, NVRTC_SUCCESS) << c.log;
  if (rc == NVRTC_SUCCESS) {
    nvrtcGetCUBINSize(prog, &size);
    c.cubin.assign(size, '\0');
    nvrtcGetCUBIN(prog, c.cubin.data());
  }
  nvrtcDestroyProgram(&prog);
  return c;
}

// Five kernels in one translation unit: nothing in shared memory, 1200 bytes of static shared
// memory, dynamic shared memory only, a local array written at run-time indices (local memory
// that is not a spill), and 64 live accumulators (which spill under --maxrregcount=32).
constexpr const char* kKernels = R"(
extern "C" __global__ void plain(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = erff(x[i]);
}
extern "C" __global__ void with_static(float* x, int n) {
  __shared__ float s[300];
  s[threadIdx.x % 300] = x[threadIdx.x];
  __syncthreads();
  x[threadIdx.x] = s[(threadIdx.x + n) % 300];
}
extern "C" __global__ void with_dynamic(float* x, int n) {
  extern __shared__ float d[];
  d[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  x[threadIdx.x] = d[n];
}
extern "C" __global__ void with_local_array(float* x, int n) {
  float a[64];
  for (int i = 0; i < 64; ++i) a[(i * n) & 63] = x[i];
  x[threadIdx.x] = a[n & 63];
}
extern "C" __global__ void hungry(const float* x, float* y, int n) {
  float acc[64];
#pragma unroll
  for (int j = 0; j < 64; ++j) acc[j] = x[j];
  for (int i = 0; i < n; ++i) {
#pragma unroll
    for (int j = 0; j < 64; ++j) acc[j] = acc[j] * x[i + j] + acc[(j + 1) & 63];
  }
  float s = 0;
#pragma unroll
  for (int j = 0; j < 64; ++j) s += acc[j];
  y[threadIdx.x] = s;
}
)";

// The reader's figures equal ptxas' report in the log of the same compile.
void expect_matches_log(const KernelResources& r, const std::string& log, const std::string& kernel) {
  SCOPED_TRACE(kernel);
  std::optional<PtxasReport> p = parse_ptxas_report(log, kernel);
  ASSERT_TRUE(p) << log;
  EXPECT_EQ(r.registers, p->registers);
  EXPECT_EQ(r.frame_bytes, p->stack_bytes);
  EXPECT_EQ(r.static_smem_bytes(), p->smem_bytes);
  if (p->spills()) EXPECT_TRUE(r.uses_local_memory()) << "ptxas spilled, the cubin shows no local memory";
}

class CubinReader : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { sm90_ = new Compiled(nvrtc(kKernels, "sm_90")); }
  static void TearDownTestSuite() { delete sm90_; }
  static const Compiled& sm90() { return *sm90_; }
  static Compiled* sm90_;
};
Compiled* CubinReader::sm90_ = nullptr;

TEST_F(CubinReader, FiguresEqualPtxasReportForEachKernel) {
  for (const char* k : {"plain", "with_static", "with_dynamic", "with_local_array", "hungry"})
    expect_matches_log(read_kernel_resources(sm90().cubin, k), sm90().log, k);
}

TEST_F(CubinReader, SharedMemoryLessTheReservedBlockIsTheStaticShare) {
  const KernelResources st = read_kernel_resources(sm90().cubin, "with_static");
  EXPECT_EQ(st.static_smem_bytes(), 1200);
  // sm_90 lays the driver's 1 KB per block at the start of the kernel's shared section.
  EXPECT_EQ(st.reserved_smem_bytes, 1024);
  EXPECT_EQ(st.shared_section_bytes, 1200 + 1024);
  EXPECT_EQ(read_kernel_resources(sm90().cubin, "with_dynamic").static_smem_bytes(), 0);
  EXPECT_EQ(read_kernel_resources(sm90().cubin, "plain").static_smem_bytes(), 0);
  // sm_80 cubins hold no reserved block: the section is the static share itself.
  const Compiled sm80 = nvrtc(kKernels, "sm_80");
  const KernelResources st80 = read_kernel_resources(sm80.cubin, "with_static");
  EXPECT_EQ(st80.reserved_smem_bytes, 0);
  EXPECT_EQ(st80.static_smem_bytes(), 1200);
  expect_matches_log(st80, sm80.log, "with_static");
}

TEST_F(CubinReader, ALocalArrayIsLocalMemoryWithoutSpills) {
  const KernelResources r = read_kernel_resources(sm90().cubin, "with_local_array");
  EXPECT_GE(r.frame_bytes, 256);  // 64 floats
  EXPECT_TRUE(r.uses_local_memory());
  const KernelResources plain = read_kernel_resources(sm90().cubin, "plain");
  EXPECT_EQ(plain.frame_bytes, 0);
  EXPECT_EQ(plain.min_stack_bytes, 0);
  EXPECT_EQ(plain.local_bytes, 0);
  EXPECT_FALSE(plain.uses_local_memory());
}

TEST_F(CubinReader, ForcedSpillsShowAsAStackFrame) {
  const KernelResources roomy = read_kernel_resources(sm90().cubin, "hungry");
  EXPECT_FALSE(roomy.uses_local_memory());
  const Compiled c = nvrtc(kKernels, "sm_90", {"--maxrregcount=32"});
  const std::optional<PtxasReport> log = parse_ptxas_report(c.log, "hungry");
  ASSERT_TRUE(log && log->spills()) << c.log;
  const KernelResources r = read_kernel_resources(c.cubin, "hungry");
  EXPECT_EQ(r.registers, 32);
  EXPECT_TRUE(r.uses_local_memory());
  expect_matches_log(r, c.log, "hungry");
}

TEST_F(CubinReader, AMissingKernelIsAnErrorThatNamesIt) {
  try {
    read_kernel_resources(sm90().cubin, "absent");
    FAIL() << "no error for a kernel the cubin lacks";
  } catch (const CubinError& e) {
    EXPECT_NE(std::string(e.what()).find("'absent'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("no such entry"), std::string::npos) << e.what();
  }
}

// Every cut of the file is an error, never a crash or a figure read from beyond the end
// (the nv.info records sit near the front, the section headers at the back).
TEST_F(CubinReader, EveryTruncationIsAnError) {
  const std::string& whole = sm90().cubin;
  ASSERT_GT(whole.size(), 1024u);
  for (std::size_t n = 0; n < whole.size(); n += n < 4096 ? 1 : 61)
    EXPECT_THROW(read_kernel_resources(std::string_view(whole).substr(0, n), "with_static"), CubinError) << n;
}

TEST_F(CubinReader, OtherFilesAreRefused) {
  EXPECT_THROW(read_kernel_resources("", "plain"), CubinError);
  EXPECT_THROW(read_kernel_resources(std::string(4096, 'x'), "plain"), CubinError);
  std::string other_machine = sm90().cubin;
  other_machine[0x12] = 62;  // EM_X86_64
  EXPECT_THROW(read_kernel_resources(other_machine, "plain"), CubinError);
  std::string big_endian = sm90().cubin;
  big_endian[5] = 2;
  EXPECT_THROW(read_kernel_resources(big_endian, "plain"), CubinError);
  std::string bad_headers = sm90().cubin;
  bad_headers[0x28 + 7] = 0x7f;  // e_shoff far beyond the file
  EXPECT_THROW(read_kernel_resources(bad_headers, "plain"), CubinError);
}

// Emitted simt kernels, as the sweep compiles them: a 4x8 thread tile in 256 threads, which fits
// its registers at one block per SM and spills at two (64 registers each; the H200's sweep of
// 4096 pruned it for ptxas' spills, results/coalesce.db run 1). The cubin's local memory says
// "spills" exactly when ptxas' log does, and every figure matches the log.
TEST(CubinReaderSimt, LocalMemoryAgreesWithPtxasSpills) {
  SimtConfig fits{.bm = 64, .bn = 256, .bk = 8, .wm = 32, .wn = 32, .tm = 4, .tn = 8, .stages = 3, .vec = 4,
                  .group_m = 8, .min_blocks = 1};
  // Three blocks of 512 threads leave 42 registers a thread and the kernel spills. The rule refuses
  // that min_blocks (so the compiler would not emit it); the kernel is defined here directly. (Two
  // blocks, 64 registers, spilled with erff's GELU and no longer do with gelu_exact's.)
  SimtConfig spills = fits;
  spills.min_blocks = 3;
  for (const SimtConfig& c : {fits, spills}) {
    const Family& simt = simt_family();
    const std::string symbol = c.min_blocks == 1 ? "fits" : "spills";
    const std::string source = "#include \"" + std::string(simt.kernel_header()) + "\"\n" +
                               simt.define_kernel(from_simt(c), Dtype::f32, Epilogue::bias_gelu, symbol) + "\n";
    const Compiled out = nvrtc(source, "sm_90");
    const KernelResources r = read_kernel_resources(out.cubin, symbol);
    expect_matches_log(r, out.log, symbol);
    const std::optional<PtxasReport> log = parse_ptxas_report(out.log, symbol);
    ASSERT_TRUE(log);
    EXPECT_EQ(r.uses_local_memory(), log->spills()) << symbol << "\n" << out.log;
    EXPECT_EQ(log->spills(), c.min_blocks == 3) << symbol;
    EXPECT_LE(r.registers, c.register_cap());
  }
}

// cuobjdump --dump-resource-usage, where a cuobjdump is found (COALESCE_CUOBJDUMP, else the
// toolkit's bin/): REG, STACK, SHARED and LOCAL of every kernel equal the reader's figures.
std::string cuobjdump() {
  if (const char* v = std::getenv("COALESCE_CUOBJDUMP"); v && *v) return v;
  const fs::path toolkit = fs::path(CUDA_BIN_DIR) / "cuobjdump";
  return fs::exists(toolkit) ? toolkit.string() : "";
}

std::map<std::string, std::map<std::string, int>> resource_usage(const std::string& tool, const fs::path& cubin) {
  std::map<std::string, std::map<std::string, int>> out;
  FILE* pipe = popen(("'" + tool + "' --dump-resource-usage '" + cubin.string() + "' 2>&1").c_str(), "r");
  if (!pipe) return out;
  std::string text;
  char buf[4096];
  for (std::size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) text.append(buf, n);
  pclose(pipe);
  std::istringstream in(text);
  std::string line, function;
  while (std::getline(in, line)) {
    if (auto at = line.find("Function "); at != std::string::npos) {
      function = line.substr(at + 9);
      function = function.substr(0, function.find(':'));
      continue;
    }
    if (function.empty() || line.find("REG:") == std::string::npos) continue;
    std::istringstream fields(line);
    for (std::string f; fields >> f;)
      if (auto colon = f.find(':'); colon != std::string::npos && colon + 1 < f.size())
        out[function][f.substr(0, colon)] = std::atoi(f.c_str() + colon + 1);
    function.clear();
  }
  return out;
}

TEST_F(CubinReader, CuobjdumpReportsTheSameFigures) {
  const std::string tool = cuobjdump();
  if (tool.empty()) {
    // scripts/gpu-test.sh sets COALESCE_REQUIRE_GPU=1 on the GPU host, where nothing may skip.
    if (const char* required = std::getenv("COALESCE_REQUIRE_GPU"); required && std::string(required) == "1")
      FAIL() << "no cuobjdump in " << CUDA_BIN_DIR << " and COALESCE_CUOBJDUMP is not set; COALESCE_REQUIRE_GPU=1";
    GTEST_SKIP() << "no cuobjdump in " << CUDA_BIN_DIR << " and COALESCE_CUOBJDUMP is not set";
  }
  const fs::path file = fs::temp_directory_path() / ("coalesce-cubin-test-" + std::to_string(getpid()) + ".cubin");
  for (const char* arch : {"sm_90", "sm_80"}) {
    SCOPED_TRACE(arch);
    const Compiled c = std::string(arch) == "sm_90" ? sm90() : nvrtc(kKernels, arch);
    std::ofstream(file, std::ios::binary) << c.cubin;
    const auto usage = resource_usage(tool, file);
    ASSERT_EQ(usage.size(), 5u) << "cuobjdump did not list the five kernels";
    for (const auto& [kernel, figures] : usage) {
      SCOPED_TRACE(kernel);
      const KernelResources r = read_kernel_resources(c.cubin, kernel);
      EXPECT_EQ(figures.at("REG"), r.registers);
      EXPECT_EQ(figures.at("STACK"), std::max(r.frame_bytes, r.min_stack_bytes));
      EXPECT_EQ(figures.at("SHARED"), r.shared_section_bytes);
      EXPECT_EQ(figures.at("LOCAL"), r.local_bytes);
    }
  }
  fs::remove(file);
}

}  // namespace
}  // namespace coalesce::tuner
