// The wgmma kernel under NVRTC for sm_90a, with no GPU: the compiler's emission of every built-in
// config (every epilogue in bf16, bias_gelu in f16) and of a sample of the 4096 sweep compiles
// without spills or ptxas warnings (wgmma serialization, setmaxnreg ignored) through the tuner's
// JIT; the PTX holds the instructions the design rests on; and each planted pipeline hazard of
// tests/gpu/wgmma_test.cu changes exactly the instruction it claims to. NVRTC 13.0 crashes the
// process on a wgmma whose matrix descriptors are compile-time constants (DESIGN.md): these
// compiles are the check that this kernel's are not.
#include <gtest/gtest.h>
#include <nvrtc.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "Coalesce/Emit.h"
#include "kernels/wgmma/builtin.hpp"
#include "kernels/wgmma/family.hpp"
#include "tuner/jit.hpp"
#include "tuner/space.hpp"

namespace coalesce {
namespace {

namespace fs = std::filesystem;

const Target kSm90a{9, 0, true, DeviceLimits{}, 132};

struct Case {
  Problem problem;
  Config config;
  std::string name;
};

// Every built-in config with every epilogue in bf16 and with bias_gelu in f16, two tiles with
// epilogue warps (128 x 192 through slots for the whole tile, 256 x 128 through one), two in
// clusters of two (2x1 persistent through the TMA store, 1x2 direct), three ping-pong
// tiles (the largest accumulators a ping-pong consumer holds, 128 x 192; 128 x 128; 64 x 256
// through the TMA store: with two m64 blocks per consumer the TMA store's epilogue spills 64
// bytes, with or without ping-pong, and the tuner prunes those), then every 24th legal config of the 4096 sweep (bf16, bias_gelu); the
// tf32 built-ins with every epilogue and every 8th legal config of the tf32 sweep: 81 kernels.
// "Every epilogue" here: the four before the registry grew; its newer ones compile under NVRTC in
// gemv_nvrtc_test and run in every family in tests/gpu/epilogue_families_test.cu.
constexpr Epilogue kEpilogues[] = {Epilogue::none, Epilogue::bias, Epilogue::bias_relu, Epilogue::bias_gelu};

std::vector<Case> cases() {
  std::vector<Case> out;
  auto add = [&](const Problem& p, const Config& c) { out.push_back({p, c, config_name(c, p.dtype, p.epilogue)}); };
  for (const WgmmaConfig& c : wgmma_builtin::kConfigs) {
    for (Epilogue e : kEpilogues) add({4096, 4096, 4096, Dtype::bf16, e}, from_wgmma(c));
    add({4096, 4096, 4096, Dtype::f16, Epilogue::bias_gelu}, from_wgmma(c));
  }
  const Problem p{4096, 4096, 4096, Dtype::bf16, Epilogue::bias_gelu};
  //                                bm   bn  bk  s wg cm cn  p  g ts sk pp rd ew
  for (const WgmmaConfig& c : {WgmmaConfig{128, 192, 64, 4, 2, 1, 1, 1, 8, 0, 1, 1},
                               WgmmaConfig{128, 128, 64, 5, 2, 1, 1, 1, 8, 0, 1, 1},
                               WgmmaConfig{64, 256, 64, 4, 2, 1, 1, 1, 8, 1, 1, 1},
                               WgmmaConfig{128, 192, 64, 3, 2, 1, 1, 1, 8, 1, 1, 0, 0, 3},
                               WgmmaConfig{256, 128, 64, 3, 2, 1, 1, 1, 8, 1, 1, 0, 0, 1},
                               WgmmaConfig{128, 256, 64, 3, 2, 2, 1, 1, 8, 1},
                               WgmmaConfig{256, 128, 64, 4, 2, 1, 2, 0, 8, 0}})
    add(p, from_wgmma(c));
  const Family& f = wgmma_family();
  int legal = 0;
  for (const Config& c : f.sweep_configs(p)) {
    if (!f.check(c).ok() || !f.check(c, kSm90a.limits, f.predict(c, kSm90a.limits).registers).ok()) continue;
    if (legal++ % 24 == 0) add(p, c);
  }
  for (const WgmmaConfig& c : wgmma_builtin::kTf32Configs)
    for (Epilogue e : kEpilogues) add({4096, 4096, 4096, Dtype::tf32, e}, from_wgmma(c));
  const Problem t{4096, 4096, 4096, Dtype::tf32, Epilogue::bias_gelu};
  legal = 0;
  for (const Config& c : f.sweep_configs(t)) {
    if (!f.check(c).ok() || !f.check(c, kSm90a.limits, f.predict(c, kSm90a.limits).registers).ok()) continue;
    if (legal++ % 8 == 0) add(t, c);
  }
  return out;
}

TEST(WgmmaNvrtc, BuiltinsAndASampleOfTheSweepCompileForSm90aWithoutSpills) {
  const fs::path cache = fs::temp_directory_path() / ("coalesce-wgmma-nvrtc-" + std::to_string(getpid()));
  fs::remove_all(cache);
  const tuner::Jit jit(cache, wgmma_family().nvrtc_arch(kSm90a));
  const std::vector<Case> all = cases();
  ASSERT_EQ(all.size(), 81u);

  struct Outcome {
    bool emitted = false, compiled = false, reported = false, spills = true;
    int registers = 0;
    tuner::KernelResources resources;
    double seconds = 0;
    std::string log;
  };
  std::vector<Outcome> outcomes(all.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i; (i = next++) < all.size();) {
      Outcome& o = outcomes[i];
      compiler::EmittedKernel k;
      try {
        k = compiler::emit_fused_kernel(all[i].problem, all[i].config, kSm90a);
      } catch (const std::exception& e) {
        o.log = e.what();
        continue;
      }
      o.emitted = k.symbol == all[i].name;
      const tuner::CompileResult r = jit.compile(k.symbol, k.source);
      o.compiled = r.ok;
      o.log = r.log;
      o.seconds = r.compile_seconds;
      if (r.ok && r.resources) {  // the cubin's own figures, as the tuner reads them
        o.reported = true;
        o.resources = *r.resources;
        o.spills = r.resources->uses_local_memory();
        o.registers = r.resources->registers;
      }
    }
  };
  std::vector<std::thread> pool;
  const unsigned threads = std::max(1u, std::min(4u, std::thread::hardware_concurrency()));
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work);
  for (std::thread& t : pool) t.join();
  fs::remove_all(cache);

