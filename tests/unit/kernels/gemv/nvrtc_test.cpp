// The gemv kernel compiles under NVRTC, as the tuner compiles it, for sm_80 and sm_90 in every
// dtype without spills and within its __launch_bounds__ register cap: every built-in config with
// every epilogue, a seeded draw of 12 legal configs of the tuner's space per dtype and
// architecture at M = 1 (split variants included, compiled as kernel_config() maps them, as the
// sweep does), and every legal unsplit config of MR above 8 rows at M = 32 (issue 12: MR 16, and
// 32 with A staged in shared memory, where the register model is closest to the cap), every
// unit emitted by the compiler (emit_fused_kernel). Uses the tuner's JIT (embedded headers, the
// cubin's figures) with a fresh cache. No GPU needed.
//
// Prints ptxas' registers beside the family's register model for the problem's dtype for every
// built-in config and every config of MR above 8.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "Coalesce/Emit.h"
#include "kernels/core/epilogues.hpp"
#include "kernels/gemv/builtin.hpp"
#include "kernels/gemv/family.hpp"
#include "tuner/jit.hpp"
#include "tuner/space.hpp"

namespace coalesce {
namespace {

namespace fs = std::filesystem;

DeviceLimits a100_limits() {
  DeviceLimits d;
  d.smem_per_block_optin = 166912;
  d.smem_per_sm = 167936;
  return d;
}

struct Case {
  Target target;
  Problem problem;
  Config config;
  bool builtin;
};

constexpr int kDrawn = 12;
/// The legal unsplit configs of MR above 8 at M = 32 over both targets and every dtype: per
/// target 16 of f32 and of tf32 (MR 16: 12; MR 32: 4), 12 of bf16 and of f16 (MR 16; MR 32's
/// 8 bf16 columns a lane do not fit); on the A100 the same.
constexpr std::size_t kTallConfigs = 2 * (16 + 16 + 12 + 12);

// Every registry epilogue the compiler emits a gemv kernel for: the built-ins compile with each,
// the registry's newer activations, the residual and the gated pair included.
const std::vector<Epilogue>& emitted_epilogues() {
  static const std::vector<Epilogue> all = [] {
    std::vector<Epilogue> out;
    for (Epilogue e : all_epilogues())
      if (supports_epilogue(gemv_family(), e).ok()) out.push_back(e);
    return out;
  }();
  return all;
}

std::vector<Case> cases() {
  const Family& gemv = gemv_family();
  std::vector<Case> out;
  for (const Target& target : {Target{8, 0, false, a100_limits(), 108}, Target{9, 0, false, DeviceLimits{}, 132}})
    for (Dtype d : all_dtypes()) {
      // The 2-byte built-in loads bf16/f16 elements only.
      for (const Config& c : gemv.builtin_configs({8, 4096, 4096, d}))
        if (gemv.check_problem(c, {8, 4096, 4096, d}).ok())
          for (Epilogue e : emitted_epilogues()) out.push_back({target, {8, 4096, 4096, d, e}, c, true});
      const Problem p{1, 4096, 4096, d, Epilogue::bias_gelu};
      const auto drawn = tuner::select(tuner::enumerate(gemv, p, target), tuner::Strategy::random, kDrawn,
                                       0x67656d76u + static_cast<unsigned>(d));
      for (std::size_t i = 0; i < drawn.size(); ++i)
        out.push_back({target, {1, 4096, 4096, d, all_epilogues()[i % 4]}, drawn[i].config, false});
      const Problem tall{32, 4096, 4096, d, Epilogue::bias_gelu};
      for (const tuner::Candidate& c : tuner::select(tuner::enumerate(gemv, tall, target), tuner::Strategy::exhaustive, -1, 0))
        if (to_gemv(c.config).mr > 8 && split_slices(c.config) == 1) out.push_back({target, tall, c.config, false});
    }
  return out;
}

TEST(GemvNvrtc, BuiltinAndSampledConfigsCompileForSm80AndSm90InEveryDtypeWithoutSpills) {
  const fs::path cache = fs::temp_directory_path() / ("coalesce-gemv-nvrtc-" + std::to_string(getpid()));
  fs::remove_all(cache);
  const tuner::Jit sm80(cache, "sm_80"), sm90(cache, "sm_90");
  const std::vector<Case> all = cases();
  // Every built-in in bf16 and f16, all but the 2-byte one in f32 and tf32.
  ASSERT_EQ(all.size(), 2u * ((4u * gemv_builtin::kCount - 2u) * emitted_epilogues().size() + 4u * kDrawn) + kTallConfigs);
  int split = 0;
  for (const Case& c : all) split += split_slices(c.config) > 1;
  EXPECT_GT(split, 0) << "the draw should hold split-K variants at M = 1";

  struct Outcome {
    std::string name, log;
    bool emitted = false, compiled = false, reported = false, spills = true;
    int registers = 0;
  };
  std::vector<Outcome> outcomes(all.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i; (i = next++) < all.size();) {
      Outcome& o = outcomes[i];
      const Case& c = all[i];
      const Config kernel = kernel_config(c.config);
      o.name = config_name(c.config, c.problem.dtype, c.problem.epilogue) + " on " + c.target.arch();
      compiler::EmittedKernel k;
      try {
        k = compiler::emit_fused_kernel(c.problem, kernel, c.target);
      } catch (const std::exception& e) {
        o.log = e.what();
        continue;
      }
      o.emitted = k.symbol == config_name(kernel, c.problem.dtype, c.problem.epilogue);
      const tuner::Jit& jit = gemv_family().nvrtc_arch(c.target) == "sm_80" ? sm80 : sm90;
      const tuner::CompileResult r = jit.compile(k.symbol, k.source);
      o.compiled = r.ok;
      o.log = r.log;
      if (r.ptxas) {
        o.reported = true;
        o.spills = r.ptxas->spills();
        o.registers = r.ptxas->registers;
      }
    }
  };
  // Two compiles at a time: the development machines have two cores.
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < std::max(1u, std::min(2u, std::thread::hardware_concurrency())); ++t)
    pool.emplace_back(work);
  for (std::thread& t : pool) t.join();
  fs::remove_all(cache);

