// The mma kernel compiles under NVRTC, as the tuner compiles it, for sm_80 and sm_90 without
// spills and within its __launch_bounds__ register cap: every built-in config with every
// epilogue, the split-K kernel of every built-in tile (at a skinny shape), and a seeded draw of 40 legal sweep configs per dtype and architecture (20 in f32, 3xTF32; the same
// draw coalesce-tune's random strategy makes), every unit emitted by the compiler
// (emit_fused_kernel; tf32 through the dialect's TF32 math mode). Uses the tuner's JIT (embedded
// headers, the cubin's figures) with a fresh cache. No GPU needed.
//
// Prints ptxas' registers beside the family's register model for every built-in config and the
// compile times (docs/kernels.md quotes them).
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
#include "kernels/mma/builtin.hpp"
#include "kernels/mma/family.hpp"
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

// The translation unit the tuner compiles for the case, through the compiler (tf32 as the
// dialect's TF32 math mode on f32 memrefs).
compiler::EmittedKernel unit_for(const Case& c) {
  return compiler::emit_fused_kernel(c.problem, c.config, c.target);
}

// The four epilogues every config compiles with here; the registry's newer ones compile under
// NVRTC in gemv_nvrtc_test and run in every family in tests/gpu/epilogue_families_test.cu.
constexpr Epilogue kEpilogues[] = {Epilogue::none, Epilogue::bias, Epilogue::bias_relu, Epilogue::bias_gelu};

std::vector<Case> cases() {
  const Family& mma = mma_family();
  std::vector<Case> out;
  for (const Target& target : {Target{8, 0, false, a100_limits(), 108}, Target{9, 0, false, DeviceLimits{}, 132}})
    for (Dtype d : {Dtype::bf16, Dtype::f16, Dtype::tf32, Dtype::f32}) {
      // f32 (3xTF32) takes the built-ins whose lo parts fit the registers (64x32 warp tiles).
      auto legal = [&](const Config& c, const Problem& p) { return mma.check_problem(c, p).ok(); };
      for (const Config& c : mma.builtin_configs({4096, 4096, 4096, d}))
        if (legal(c, {4096, 4096, 4096, d}))
          for (Epilogue e : kEpilogues) out.push_back({target, {4096, 4096, 4096, d, e}, c, true});
      // Split-K: split = 2 is the kernel of every factor (kernel_config), at a shape the space
      // splits; its epilogue is the reduce's, so one epilogue covers it.
      const Problem skinny{64, 4096, 4096, d, Epilogue::bias_gelu};
      for (const Config& c : mma.builtin_configs(skinny))
        if (legal(c, skinny)) out.push_back({target, skinny, kernel_config(mma.with(c, kSplitParam, 8)), true});
      // 40 of the sweep's legal configs at 4096 for this target (20 in f32), each with one
      // epilogue in turn.
      const Problem p{4096, 4096, 4096, d, Epilogue::bias_gelu};
      const auto drawn = tuner::select(tuner::enumerate(mma, p, target), tuner::Strategy::random, d == Dtype::f32 ? 20 : 40,
                                       0x6d6d61u + static_cast<unsigned>(d));
      for (std::size_t i = 0; i < drawn.size(); ++i)
        out.push_back({target, {4096, 4096, 4096, d, kEpilogues[i % 4]}, drawn[i].config, false});
    }
  return out;
}