  std::vector<double> seconds;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const Outcome& o = outcomes[i];
    SCOPED_TRACE(all[i].name);
    EXPECT_TRUE(o.emitted) << o.log;
    EXPECT_TRUE(o.compiled) << o.log;
    EXPECT_TRUE(o.reported) << o.log;
    EXPECT_FALSE(o.spills) << o.log;
    // ptxas warns when it ignores setmaxnreg (C7508) and the like; when it serializes the wgmmas
    // (too few registers for the pipeline, C7511; accumulators defined by other instructions
    // inside a pipeline stage, C7515) it only informs, "Potential Performance Loss: wgmma.mma_async
    // instructions are serialized": C7515 cost the overlapped-epilogue experiment half its speed.
    EXPECT_EQ(o.log.find("warning"), std::string::npos) << o.log;
    EXPECT_EQ(o.log.find("instructions are serialized"), std::string::npos) << o.log;
    const WgmmaConfig c = to_wgmma(all[i].config);
    // __launch_bounds__(threads, 1) caps the entry; ptxas reports the cap with two consumers.
    EXPECT_LE(o.registers, register_cap(c.threads(), 1));
    if (c.consumers == 2) EXPECT_EQ(o.registers, 168);
    // The tuner's verdict with ptxas' figures: the rule holds for the compiled kernel too.
    const Verdict v = tuner::compiled_verdict(wgmma_family(), all[i].config, kSm90a.limits, o.resources);
    EXPECT_TRUE(v.ok()) << (v.why ? v.why : "");
    seconds.push_back(o.seconds);
    std::printf("  %-66s %3d registers  %5.2f s\n", all[i].name.c_str(), o.registers, o.seconds);
  }
  std::sort(seconds.begin(), seconds.end());
  std::printf("NVRTC compile seconds over %zu kernels: min %.2f, median %.2f, max %.2f\n", seconds.size(),
              seconds.front(), seconds[seconds.size() / 2], seconds.back());
}

