// CUDA emitted by the compiler compiles under NVRTC for sm_90 without spills, for every simt
// config the kernel tests instantiate (harness/simt_fixed.cu) and every built-in config the
// runtime falls back to, with every epilogue, and for every 30th legal 32-row tile of the
// space at M = 32 (the tiles the sweep adds for M <= 32, issue 12) with bias + GELU. Uses the
// tuner's JIT (embedded kernel headers, figures from the cubin) with a fresh cache, so every
// unit is really compiled. No GPU needed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "Coalesce/Emit.h"
#include "harness/simt_fixed.hpp"
#include "kernels/simt/builtin.hpp"
#include "kernels/simt/family.hpp"
#include "tuner/jit.hpp"
#include "tuner/space.hpp"

namespace coalesce::compiler {
namespace {

namespace fs = std::filesystem;

struct Case {
  SimtConfig config;
  Epilogue epilogue;
  std::string name;
};

std::vector<Case> cases() {
  std::vector<SimtConfig> configs = fixed_simt_configs();
  configs.insert(configs.end(), std::begin(simt_builtin::kConfigs), std::end(simt_builtin::kConfigs));
  std::vector<Case> out;
  for (const SimtConfig& c : configs)
    for (Epilogue e : {Epilogue::none, Epilogue::bias, Epilogue::bias_relu, Epilogue::bias_gelu}) {
      std::string name = config_name(from_simt(c), Dtype::f32, e);
      bool seen = false;
      for (const Case& k : out) seen = seen || k.name == name;
      if (!seen) out.push_back({c, e, name});
    }
  const Problem small_m{32, 4096, 4096, Dtype::f32, Epilogue::bias_gelu};
  int tall = 0;
  for (const tuner::Candidate& c : tuner::enumerate(simt_family(), small_m, Target{9, 0, true, DeviceLimits{}}).candidates)
    if (!c.pruned() && to_simt(c.config).bm == 32 && split_slices(c.config) == 1 && tall++ % 30 == 0)
      out.push_back({to_simt(c.config), small_m.epilogue, c.name});
  return out;
}

TEST(EmitNvrtc, EveryTestedAndBuiltinConfigCompilesForSm90WithoutSpills) {
  fs::path cache = fs::temp_directory_path() / ("coalesce-emit-nvrtc-" + std::to_string(getpid()));
  fs::remove_all(cache);
  const tuner::Jit jit(cache, "sm_90");
  const std::vector<Case> all = cases();
  // The eight hand-picked configs at least, with every epilogue, and 6 of the 180 32-row tiles.
  ASSERT_GE(all.size(), 4u * 8u + 6u);
  int tall = 0;
  for (const Case& c : all) tall += c.config.bm == 32;
  EXPECT_EQ(tall, 6);

  struct Outcome {
    bool emitted = false, compiled = false, reported = false, spills = true;
    int registers = 0;
    std::string log;
  };
  std::vector<Outcome> outcomes(all.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i; (i = next++) < all.size();) {
      Outcome& o = outcomes[i];
      // 4096^3: every hand-picked and built-in config fits it (4-float copies need N % 4 == 0).
      const Problem p{4096, 4096, 4096, Dtype::f32, all[i].epilogue};
      EmittedKernel k;
      try {
        k = emit_fused_kernel(p, from_simt(all[i].config), Target{9, 0, true, DeviceLimits{}});
      } catch (const std::exception& e) {
        o.log = e.what();
        continue;
      }
      o.emitted = k.symbol == all[i].name;
      tuner::CompileResult r = jit.compile(k.symbol, k.source);
      o.compiled = r.ok;
      o.log = r.log;
      if (r.resources) {
        o.reported = true;
        o.spills = r.resources->uses_local_memory();
        o.registers = r.resources->registers;
      }
    }
  };
  std::vector<std::thread> pool;
  unsigned threads = std::max(1u, std::min(4u, std::thread::hardware_concurrency()));
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work);
  for (std::thread& t : pool) t.join();
  fs::remove_all(cache);

  for (std::size_t i = 0; i < all.size(); ++i) {
    const Outcome& o = outcomes[i];
    SCOPED_TRACE(all[i].name);
    EXPECT_TRUE(o.emitted) << o.log;
    EXPECT_TRUE(o.compiled) << o.log;
    EXPECT_TRUE(o.reported) << o.log;
    EXPECT_FALSE(o.spills) << o.log;
    // __launch_bounds__(threads, min_blocks) caps what ptxas may use.
    EXPECT_LE(o.registers, all[i].config.register_cap());
  }
}


// The 64-bit variant of every built-in config (issue 39) compiles through the compiler at a
// problem past 2^31 elements (C of 2^34), for sm_90 without spills, within its register cap.
TEST(EmitNvrtc, SixtyFourBitBuiltinsCompileForAProblemPastTwoToTheThirtyOne) {
  fs::path cache = fs::temp_directory_path() / ("coalesce-emit-nvrtc64-" + std::to_string(getpid()));
  fs::remove_all(cache);
  const tuner::Jit jit(cache, "sm_90");
  const Problem huge{131072, 131072, 8192, Dtype::f32, Epilogue::bias_gelu};
  const std::vector<Config> builtins = simt_family().builtin_configs(huge);
  ASSERT_EQ(builtins.size(), static_cast<std::size_t>(simt_builtin::kCount));
  int compiled = 0;
  for (const Config& config : builtins) {
    const SimtConfig c = to_simt(config);
    SCOPED_TRACE(config_name(config, huge.dtype, huge.epilogue));
    ASSERT_EQ(c.index_bits, 64);
    ASSERT_TRUE(c.check_problem(huge.m, huge.n, huge.k).ok());
    const EmittedKernel k = emit_fused_kernel(huge, config, Target{9, 0, true, DeviceLimits{}});
    EXPECT_NE(k.source.find(", 1, 64>"), std::string::npos) << "the tile type spells the 64 bits";
    const tuner::CompileResult r = jit.compile(k.symbol, k.source);
    ASSERT_TRUE(r.ok) << r.log;
    ASSERT_TRUE(r.resources.has_value());
    EXPECT_FALSE(r.resources->uses_local_memory());
    EXPECT_LE(r.resources->registers, c.register_cap());
    ++compiled;
  }
  fs::remove_all(cache);
  EXPECT_EQ(compiled, simt_builtin::kCount);
}

}  // namespace
}  // namespace coalesce::compiler