TEST(MmaNvrtc, BuiltinAndSampledConfigsCompileForSm80AndSm90WithoutSpills) {
  const fs::path cache = fs::temp_directory_path() / ("coalesce-mma-nvrtc-" + std::to_string(getpid()));
  fs::remove_all(cache);
  const tuner::Jit sm80(cache, "sm_80"), sm90(cache, "sm_90");
  const std::vector<Case> all = cases();
  // bf16 and f16: every built-in; tf32 all but the 2-byte one (bf16/f16 elements only); f32:
  // the two 64x32-warp built-ins with 8- and 4-byte copies; each with every epilogue and split.
  ASSERT_EQ(all.size(), 2u * (2u * (mma_builtin::kCount * 5u + 40u) + ((mma_builtin::kCount - 1) * 5u + 40u) + 2u * 5u + 20u));

  struct Outcome {
    std::string name, log;
    bool emitted = false, compiled = false, reported = false, spills = true;
    int registers = 0;
    double seconds = 0;
  };
  std::vector<Outcome> outcomes(all.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i; (i = next++) < all.size();) {
      Outcome& o = outcomes[i];
      const Case& c = all[i];
      o.name = config_name(c.config, c.problem.dtype, c.problem.epilogue) + " on " + c.target.arch();
      compiler::EmittedKernel k;
      try {
        k = unit_for(c);
      } catch (const std::exception& e) {
        o.log = e.what();
        continue;
      }
      o.emitted = k.symbol == config_name(c.config, c.problem.dtype, c.problem.epilogue);
      const tuner::Jit& jit = mma_family().nvrtc_arch(c.target) == "sm_80" ? sm80 : sm90;
      const tuner::CompileResult r = jit.compile(k.symbol, k.source);
      o.compiled = r.ok;
      o.log = r.log;
      o.seconds = r.compile_seconds;
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

  double total = 0, slowest = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const Outcome& o = outcomes[i];
    const MmaConfig cfg = to_mma(all[i].config);
    SCOPED_TRACE(o.name);
    EXPECT_TRUE(o.emitted) << o.log;
    EXPECT_TRUE(o.compiled) << o.log;
    EXPECT_TRUE(o.reported) << o.log;
    EXPECT_FALSE(o.spills) << o.log;
    // __launch_bounds__(threads, min_blocks) caps what ptxas may use.
    EXPECT_LE(o.registers, cfg.register_cap());
    total += o.seconds;
    slowest = std::max(slowest, o.seconds);
    if (all[i].builtin && all[i].problem.epilogue == Epilogue::bias_gelu)
      std::printf("%-70s %3d registers (model %3d, cap %3d) %5.2f s\n", o.name.c_str(), o.registers,
                  cfg.predicted_registers(), cfg.register_cap(), o.seconds);
  }
  std::printf("%zu compiles, %.2f s each on average, %.2f s at most\n", all.size(), total / all.size(), slowest);
}

// The gated epilogues (swiglu, geglu) compile for sm_90 through the compiler, as the tuner builds
// them, with the built-in configs in every dtype (geglu in bf16) at Llama-3-8B's merged gate/up
// shape, and split-K's kernel (its partials are raw sums: the reduce applies the gate), without
// spills and within the launch bounds' register cap.
TEST(MmaNvrtc, GatedEpiloguesCompileInEveryDtype) {
  const fs::path cache = fs::temp_directory_path() / ("coalesce-mma-gated-" + std::to_string(getpid()));
  fs::remove_all(cache);
  const Target target{9, 0, false, DeviceLimits{}, 132};
  const tuner::Jit jit(cache, mma_family().nvrtc_arch(target));
  const Family& mma = mma_family();
  int compiled = 0;
  for (Dtype d : {Dtype::bf16, Dtype::f16, Dtype::tf32, Dtype::f32})
    for (Epilogue e : {Epilogue::swiglu, Epilogue::geglu}) {
      if (e == Epilogue::geglu && d != Dtype::bf16) continue;
      const Problem p{1024, 28672, 4096, d, e};
      ASSERT_TRUE(supports_epilogue(mma, p).ok());
      std::vector<Config> configs;
      for (const Config& c : mma.builtin_configs(p))
        if (mma.check_problem(c, p).ok()) configs.push_back(c);
      if (d == Dtype::bf16 && e == Epilogue::swiglu) {
        const Problem skinny{16, 28672, 4096, d, e};
        for (const Config& c : mma.builtin_configs(skinny))
          if (mma.check_problem(c, skinny).ok()) {
            configs.push_back(kernel_config(mma.with(c, kSplitParam, 4)));
            break;
          }
      }
      for (const Config& c : configs) {
        SCOPED_TRACE(config_name(c, d, e));
        const compiler::EmittedKernel k = compiler::emit_fused_kernel(p, c, target);
        const tuner::CompileResult r = jit.compile(k.symbol, k.source);
        ASSERT_TRUE(r.ok) << r.log;
        ASSERT_TRUE(r.ptxas.has_value()) << r.log;
        EXPECT_FALSE(r.ptxas->spills()) << r.log;
        EXPECT_LE(r.ptxas->registers, to_mma(c).register_cap());
        ++compiled;
      }
    }
  EXPECT_GE(compiled, 6);
  fs::remove_all(cache);
}

}  // namespace
}  // namespace coalesce