  for (std::size_t i = 0; i < all.size(); ++i) {
    const Outcome& o = outcomes[i];
    const GemvConfig cfg = to_gemv(all[i].config);
    SCOPED_TRACE(o.name);
    EXPECT_TRUE(o.emitted) << o.log;
    EXPECT_TRUE(o.compiled) << o.log;
    EXPECT_TRUE(o.reported) << o.log;
    EXPECT_FALSE(o.spills) << o.log;
    EXPECT_LE(o.registers, cfg.register_cap());
    if ((all[i].builtin && all[i].problem.epilogue == Epilogue::bias_gelu) || cfg.mr > 8)
      std::printf("%-60s %3d registers (model %3d, cap %3d)\n", o.name.c_str(), o.registers,
                  cfg.predicted_registers(element_bytes(gemm_types(all[i].problem.dtype).b)), cfg.register_cap());
  }
}

// The residual epilogue's kernel (which the compiler cannot emit yet: the dialect has no residual
// operand) from the family's own definition, for sm_80 and sm_90 in every dtype, without spills.
TEST(GemvNvrtc, TheResidualKernelCompilesFromTheFamilysDefinition) {
  const fs::path cache = fs::temp_directory_path() / ("coalesce-gemv-residual-" + std::to_string(getpid()));
  fs::remove_all(cache);
  const Family& gemv = gemv_family();
  for (const char* arch : {"sm_80", "sm_90"}) {
    const tuner::Jit jit(cache, arch);
    for (Dtype d : all_dtypes()) {
      const Config c = gemv.builtin_configs({8, 4096, 4096, d}).front();
      const std::string symbol = config_name(c, d, Epilogue::bias_gelu_residual);
      const std::string source = "#include \"" + std::string(gemv.kernel_header()) + "\"\n" +
                                 gemv.define_kernel(c, d, Epilogue::bias_gelu_residual, symbol) + "\n";
      const tuner::CompileResult r = jit.compile(symbol, source);
      SCOPED_TRACE(symbol + " on " + arch);
      EXPECT_TRUE(r.ok) << r.log;
      ASSERT_TRUE(r.ptxas) << r.log;
      EXPECT_FALSE(r.ptxas->spills()) << r.log;
    }
  }
  fs::remove_all(cache);
}

}  // namespace
}  // namespace coalesce