// The PTX of one translation unit compiled by NVRTC for sm_90a with the embedded headers.
std::string ptx_of(const std::string& source) {
  std::vector<const char*> names, texts;
  for (const tuner::KernelHeader& h : tuner::kernel_headers()) {
    names.push_back(h.name);
    texts.push_back(h.text);
  }
  const std::vector<std::string> options = tuner::nvrtc_options("sm_90a");
  std::vector<const char*> opts;
  for (const std::string& o : options) opts.push_back(o.c_str());
  nvrtcProgram prog = nullptr;
  EXPECT_EQ(nvrtcCreateProgram(&prog, source.c_str(), "wgmma_ptx.cu", static_cast<int>(names.size()), texts.data(),
                               names.data()),
            NVRTC_SUCCESS);
  const nvrtcResult rc = nvrtcCompileProgram(prog, static_cast<int>(opts.size()), opts.data());
  std::size_t size = 0;
  nvrtcGetProgramLogSize(prog, &size);
  std::string log(size, '\0');
  nvrtcGetProgramLog(prog, log.data());
  EXPECT_EQ(rc, NVRTC_SUCCESS) << log;
  std::string ptx;
  if (rc == NVRTC_SUCCESS) {
    nvrtcGetPTXSize(prog, &size);
    ptx.assign(size, '\0');
    nvrtcGetPTX(prog, ptx.data());
  }
  nvrtcDestroyProgram(&prog);
  return ptx;
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The tf32 kernel's PTX: per K slice, two groups of two k8 steps per m64 block, each wgmma taking
// its A fragment from four registers (loaded with 32-bit shared loads) and B from the A slot with
// no transpose immediates, each group committed and waited to depth 1; C stored from registers.
TEST(WgmmaNvrtc, Tf32PtxMultipliesTheTransposedTile) {
  const Config c = from_wgmma(WgmmaConfig{128, 256, 32, 4, 2, 1, 1, 1, 8, 0});
  const std::string ptx = ptx_of("#include \"kernels/wgmma/gemm.cuh\"\n" +
                                 wgmma_family().define_kernel(c, Dtype::tf32, Epilogue::bias_gelu, "k") + "\n");
  // 128 columns of the tile per consumer (two m64 blocks of C^T), wgmma N = BM = 128, 4 k8 steps.
  EXPECT_EQ(count(ptx, "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32"), 8);
  EXPECT_EQ(count(ptx, "p, 1, 1;"), 8);
  EXPECT_EQ(count(ptx, "wgmma.commit_group.sync.aligned;"), 2);
  EXPECT_EQ(count(ptx, "wgmma.wait_group.sync.aligned 1;"), 2);
  EXPECT_GE(count(ptx, "ld.shared.b32"), 32);  // 4 per wgmma
  EXPECT_EQ(count(ptx, "setmaxnreg.inc.sync.aligned.u32 232"), 1);
  EXPECT_EQ(count(ptx, "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"), 0);
  EXPECT_EQ(count(ptx, "k16.f32.bf16"), 0);
}

// The instructions the design rests on are in the PTX: warpgroup MMAs with B N-major (the last
// immediate, imm-trans-b, is 1), the register split, TMA copies completing on mbarriers.
TEST(WgmmaNvrtc, PtxHoldsTheHopperInstructions) {
  const Config c = from_wgmma(WgmmaConfig{128, 256, 64, 4, 2, 1, 1, 1, 8, 1});
  const std::string ptx = ptx_of("#include \"kernels/wgmma/gemm.cuh\"\n" +
                                 wgmma_family().define_kernel(c, Dtype::bf16, Epilogue::bias_gelu, "k") + "\n");
  // 64 rows per consumer, BK 64: four K steps of one m64n256k16 per K slice.
  EXPECT_EQ(count(ptx, "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16"), 4);
  EXPECT_EQ(count(ptx, "p, 1, 1, 0, 1;"), 4);  // scale-a, scale-b, trans-a = 0 (K-major), trans-b = 1
  EXPECT_EQ(count(ptx, "setmaxnreg.dec.sync.aligned.u32 40"), 1);
  EXPECT_EQ(count(ptx, "setmaxnreg.inc.sync.aligned.u32 232"), 1);
  EXPECT_GE(count(ptx, "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"), 2);
  // The C tile leaves in 16-row, 64-column boxes: BN / 64 TMA stores per warp and m64 block.
  EXPECT_EQ(count(ptx, "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"), 4);
  EXPECT_GE(count(ptx, "mbarrier.try_wait.parity.shared::cta.b64"), 2);
  EXPECT_EQ(count(ptx, "wgmma.wait_group.sync.aligned 1;"), 1);
  EXPECT_EQ(count(ptx, "fence.proxy.async.shared::cta;"), 1);
  EXPECT_EQ(count(ptx, "multicast::cluster"), 0);
  // The three tensor maps prefetched once; before exiting, the TMA stores are waited for only
  // until they have read the staged tile (the writes complete with the grid).
  EXPECT_EQ(count(ptx, "prefetch.tensormap"), 3);
  EXPECT_GE(count(ptx, "cp.async.bulk.wait_group.read 0;"), 1);
  EXPECT_EQ(count(ptx, "cp.async.bulk.wait_group 0;"), 0);

  // A 2x1 cluster: B's chunks multicast to both blocks (2 of 4 per block, each its own copy
  // instruction), A loaded alone; each slot release also arrives on the other block's barrier;
  // the blocks meet at a cluster barrier after initializing theirs.
  const std::string pair = ptx_of("#include \"kernels/wgmma/gemm.cuh\"\n" +
                                  wgmma_family().define_kernel(from_wgmma(WgmmaConfig{128, 256, 64, 4, 2, 2, 1, 1, 8, 1}),
                                                               Dtype::bf16, Epilogue::bias_gelu, "k") +
                                  "\n");
  EXPECT_GE(count(pair, ".multicast::cluster"), 1);
  EXPECT_GE(count(pair, "mapa.shared::cluster.u32"), 1);
  EXPECT_GE(count(pair, "mbarrier.arrive.shared::cluster.b64"), 1);
  EXPECT_EQ(count(pair, "barrier.cluster.arrive.release.aligned"), 1);
  EXPECT_GE(count(pair, "%cluster_ctarank"), 1);

  const std::string f16 = ptx_of("#include \"kernels/wgmma/gemm.cuh\"\n" +
                                 wgmma_family().define_kernel(from_wgmma(WgmmaConfig{64, 192, 64, 5, 1, 1, 1, 0, 8, 0}),
                                                              Dtype::f16, Epilogue::none, "k") +
                                 "\n");
  EXPECT_EQ(count(f16, "wgmma.mma_async.sync.aligned.m64n192k16.f32.f16.f16"), 4);
  EXPECT_EQ(count(f16, "setmaxnreg"), 0);  // one consumer: no register split
  EXPECT_EQ(count(f16, "prefetch.tensormap"), 2);  // direct stores: no C map to prefetch
}

/// Compiles `config`'s kernel for `p` through the tuner's JIT and checks what every special
/// schedule's kernel must be: compiled, no spills, no ptxas warnings or serialized wgmmas, legal
/// under the rule with ptxas' figures, and with two consumers the launch cap of 168 registers.
void expect_compiles_clean(const tuner::Jit& jit, const Problem& p, const Config& config) {
  const compiler::EmittedKernel k = compiler::emit_fused_kernel(p, config, kSm90a);
  const tuner::CompileResult r = jit.compile(k.symbol, k.source);
  ASSERT_TRUE(r.ok) << r.log;
  ASSERT_TRUE(r.resources.has_value());
  EXPECT_FALSE(r.resources->uses_local_memory()) << r.log;
  EXPECT_EQ(r.log.find("warning"), std::string::npos) << r.log;
  EXPECT_EQ(r.log.find("instructions are serialized"), std::string::npos) << r.log;
  const Verdict v = tuner::compiled_verdict(wgmma_family(), config, kSm90a.limits, *r.resources);
  EXPECT_TRUE(v.ok()) << (v.why ? v.why : "");
  if (to_wgmma(config).consumers == 2) EXPECT_EQ(r.resources->registers, 168);
}

/// The PTX of a wgmma config's kernel for a dtype and epilogue.
std::string ptx_of(const WgmmaConfig& c, Dtype d, Epilogue e) {
  return ptx_of("#include \"kernels/wgmma/gemm.cuh\"\n" + wgmma_family().define_kernel(from_wgmma(c), d, e, "k") + "\n");
}

// Split-K's kernels, as the tuner compiles them (kernel_config: every factor is the split = 2
// kernel) for a skinny problem: a one-consumer 64x64 tile, a two-consumer 128x128 tile and a
// two-consumer 256x128 tile (two m64 blocks per consumer), in bf16 and f16, compile for sm_90a
// without spills or ptxas warnings; the PTX reads the slice from %ctaid.z, stores f32 pairs and
// no 16-bit C (the reduce does that), and the unsplit kernel of the same tile reads no %ctaid.z.
TEST(WgmmaNvrtc, SplitKernelsCompileWithoutSpills) {
  const fs::path cache = fs::temp_directory_path() / ("coalesce-wgmma-split-" + std::to_string(getpid()));
  fs::remove_all(cache);
  const tuner::Jit jit(cache, wgmma_family().nvrtc_arch(kSm90a));
  //                                   bm   bn  bk  s wg cm cn  p  g ts sk
  const WgmmaConfig tiles[] = {{64, 64, 64, 6, 1, 1, 1, 0, 8, 0, 8},
                               {128, 128, 64, 6, 2, 1, 1, 0, 8, 0, 3},
                               {256, 128, 64, 4, 2, 1, 1, 0, 1, 0, 16}};
  for (const WgmmaConfig& tile : tiles)
    for (Dtype d : {Dtype::bf16, Dtype::f16}) {
      const Problem p{64, 4096, 4096, d, Epilogue::bias_gelu};
      const Config config = from_wgmma(tile);
      SCOPED_TRACE(config_name(config, d, p.epilogue));
      ASSERT_TRUE(check_schedule(wgmma_family(), config, p, kSm90a).ok());
      EXPECT_NE(compiler::emit_fused_kernel(p, kernel_config(config), kSm90a).source.find(", 2>"), std::string::npos);
      expect_compiles_clean(jit, p, kernel_config(config));

      const std::string ptx = ptx_of(to_wgmma(kernel_config(config)), d, p.epilogue);
      EXPECT_GE(count(ptx, "%ctaid.z"), 1);
      EXPECT_GE(count(ptx, "st.global.v2.f32"), 1);
      EXPECT_EQ(count(ptx, "st.global.u32"), 0);  // the 16-bit pairs of C
      EXPECT_EQ(count(ptx, "cp.async.bulk.tensor.2d.global.shared::cta"), 0);
      WgmmaConfig whole = tile;
      whole.split = 1;
      const std::string unsplit = ptx_of(whole, d, p.epilogue);
      EXPECT_EQ(count(unsplit, "%ctaid.z"), 0);
      EXPECT_EQ(count(unsplit, "st.global.v2.f32"), 0);
    }
  fs::remove_all(cache);
}

// The gated epilogues (swiglu, geglu) compile for sm_90a through the compiler, as the tuner
// builds them, for configs whose store applies them (WgmmaConfig::check_gated): the register
// store, split-K through the separate reduce and behind counters, and stream-K, at Llama-3-8B's
// merged gate/up shape. Without spills or ptxas warnings; the register store's PTX writes one
// 16-bit C value per (gate, up) pair and no 32-bit pairs of C. A TMA-store config is refused.
TEST(WgmmaNvrtc, GatedEpiloguesCompileForTheStoresThatApplyThem) {
  const fs::path cache = fs::temp_directory_path() / ("coalesce-wgmma-gated-" + std::to_string(getpid()));
  fs::remove_all(cache);
  const tuner::Jit jit(cache, wgmma_family().nvrtc_arch(kSm90a));
  //                                   bm   bn  bk  s wg cm cn  p  g ts sk pp rd ew sk
  const WgmmaConfig tiles[] = {{128, 256, 64, 4, 2, 1, 1, 0, 8, 0},
                               {128, 128, 64, 6, 2, 1, 1, 0, 8, 0, 2, 0, 1},
                               {128, 128, 64, 4, 2, 1, 1, 1, 8, 0, 1, 0, 0, 0, 2}};
  for (const WgmmaConfig& tile : tiles)
    for (Epilogue e : {Epilogue::swiglu, Epilogue::geglu}) {
      const Problem p{1024, 28672, 4096, Dtype::bf16, e};
      const Config config = kernel_config(from_wgmma(tile));
      SCOPED_TRACE(config_name(config, p.dtype, e));
      ASSERT_TRUE(supports_epilogue(wgmma_family(), p).ok());
      const Verdict v = wgmma_family().check_problem(config, p);
      ASSERT_TRUE(v.ok()) << v.why;
      expect_compiles_clean(jit, p, config);
    }
  const std::string ptx = ptx_of(tiles[0], Dtype::bf16, Epilogue::swiglu);
  EXPECT_GE(count(ptx, "st.global.u16") + count(ptx, "st.global.b16"), 1);
  EXPECT_EQ(count(ptx, "st.global.u32"), 0);
  EXPECT_EQ(count(ptx, "cp.async.bulk.tensor.2d.global.shared::cta"), 0);
  // The TMA store's staging lays out BN columns of C: refused, with the reason, as are the tf32
  // (transposed) tile and an N whose C rows (N/2 x 2 bytes) are no multiple of 16 bytes.
  const Problem p{1024, 28672, 4096, Dtype::bf16, Epilogue::swiglu};
  const Verdict tma = wgmma_family().check_problem(from_wgmma(WgmmaConfig{128, 128, 64, 6, 2, 1, 1, 1, 8, 1}), p);
  EXPECT_EQ(tma.violation, Violation::epilogue);
  EXPECT_NE(std::string(tma.why).find("tma_store = 0"), std::string::npos) << tma.why;
  const Verdict tf32 = wgmma_family().check_problem(from_wgmma(WgmmaConfig{128, 256, 32, 4, 2, 1, 1, 1, 8, 0}),
                                                    {1024, 28672, 4096, Dtype::tf32, Epilogue::swiglu});
  EXPECT_EQ(tf32.violation, Violation::epilogue);
  const Verdict narrow = wgmma_family().check_problem(from_wgmma(tiles[0]), {1024, 28664, 4096, Dtype::bf16, Epilogue::swiglu});
  EXPECT_EQ(narrow.violation, Violation::divisibility);
  EXPECT_NE(std::string(narrow.why).find("multiple of 16"), std::string::npos) << narrow.why;
  EXPECT_TRUE(wgmma_family().check_problem(from_wgmma(tiles[0]), {1024, 28664, 4096, Dtype::bf16, Epilogue::bias_gelu}).ok());
  fs::remove_all(cache);
}

// The residual epilogue compiles for sm_90a through the compiler, as the tuner builds it, for
// configs whose store adds it (WgmmaConfig::check_residual): the register store, ping-pong over
// it, k_interleave's halves and stream-K, at 4096 x 14336 x 4096. Without spills or ptxas
// warnings; the register store's PTX reads the residual as 16-bit values beside C. The TMA store,
// split-K, the tf32 and the swapped tiles are refused with the reason.
TEST(WgmmaNvrtc, TheResidualCompilesForTheStoresThatAddIt) {
  const fs::path cache = fs::temp_directory_path() / ("coalesce-wgmma-residual-" + std::to_string(getpid()));
  fs::remove_all(cache);
  const tuner::Jit jit(cache, wgmma_family().nvrtc_arch(kSm90a));
  //                                   bm   bn  bk  s wg cm cn  p  g ts sk pp rd ew sk ki
  const WgmmaConfig tiles[] = {{128, 256, 64, 4, 2, 1, 1, 0, 8, 0},
                               {128, 128, 64, 4, 2, 1, 1, 1, 8, 0, 1, 1},
                               {128, 128, 64, 4, 2, 1, 1, 0, 8, 0, 1, 0, 0, 0, 0, 2},
                               {128, 128, 64, 4, 2, 1, 1, 1, 8, 0, 1, 0, 0, 0, 2}};
  for (const WgmmaConfig& tile : tiles) {
    const Problem p{4096, 14336, 4096, Dtype::bf16, Epilogue::bias_gelu_residual};
    const Config config = kernel_config(from_wgmma(tile));
    SCOPED_TRACE(config_name(config, p.dtype, p.epilogue));
    ASSERT_TRUE(tile.check().ok()) << tile.check().why;
    ASSERT_TRUE(supports_epilogue(wgmma_family(), p).ok());
    const Verdict v = wgmma_family().check_problem(config, p);
    ASSERT_TRUE(v.ok()) << v.why;
    expect_compiles_clean(jit, p, config);
  }
  // The residual's loads: none in the bias-only kernel of the same tile, some with the residual.
  const std::string with = ptx_of(tiles[0], Dtype::bf16, Epilogue::bias_gelu_residual);
  const std::string without = ptx_of(tiles[0], Dtype::bf16, Epilogue::bias_gelu);
  EXPECT_GT(count(with, "ld.global"), count(without, "ld.global"));
  const Problem p{4096, 14336, 4096, Dtype::bf16, Epilogue::bias_gelu_residual};
  const struct {
    WgmmaConfig tile;
    Dtype dtype;
    const char* why;
  } refused[] = {{{128, 128, 64, 6, 2, 1, 1, 1, 8, 1}, Dtype::bf16, "tma_store = 0"},
                 {{128, 128, 64, 6, 2, 1, 1, 0, 8, 0, 2}, Dtype::bf16, "split = 1"},
                 {{128, 256, 32, 4, 2, 1, 1, 1, 8, 0}, Dtype::tf32, "untransposed"}};
  for (const auto& r : refused) {
    const Verdict v = wgmma_family().check_problem(from_wgmma(r.tile), {p.m, p.n, p.k, r.dtype, p.epilogue});
    EXPECT_EQ(v.violation, Violation::epilogue) << config_name(from_wgmma(r.tile), r.dtype, p.epilogue);
    EXPECT_NE(std::string(v.why).find(r.why), std::string::npos) << v.why;
  }
  fs::remove_all(cache);
}

// The layout types (bits 62-63) of the matrix descriptors a kernel's PTX builds: the constant
// halves of a descriptor (layout type, leading and stride byte offsets) are folded into one
// `or.b64` with the run-time address; 1 is the 128-byte swizzle, 2 the 64-byte one.
std::set<unsigned> descriptor_layouts(const std::string& ptx) {
  std::set<unsigned> out;
  for (std::size_t at = ptx.find("or.b64"); at != std::string::npos; at = ptx.find("or.b64", at + 1)) {
    const std::size_t end = ptx.find(';', at);
    const std::size_t comma = ptx.rfind(',', end);
    const std::string value = ptx.substr(comma + 1, end - comma - 1);
    if (value.find('%') != std::string::npos) continue;  // a register, not a constant
    const unsigned long long bits = static_cast<unsigned long long>(std::stoll(value));
    if (bits >> 62) out.insert(static_cast<unsigned>(bits >> 62));
  }
  return out;
}

// A 16-bit tile at bf16 64x4096x4096: legal under the rule and the schedule rule, compiled for
// sm_90a through the tuner's path without spills or ptxas warnings; its PTX.
std::string clean_ptx_at_m64(const tuner::Jit& jit, const WgmmaConfig& tile) {
  const Problem p{64, 4096, 4096, Dtype::bf16, Epilogue::bias_gelu};
  const Config config = from_wgmma(tile);
  EXPECT_TRUE(wgmma_family().check(config, kSm90a.limits, tile.predicted_registers()).ok());
  EXPECT_TRUE(check_schedule(wgmma_family(), config, p, kSm90a).ok());
  expect_compiles_clean(jit, p, kernel_config(config));
  return ptx_of(to_wgmma(kernel_config(config)), p.dtype, p.epilogue);
}

// The narrow tile (BN = 32) and the deep rings: 64 x 32 with 16 stages in a 1x2 cluster, 128 x 32
// with two consumers walking the tiles, 64 x 32 split 2, and 64 x 64 with 12 stages through the
// TMA store compile for sm_90a without spills or ptxas warnings. The narrow kernel issues four
// m64n32k16 wgmmas per 64-deep stage and describes A in the 128-byte swizzle and B in the
// 64-byte one; a 64-column kernel describes both in the 128-byte swizzle and has no m64n32 wgmma.
TEST(WgmmaNvrtc, NarrowAndDeepRingKernelsCompileWithoutSpills) {
  const fs::path cache = fs::temp_directory_path() / ("coalesce-wgmma-narrow-" + std::to_string(getpid()));
  fs::remove_all(cache);
  const tuner::Jit jit(cache, wgmma_family().nvrtc_arch(kSm90a));
  //                                   bm  bn  bk   s wg cm cn  p  g ts sk
  const WgmmaConfig tiles[] = {{64, 32, 64, 16, 1, 1, 2, 0, 8, 0},
                               {128, 32, 64, 8, 2, 1, 1, 1, 8, 0},
                               {64, 32, 64, 8, 1, 1, 1, 0, 8, 0, 2},
                               {64, 64, 64, 12, 1, 1, 1, 1, 8, 1}};
  for (const WgmmaConfig& tile : tiles) {
    SCOPED_TRACE(config_name(from_wgmma(tile), Dtype::bf16, Epilogue::bias_gelu));
    const std::string ptx = clean_ptx_at_m64(jit, tile);
    if (tile.bn == 32) {
      EXPECT_EQ(count(ptx, "wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16"), 4 * tile.m_iters());
      EXPECT_EQ(descriptor_layouts(ptx), (std::set<unsigned>{1, 2}));
    } else {
      EXPECT_EQ(count(ptx, "m64n32k16"), 0);
      EXPECT_EQ(descriptor_layouts(ptx), std::set<unsigned>{1});
    }
  }
  fs::remove_all(cache);
}

// Two consumers taking alternate K slices of the whole tile (k_interleave): the GPU test's tiles
// (64 x 32 with 16 stages in a 1x2 cluster, 64 x 64 persistent through the TMA store, 128 x 128
// in a 2x1 cluster, 64 x 32 split 2) compile for sm_90a without spills or ptxas warnings; each
// thread of consumer 1 hands its accumulators over in 16-byte shared stores and consumer 0's
// thread reads them back in as many 16-byte loads, which the same tile without k_interleave has
// none of (128 x 64 with two consumers of 64 rows each). With k_interleave = 2 (the same tiles)
// each consumer stores and loads half as many, and the kernel holds both consumers' code: as
// many in all.
TEST(WgmmaNvrtc, InterleavedConsumerKernelsCompileWithoutSpills) {
  const fs::path cache = fs::temp_directory_path() / ("coalesce-wgmma-interleave-" + std::to_string(getpid()));
  fs::remove_all(cache);
  const tuner::Jit jit(cache, wgmma_family().nvrtc_arch(kSm90a));
  //                                   bm   bn  bk   s wg cm cn  p  g ts sk pp rd ew stk ki
  const WgmmaConfig tiles[] = {{64, 32, 64, 16, 2, 1, 2, 0, 8, 0, 1, 0, 0, 0, 0, 1},
                               {64, 64, 64, 12, 2, 1, 1, 1, 8, 1, 1, 0, 0, 0, 0, 1},
                               {128, 128, 64, 4, 2, 2, 1, 0, 8, 0, 1, 0, 0, 0, 0, 1},
                               {64, 32, 64, 8, 2, 1, 1, 0, 8, 0, 2, 0, 0, 0, 0, 1},
                               {64, 32, 64, 16, 2, 1, 2, 0, 8, 0, 1, 0, 0, 0, 0, 2},
                               {64, 64, 64, 12, 2, 1, 1, 1, 8, 1, 1, 0, 0, 0, 0, 2},
                               {128, 128, 64, 4, 2, 2, 1, 0, 8, 0, 1, 0, 0, 0, 0, 2},
                               {64, 32, 64, 8, 2, 1, 1, 0, 8, 0, 2, 0, 0, 0, 0, 2},
                               {128, 64, 64, 8, 2, 1, 1, 0, 8, 0}};
  for (const WgmmaConfig& tile : tiles) {
    SCOPED_TRACE(config_name(from_wgmma(tile), Dtype::bf16, Epilogue::bias_gelu));
    const std::string ptx = clean_ptx_at_m64(jit, tile);
    const int units = tile.k_interleave ? tile.accumulators() / 4 : 0;
    EXPECT_EQ(count(ptx, "st.shared.v4.f32"), units);
    EXPECT_EQ(count(ptx, "ld.shared.v4.f32"), units);
  }
  fs::remove_all(cache);
}

// The swapped tile (swap_ab): 16, 32, 48 and 64 rows by 64 columns, 64 and 48 by 128 with two
// consumers, 32 by 64 split 2, and 64-column tiles on two consumers taking alternate K slices
// (k_interleave 1 and 2, 48 rows with and without split-K, 16 and 64 rows; 32 and 16 rows as a
// 2x1 cluster's pair sharing B by K rows) compile for sm_90a
// without spills or ptxas warnings; the PTX issues m64nBMk16 wgmmas with A transposed and B not
// (imm-trans-a 1, imm-trans-b 0), four per 64-deep stage and consumer, and none of the plain
// tile's m64n64k16. The interleaved kernels hand their sums over through shared memory.
TEST(WgmmaNvrtc, SwappedKernelsCompileWithoutSpills) {
  const fs::path cache = fs::temp_directory_path() / ("coalesce-wgmma-swapped-" + std::to_string(getpid()));
  fs::remove_all(cache);
  const tuner::Jit jit(cache, wgmma_family().nvrtc_arch(kSm90a));
  //                                   bm   bn  bk   s wg cm cn  p  g ts sk pp rd ew stk ki sab
  const WgmmaConfig tiles[] = {{16, 64, 64, 8, 1, 1, 1, 0, 8, 0, 1, 0, 0, 0, 0, 0, 1},
                               {32, 64, 64, 16, 1, 1, 1, 0, 8, 0, 1, 0, 0, 0, 0, 0, 1},
                               {64, 64, 64, 12, 1, 1, 1, 1, 8, 0, 1, 0, 0, 0, 0, 0, 1},
                               {64, 128, 64, 6, 2, 1, 1, 1, 8, 0, 1, 0, 0, 0, 0, 0, 1},
                               {32, 64, 64, 8, 1, 1, 1, 0, 8, 0, 2, 0, 0, 0, 0, 0, 1},
                               {48, 64, 64, 8, 1, 1, 1, 0, 8, 0, 1, 0, 0, 0, 0, 0, 1},
                               {48, 64, 64, 16, 1, 1, 1, 1, 8, 0, 1, 0, 0, 0, 0, 0, 1},
                               {48, 128, 64, 8, 2, 1, 1, 0, 8, 0, 1, 0, 0, 0, 0, 0, 1},
                               {48, 64, 64, 8, 2, 1, 1, 0, 8, 0, 1, 0, 0, 0, 0, 2, 1},
                               {48, 64, 64, 12, 2, 1, 1, 1, 8, 0, 1, 0, 0, 0, 0, 1, 1},
                               {48, 64, 64, 8, 2, 1, 1, 0, 8, 0, 2, 0, 0, 0, 0, 2, 1},
                               {16, 64, 64, 16, 2, 1, 1, 0, 8, 0, 1, 0, 0, 0, 0, 2, 1},
                               {64, 64, 64, 8, 2, 1, 1, 1, 8, 0, 1, 0, 0, 0, 0, 2, 1},
                               {32, 64, 64, 8, 2, 2, 1, 0, 8, 0, 1, 0, 0, 0, 0, 2, 1},
                               {16, 64, 64, 16, 2, 2, 1, 1, 8, 0, 1, 0, 0, 0, 0, 2, 1}};
  for (const WgmmaConfig& tile : tiles) {
    SCOPED_TRACE(config_name(from_wgmma(tile), Dtype::bf16, Epilogue::bias_gelu));
    ASSERT_TRUE(tile.check().ok()) << tile.check().why;
    const std::string ptx = clean_ptx_at_m64(jit, tile);
    // The 2x1 pair loads its half of B's K rows into both blocks' slots (one multicast copy of
    // B per slice) and A into its own; without a cluster no copy is multicast.
    EXPECT_EQ(count(ptx, ".multicast::cluster"), tile.cluster_m == 2 ? 1 : 0);
    const std::string op = "wgmma.mma_async.sync.aligned.m64n" + std::to_string(tile.bm) + "k16.f32.bf16.bf16";
    EXPECT_EQ(count(ptx, op), 4);
    EXPECT_EQ(count(ptx, "p, 1, 1, 1, 0;"), 4);
    EXPECT_EQ(count(ptx, "p, 1, 1, 0, 1;"), 0);
    // k_interleave's hand-off of f32 sums through shared memory, float4 by float4 (BM / 8 a
    // thread, stored and loaded once each: k_interleave 2 hands over half as each consumer
    // stores its other half); no 16-byte shared stores or loads without it.
    const int units = tile.k_interleave ? tile.bm / 8 : 0;
    EXPECT_EQ(count(ptx, "st.shared.v4.f32"), units);
    EXPECT_EQ(count(ptx, "ld.shared.v4.f32"), units);
  }
  fs::remove_all(cache);
}

// Split-K reduced in the tile's cluster (reduce = 2): the tuner compiles each factor (kernel_config
// keeps it), without spills or ptxas warnings; the PTX sends the sums with asynchronous
// distributed shared-memory stores that complete on the adder's barrier, with no cluster-scope
// release (no fence) and no cluster barrier with release semantics (its arrival is relaxed, its
// wait deferred), stores C's 16-bit pairs itself and no f32 partials to global memory.
TEST(WgmmaNvrtc, ClusterReducedKernelsCompileWithoutSpills) {
  const fs::path cache = fs::temp_directory_path() / ("coalesce-wgmma-cluster-" + std::to_string(getpid()));
  fs::remove_all(cache);
  const tuner::Jit jit(cache, wgmma_family().nvrtc_arch(kSm90a));
  //                                   bm   bn  bk  s wg cm cn  p  g ts sk pp rd
  const WgmmaConfig tiles[] = {{64, 64, 64, 6, 1, 1, 1, 0, 8, 0, 3, 0, 2},
                               {64, 128, 64, 6, 1, 1, 1, 0, 8, 0, 8, 0, 2},
                               {128, 128, 64, 4, 2, 1, 1, 0, 8, 0, 2, 0, 2}};
  for (const WgmmaConfig& tile : tiles) {
    const Problem p{64, 4096, 4096, Dtype::bf16, Epilogue::bias_gelu};
    const Config config = from_wgmma(tile);
    SCOPED_TRACE(config_name(config, p.dtype, p.epilogue));
    ASSERT_TRUE(wgmma_family().check(config, kSm90a.limits, tile.predicted_registers()).ok());
    ASSERT_TRUE(check_schedule(wgmma_family(), config, p, kSm90a).ok());
    EXPECT_EQ(kernel_config(config), config);
    EXPECT_EQ(workspace_bytes(config, p, kSm90a), 0);
    const Geometry g = wgmma_family().geometry(config, p, kSm90a);
    EXPECT_EQ(g.grid_z, static_cast<unsigned>(tile.split));
    EXPECT_EQ(g.cluster_z, static_cast<unsigned>(tile.split));
    EXPECT_EQ(g.cluster_x * g.cluster_y, 1u);
    expect_compiles_clean(jit, p, config);

    const std::string ptx = ptx_of(tile, p.dtype, p.epilogue);
    EXPECT_GE(count(ptx, "st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.f32"), 1);
    EXPECT_EQ(count(ptx, "st.shared::cluster"), 0);
    EXPECT_EQ(count(ptx, ".release.cluster"), count(ptx, "fence.mbarrier_init.release.cluster"));  // only the init's
    EXPECT_EQ(count(ptx, "fence.acq_rel"), 0);
    EXPECT_EQ(count(ptx, "barrier.cluster.arrive.relaxed;"), 1);
    EXPECT_EQ(count(ptx, "barrier.cluster.wait.acquire;"), 2);  // the consumers' and the producer warpgroup's
    EXPECT_EQ(count(ptx, "barrier.cluster.arrive.release"), 0);
    EXPECT_GE(count(ptx, "st.global.u32"), 1);  // C's 16-bit pairs
    EXPECT_EQ(count(ptx, "st.global.v2.f32"), 0);  // no partial sums in global memory
  }
  fs::remove_all(cache);
}

// Stream-K kernels (kStreamKParam): the GPU test's four tiles and the 8192 winner's tile (two
// m64 blocks per consumer, 128 accumulators a thread, the most a fix-up adds into), in bf16 and f16,
// compile for sm_90a without spills or ptxas warnings; the PTX raises flags with a release
// store and waits with acquire loads, which the same tile without stream-K has none of.
TEST(WgmmaNvrtc, StreamKKernelsCompileWithoutSpills) {
  const fs::path cache = fs::temp_directory_path() / ("coalesce-wgmma-stream-k-" + std::to_string(getpid()));
  fs::remove_all(cache);
  const tuner::Jit jit(cache, wgmma_family().nvrtc_arch(kSm90a));
  //                                   bm   bn  bk  s wg cm cn  p  g ts sk pp rd ew stk
  const WgmmaConfig tiles[] = {{128, 256, 64, 3, 2, 1, 1, 1, 8, 1, 1, 0, 0, 0, 4},
                               {256, 128, 64, 3, 2, 1, 1, 1, 8, 1, 1, 0, 0, 0, 2},
                               {128, 128, 64, 4, 2, 1, 1, 1, 8, 0, 1, 0, 0, 0, 2},
                               {64, 128, 64, 6, 1, 1, 1, 1, 8, 0, 1, 0, 0, 0, 4},
                               {64, 64, 64, 5, 1, 1, 1, 1, 8, 0, 1, 0, 0, 0, 4}};
  for (const WgmmaConfig& tile : tiles)
    for (Dtype d : {Dtype::bf16, Dtype::f16}) {
      const Problem p{64, 4096, 4096, d, Epilogue::bias_gelu};  // 16 to 32 tiles: each S shares its own way
      const Config config = from_wgmma(tile);
      SCOPED_TRACE(config_name(config, d, p.epilogue));
      ASSERT_TRUE(check_schedule(wgmma_family(), config, p, kSm90a).ok());
      expect_compiles_clean(jit, p, config);

      const std::string ptx = ptx_of(tile, d, p.epilogue);
      EXPECT_GE(count(ptx, "st.release.gpu.global.u32"), 1);
      EXPECT_GE(count(ptx, "ld.acquire.gpu.global.u32"), 1);
      EXPECT_GE(count(ptx, "st.global.v4.f32"), 1);  // a piece's sums into the block's slot
      WgmmaConfig whole = tile;
      whole.stream_k = 0;
      const std::string plain = ptx_of(whole, d, p.epilogue);
      EXPECT_EQ(count(plain, "st.release.gpu"), 0);
      EXPECT_EQ(count(plain, "ld.acquire.gpu"), 0);
    }
  fs::remove_all(cache);
}

// A kernel with planted hazards, as tests/gpu/wgmma_test.cu instantiates them with nvcc.
std::string hazard_source(int hazards) {
  return "#include \"kernels/wgmma/gemm.cuh\"\n"
         "using Tile = coalesce::WgmmaTile<128, 128, 64, 4, 2, 1, 1, 1, 8, 1>;\n"
         "extern \"C\" __global__ void __launch_bounds__(384, 1) k(const __grid_constant__ coalesce::TensorMap a,\n"
         "    const __grid_constant__ coalesce::TensorMap b, const __grid_constant__ coalesce::TensorMap c,\n"
         "    const coalesce::bf16_t* bias, coalesce::bf16_t* C, float* workspace, int M, int N, int K) {\n"
         "  coalesce::wgmma_gemm_device<Tile, coalesce::EpilogueBias, coalesce::GemmOf<coalesce::Dtype::bf16>, " +
         std::to_string(hazards) + ">(&a, &b, &c, bias, C, workspace, M, N, K);\n}\n";
}

TEST(WgmmaNvrtc, EachPlantedHazardChangesOneInstruction) {
  const std::string clean = ptx_of(hazard_source(kWgmmaHazardNone));
  EXPECT_EQ(count(clean, "wgmma.wait_group.sync.aligned 1;"), 1);
  EXPECT_EQ(count(clean, "fence.proxy.async.shared::cta;"), 1);
  const int clean_arrivals = count(clean, "mbarrier.arrive.shared::cta.b64");

  // Waits until 4 (the stage count) groups are pending instead of 1 before a release: no wait.
  const std::string shallow = ptx_of(hazard_source(kWgmmaHazardShallowWait));
  EXPECT_EQ(count(shallow, "wgmma.wait_group.sync.aligned 1;"), 0);
  EXPECT_EQ(count(shallow, "wgmma.wait_group.sync.aligned 4;"), 1);
  EXPECT_EQ(count(shallow, "fence.proxy.async.shared::cta;"), 1);

  const std::string unfenced = ptx_of(hazard_source(kWgmmaHazardNoProxyFence));
  EXPECT_EQ(count(unfenced, "fence.proxy.async.shared::cta;"), 0);
  EXPECT_EQ(count(unfenced, "wgmma.wait_group.sync.aligned 1;"), 1);

  // One release right after the full barrier instead of two after the MMAs (in the loop and
  // after it).
  const std::string early = ptx_of(hazard_source(kWgmmaHazardEarlyRelease));
  EXPECT_EQ(count(early, "mbarrier.arrive.shared::cta.b64"), clean_arrivals - 1);
  EXPECT_EQ(count(early, "fence.proxy.async.shared::cta;"), 1);

  // The release of the slot just committed, after the same wait_group 1, in place of the two
  // releases of the slot before it; its warpgroup's named barrier comes with it.
  const std::string in_flight = ptx_of(hazard_source(kWgmmaHazardReleaseInFlight));
  EXPECT_EQ(count(in_flight, "mbarrier.arrive.shared::cta.b64"), clean_arrivals - 1);
  EXPECT_EQ(count(in_flight, "wgmma.wait_group.sync.aligned 1;"), 1);
  EXPECT_EQ(count(in_flight, "bar.sync"), count(clean, "bar.sync") + 1);
  EXPECT_EQ(count(in_flight, "fence.proxy.async.shared::cta;"), 1);
}

}  // namespace
}  // namespace coalesce

namespace coalesce {
namespace {

// The serialization check above can fail: a kernel that writes an accumulator between two wgmmas
// of one pipeline stage is serialized by ptxas (C7511 here), and the Jit's log says so.
TEST(WgmmaNvrtc, TheLogReportsSerializedWgmmas) {
  const fs::path cache = fs::temp_directory_path() / ("coalesce-wgmma-c7515-" + std::to_string(getpid()));
  fs::remove_all(cache);
  const tuner::Jit jit(cache, wgmma_family().nvrtc_arch(kSm90a));
  const std::string source =
      "#include \"kernels/wgmma/ptx.cuh\"\n"
      "#include \"kernels/wgmma/ops.cuh\"\n"
      "extern \"C\" __global__ void __launch_bounds__(128, 1)\n"
      "serialized(float* out, unsigned long long a, unsigned long long b) {\n"
      "  float d[32];\n"
      "  coalesce::sm90::wgmma_fence();\n"
      "  coalesce::sm90::Wgmma<64>::mma<true>(d, a, b, 0);\n"
      "  d[0] = 1.0f;  // an accumulator defined while the first wgmma may be in flight\n"
      "  coalesce::sm90::Wgmma<64>::mma<true>(d, a, b, 1);\n"
      "  coalesce::sm90::wgmma_commit_group();\n"
      "  coalesce::sm90::wgmma_wait_group<0>();\n"
      "  for (int i = 0; i < 32; ++i) out[threadIdx.x * 32 + i] = d[i];\n"
      "}\n";
  const tuner::CompileResult r = jit.compile("serialized", source);
  fs::remove_all(cache);
  ASSERT_TRUE(r.ok) << r.log;
  EXPECT_NE(r.log.find("instructions are serialized"), std::string::npos) << r.log;
}

}  // namespace
}  // namespace coalesce
