// The wgmma plug-in (kernels/wgmma/family.cpp): names, the sweep it lists, geometry, tensor maps
// and emission, every answer WgmmaConfig's.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "harness/tma.hpp"
#include "kernels/wgmma/builtin.hpp"
#include "kernels/wgmma/family.hpp"

using namespace coalesce;

namespace {

const Family& wgmma() { return wgmma_family(); }

Problem problem(int m, int n, int k, Dtype d = Dtype::bf16) { return {m, n, k, d, Epilogue::bias_gelu}; }

Target h200() { return Target{9, 0, true, DeviceLimits{}, 132}; }

}  // namespace

TEST(WgmmaFamily, IsRegisteredAfterSimt) {
  ASSERT_EQ(find_family("wgmma"), &wgmma());
  EXPECT_EQ(families().front()->name(), "simt");
  EXPECT_EQ(wgmma().kernel_header(), "kernels/wgmma/gemm.cuh");
}

TEST(WgmmaFamily, NamesRoundTrip) {
  const WgmmaConfig c;
  const std::string name = config_name(from_wgmma(c), Dtype::bf16, Epilogue::bias_gelu);
  EXPECT_EQ(name, "wgmma_bf16_bm128_bn256_bk64_s4_wg2_cm1_cn1_p0_g8_ts0_bias_gelu");
  EXPECT_EQ(params_json(from_wgmma(c)),
            R"({"bm":128,"bn":256,"bk":64,"stages":4,"consumers":2,"cluster_m":1,"cluster_n":1,"persistent":0,"group_m":8,"tma_store":0})");
  for (Dtype d : {Dtype::bf16, Dtype::f16})
    for (Epilogue e : all_epilogues()) {
      const WgmmaConfig k{64, 192, 64, 6, 1, 1, 1, 1, 16, 1};
      auto parsed = parse_config_name(config_name(from_wgmma(k), d, e));
      ASSERT_TRUE(parsed.has_value());
      EXPECT_EQ(parsed->config, from_wgmma(k));
      EXPECT_EQ(parsed->dtype, d);
      EXPECT_EQ(parsed->epilogue, e);
    }
  EXPECT_THROW(to_wgmma(Config{"simt", {}}), std::invalid_argument);
}

TEST(WgmmaFamily, ComputesBf16F16AndTf32OnSm90aOnly) {
  EXPECT_TRUE(wgmma().supports(Dtype::bf16).ok());
  EXPECT_TRUE(wgmma().supports(Dtype::f16).ok());
  EXPECT_TRUE(wgmma().supports(Dtype::tf32).ok());
  const Verdict f32 = wgmma().supports(Dtype::f32);
  EXPECT_EQ(f32.violation, Violation::dtype);
  EXPECT_NE(std::string(f32.why).find("no f32 path"), std::string::npos) << f32.why;

  EXPECT_TRUE(wgmma().supports(h200()).ok());
  EXPECT_EQ(wgmma().supports(Target{9, 0, false, {}}).violation, Violation::arch);  // sm_90
  EXPECT_EQ(wgmma().supports(Target{8, 0, false, {}}).violation, Violation::arch);
  EXPECT_EQ(wgmma().supports(Target{10, 0, true, {}}).violation, Violation::arch);
  EXPECT_EQ(wgmma().nvrtc_arch(h200()), "sm_90a");
}

// The sweep at 4096: about six hundred legal configs, every listed combination either a
// config or refused by the rule, every name distinct.
TEST(WgmmaFamily, SweepAt4096) {
  const Problem p = problem(4096, 4096, 4096);
  const DeviceLimits d;
  int legal = 0, pruned = 0, non_configs = 0;
  int legal_1x1 = 0, legal_1x2 = 0, legal_2x1 = 0, unclustered_2x1_tiles = 0, unclustered_no_pingpong = 0;
  int legal_stream_k = 0, persistent_plain = 0;
  std::set<std::string> names;
  for (const Config& c : wgmma().sweep_configs(p)) {
    EXPECT_TRUE(names.insert(config_name(c, p.dtype, p.epilogue)).second);
    if (!wgmma().check(c).ok()) {
      ++non_configs;
      continue;
    }
    const Verdict v = wgmma().check(c, d, wgmma().predict(c, d).registers);
    if (v.ok() && wgmma().check_problem(c, p).ok()) {
      ++legal;
      const WgmmaConfig w = to_wgmma(c);
      if (w.stream_k) {
        ++legal_stream_k;
      } else if (w.cluster_size() == 1) {
        if (w.persistent && !w.pingpong && w.epilogue_slots == 0 && (w.consumers == 2 || w.accumulators() <= 64))
          ++persistent_plain;
        ++legal_1x1;
        if (!w.pingpong) ++unclustered_no_pingpong;
        if (!w.pingpong && w.bn % 128 == 0) ++unclustered_2x1_tiles;
      }
      legal_1x2 += w.cluster_n == 2;
      legal_2x1 += w.cluster_m == 2;
      // Two consumers take the SM's registers (384 threads x 168); small one-consumer tiles
      // may share an SM.
      const Resources r = wgmma().predict(c, d);
      if (w.consumers == 2) EXPECT_EQ(r.blocks_per_sm, 1);
      EXPECT_GE(r.blocks_per_sm, 1);
    } else {
      EXPECT_EQ(v.violation, Violation::smem) << config_name(c, p.dtype, p.epilogue);
      ++pruned;
    }
  }
  // Without a cluster: the 168 legal configs without ping-pong, and 47 with it (bm 64 with every
  // bn and bm 128 up to bn 192, persistent, two consumers, 4 stage counts, both stores, less 9
  // that exceed shared memory); 20 with epilogue warps (two consumers, TMA store, both grids:
  // 128 x 64 at 4 stage counts, 128 x 128 at 3, 128 x 192 at 3 stages only, 256 x 64 at 2),
  // whose other 28 two-consumer TMA-store tiles exceed shared memory with a slot per 64 columns.
  EXPECT_EQ(legal_1x1, 168 + 47 + 20);
  // A cluster of two changes no block's shared memory or registers: every unclustered config
  // without ping-pong has a legal 1x2 twin, and those with BN 128 or 256 a 2x1 twin.
  EXPECT_EQ(legal_1x2, unclustered_no_pingpong);
  EXPECT_EQ(legal_2x1, unclustered_2x1_tiles);
  EXPECT_EQ(unclustered_no_pingpong, 168 + 20);
  // Stream-K: three twins (stream_k 2, 4 and 8) of every persistent unclustered config without
  // ping-pong or epilogue warps whose fix-up fits (two consumers, or one with at most 64
  // accumulators), the same in shared memory and registers. The schedule rule, not checked
  // here, keeps one of the three at 4096^3, where every block shares at S = 2.
  EXPECT_EQ(legal_stream_k, 3 * persistent_plain);
  EXPECT_EQ(legal_stream_k, 3 * 58);
  EXPECT_EQ(legal, 499 + 174);
  // The stream-K twins of the 22 such configs that exceed shared memory.
  EXPECT_EQ(pruned, 221 + 3 * 22);
  EXPECT_EQ(non_configs, 4 * 6144 - 673 - 287);  // the lists give 24,576 combinations
}

// The tf32 sweep takes the same lists with BK = 32: the transposed tile's rule keeps the
// unclustered direct-store tiles without ping-pong or epilogue warps whose consumers own 64 or 128
// columns (BN 64 with one consumer, 128 with one or two, 256 with two; 4 pairs) and whose
// accumulators fit (not BM 256 with 128 columns per consumer): 10 tiles x 4 stage counts x
// both grids = 80, of which 12 exceed shared memory (6 stages at 256 x 64, 64 x 256; 5 and 6 at
// 256 x 128, 128 x 256; both grids).
TEST(WgmmaFamily, SweepAt4096InTf32) {
  const Problem p = problem(4096, 4096, 4096, Dtype::tf32);
  const DeviceLimits d;
  int legal = 0, pruned = 0, non_configs = 0;
  std::set<std::string> names;
  for (const Config& c : wgmma().sweep_configs(p)) {
    EXPECT_TRUE(names.insert(config_name(c, p.dtype, p.epilogue)).second);
    const WgmmaConfig w = to_wgmma(c);
    EXPECT_EQ(w.bk, 32);
    if (!wgmma().check(c).ok()) {
      ++non_configs;
      continue;
    }
    EXPECT_TRUE(wgmma().check_problem(c, p).ok());
    const Verdict v = wgmma().check(c, d, wgmma().predict(c, d).registers);
    if (v.ok()) {
      ++legal;
      EXPECT_EQ(w.cluster_size() + w.tma_store + w.pingpong + w.epilogue_slots, 1);
    } else {
      EXPECT_EQ(v.violation, Violation::smem) << config_name(c, p.dtype, p.epilogue);
      ++pruned;
    }
  }
  EXPECT_EQ(legal, 68);
  EXPECT_EQ(pruned, 12);
  EXPECT_EQ(non_configs, 4 * 6144 - 80);  // the lists give 24,576 combinations, as in bf16 (stream-K is 16-bit only)
}

// Deep rings (8, 12 and 16 stages), the narrow 64 x 32 and 128 x 32 tiles and the consumers
// that take alternate K slices (k_interleave) are listed only where the problem has few tiles:
// at N = K = 4096 with M = 64 the rule keeps those that fit the H200's 227 KB (64 x 32 at every
// depth; 64 x 64 at 8 and 12; 128 x 32, 128 x 64 and 64 x 128 at 8); at 4096^3 none is listed.
TEST(WgmmaFamily, DeepRingsAndTheNarrowTileForProblemsOfFewTiles) {
  EXPECT_TRUE(wgmma_deep_rings(problem(64, 4096, 4096)));
  EXPECT_TRUE(wgmma_deep_rings(problem(512, 512, 512)));
  EXPECT_TRUE(wgmma_deep_rings(problem(256, 4096, 4096)));
  EXPECT_FALSE(wgmma_deep_rings(problem(512, 4096, 4096)));
  EXPECT_FALSE(wgmma_deep_rings(problem(4096, 4096, 4096)));
  for (const Problem& big_or_tf32 : {problem(4096, 4096, 4096), problem(64, 4096, 4096, Dtype::tf32)})
    for (const Config& c : wgmma().sweep_configs(big_or_tf32)) {
      EXPECT_LE(to_wgmma(c).stages, 6);
      EXPECT_GE(to_wgmma(c).bn, 64);
      EXPECT_EQ(to_wgmma(c).k_interleave, 0);
      EXPECT_EQ(to_wgmma(c).swap_ab, 0);
    }

  const Problem p = problem(64, 4096, 4096);
  const DeviceLimits d;
  std::set<std::string> legal, interleaved;
  int deep = 0;
  std::set<std::string> swapped;
  for (const Config& c : wgmma().sweep_configs(p)) {
    const WgmmaConfig w = to_wgmma(c);
    if (w.swap_ab) {
      if (wgmma().check(c).ok() && wgmma().check(c, d, w.predicted_registers()).ok())
        swapped.insert(std::to_string(w.bm) + "x" + std::to_string(w.bn) + " s" + std::to_string(w.stages) +
                       (w.k_interleave ? " ki" + std::to_string(w.k_interleave) : "") +
                       (w.cluster_m == 2 ? " cm2" : ""));
      continue;
    }
    if (w.stages <= 6) continue;
    ++deep;
    EXPECT_TRUE(w.stages == 8 || w.stages == 12 || w.stages == 16);
    EXPECT_TRUE((w.bm == 64 || w.bm == 128) && (w.bn == 32 || w.bn == 64 || w.bn == 128));
    EXPECT_NE(w.k_interleave, 1);  // listed as 2, each consumer finishing half the tile (runs LJ, LK)
    if (wgmma().check(c).ok() && wgmma().check(c, d, w.predicted_registers()).ok())
      (w.k_interleave ? interleaved : legal)
          .insert(std::to_string(w.bm) + "x" + std::to_string(w.bn) + " s" + std::to_string(w.stages));
  }
  EXPECT_EQ(deep, 2 * 3 * 3 * 2 * 2 * 2 * 2 * 2 * 2);  // bm, bn, stages, consumers, cm, cn, persistent, store, k_interleave 0 or 2
  EXPECT_EQ(legal, (std::set<std::string>{"64x32 s8", "64x32 s12", "64x32 s16", "64x64 s8", "64x64 s12", "64x128 s8",
                                          "128x32 s8", "128x64 s8"}));
  // Two consumers taking alternate K slices fit the same rings (their hand-off of BM x BN f32
  // sums beside the ring), the 64-row tiles among them, which two consumers splitting rows cannot take.
  EXPECT_EQ(interleaved, legal);
  // The swapped tiles: 16, 32, 48 and 64 rows by 64 columns (one consumer), 128 (two) or 64 on
  // two consumers taking alternate K slices (ki2, beside the ring their BM x 64 f32 hand-off),
  // 4 to 16 stages, where they fit (a 64 x 128 stage is 24 KB, 16 of them too many); no 2x1 pair
  // (built and tested, not listed: slower wherever it ran, runs KA and LY).
  std::set<std::string> expected;
  for (int bm : {16, 32, 48, 64})
    for (int bn : {64, 128})
      for (int ki : {0, 2})
        for (int s : {4, 6, 8, 12, 16})
          if (!(ki && bn == 128) && (bm + bn) * 128 * s + (ki ? bm * bn * 4 : 0) + 2048 <= d.smem_per_block_optin)
            expected.insert(std::to_string(bm) + "x" + std::to_string(bn) + " s" + std::to_string(s) + (ki ? " ki2" : ""));
  EXPECT_EQ(swapped, expected);
  EXPECT_TRUE(expected.count("48x64 s16") && expected.count("48x64 s12 ki2") && !expected.count("48x64 s16 ki2"));
  WgmmaConfig deepest{.bm = 64, .bn = 64, .stages = 12, .consumers = 1, .tma_store = 1};
  EXPECT_TRUE(deepest.check(d).ok());
  EXPECT_LE(deepest.smem_bytes(), d.smem_per_block_optin);
}

// The narrow tile: B's slot is one 32-column chunk of 64-byte rows (the 64-byte swizzle, in
// the tensor map too), and it is refused with the schedules that assume 128-byte rows.
TEST(WgmmaFamily, TheNarrowTileTakesB64ByteRows) {
  WgmmaConfig c{.bm = 64, .bn = 32, .stages = 16, .consumers = 1, .cluster_n = 2, .tma_store = 0};
  EXPECT_TRUE(c.check().ok()) << c.check().why;
  EXPECT_EQ(c.b_chunk_cols(), 32);
  EXPECT_EQ(c.b_swizzle_bytes(), 64);
  EXPECT_EQ(c.b_stage_bytes(), 64 * 32 * 2);
  const TensorMapSpec b = wgmma().tensor_map(from_wgmma(c), problem(64, 4096, 4096), KernelArg::b_tensor_map);
  EXPECT_EQ(b.box_cols, 32);
  EXPECT_EQ(b.swizzle_bytes, 64);
  WgmmaConfig wide = c;
  wide.bn = 64;
  EXPECT_EQ(wide.b_chunk_cols(), 64);
  EXPECT_EQ(wide.b_swizzle_bytes(), 128);
  for (auto refuse : {+[](WgmmaConfig& x) { x.tma_store = 1; }, +[](WgmmaConfig& x) { x.cluster_n = 1, x.cluster_m = 2; },
                      +[](WgmmaConfig& x) { x.cluster_n = 1, x.split = 2, x.reduce = 1; },
                      +[](WgmmaConfig& x) { x.cluster_n = 1, x.persistent = 1, x.stream_k = 2; }}) {
    WgmmaConfig r = c;
    refuse(r);
    EXPECT_EQ(r.check().violation, Violation::shape);
  }
  WgmmaConfig split = c;
  split.cluster_n = 1;
  split.split = 2;
  EXPECT_TRUE(split.check().ok()) << split.check().why;
  WgmmaConfig odd = c;
  odd.bn = 96;
  EXPECT_EQ(odd.check().violation, Violation::divisibility);
}

// k_interleave: two consumers, each over the whole tile and the ring slots of its parity, so
// the 64-row tile takes them; the tile's sums are handed over through BM x BN x 4 bytes of
// shared memory. Refused with one consumer, an odd ring, and the schedules not built for it.
TEST(WgmmaFamily, InterleavedConsumersTakeTheWholeTile) {
  WgmmaConfig c{.bm = 64, .bn = 32, .stages = 16, .consumers = 2, .cluster_n = 2, .tma_store = 0};
  EXPECT_EQ(c.check().violation, Violation::divisibility);  // 32 rows per consumer
  c.k_interleave = 1;
  ASSERT_TRUE(c.check().ok()) << c.check().why;
  ASSERT_TRUE(c.check(DeviceLimits{}).ok()) << c.check(DeviceLimits{}).why;
  EXPECT_EQ(c.rows_per_consumer(), 64);
  EXPECT_EQ(c.consumer_row(1), 0);
  EXPECT_EQ(c.m_iters(), 1);
  EXPECT_EQ(c.accumulators(), 16);
  EXPECT_EQ(c.interleave_bytes(), 64 * 32 * 4);
  EXPECT_EQ(c.smem_bytes(), 16 * (64 * 64 + 64 * 32) * 2 + 64 * 32 * 4 + 16 * 2 * 8 + 1024);
  EXPECT_EQ(c.threads(), 384);
  WgmmaConfig big{.bm = 128, .bn = 128, .stages = 4, .consumers = 2, .tma_store = 1, .k_interleave = 1};
  EXPECT_TRUE(big.check().ok()) << big.check().why;
  EXPECT_EQ(big.rows_per_consumer(), 128);
  EXPECT_EQ(big.accumulators(), 128);
  EXPECT_EQ(big.store_bytes(), 128 * 128 * 2);  // one C tile, stored by consumer 0
  for (auto refuse : {+[](WgmmaConfig& x) { x.consumers = 1; }, +[](WgmmaConfig& x) { x.stages = 15; },
                      +[](WgmmaConfig& x) { x.k_interleave = 3; },
                      +[](WgmmaConfig& x) { x.cluster_n = 1, x.persistent = 1, x.pingpong = 1; },
                      +[](WgmmaConfig& x) { x.cluster_n = 1, x.split = 2, x.reduce = 1; },
                      +[](WgmmaConfig& x) { x.cluster_n = 1, x.persistent = 1, x.stream_k = 2; },
                      +[](WgmmaConfig& x) { x.bn = 64, x.bk = 32, x.cluster_n = 1; }}) {
    WgmmaConfig r = c;
    refuse(r);
    EXPECT_FALSE(r.check().ok()) << "refused: " << r.check().why;
  }
  WgmmaConfig split = c;
  split.cluster_n = 1;
  split.split = 3;
  EXPECT_TRUE(split.check().ok()) << split.check().why;
  WgmmaConfig slots = big;
  slots.epilogue_slots = 2;
  EXPECT_EQ(slots.check().violation, Violation::shape);
  // Named only when on; the name parses back.
  const Config on = from_wgmma(c);
  const std::string name = config_name(on, Dtype::bf16, Epilogue::bias_gelu);
  EXPECT_EQ(name, "wgmma_bf16_bm64_bn32_bk64_s16_wg2_cm1_cn2_p0_g8_ts0_ki1_bias_gelu");
  auto parsed = parse_config_name(name);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->config, on);
  // k_interleave = 2 (each consumer finishing half the rows): the same rules and hand-off bytes,
  // and the TMA store's box of C is the 8 rows of a warp's half.
  WgmmaConfig halves = big;
  halves.k_interleave = 2;
  EXPECT_TRUE(halves.check().ok()) << halves.check().why;
  EXPECT_EQ(halves.interleave_bytes(), big.interleave_bytes());
  EXPECT_EQ(halves.smem_bytes(), big.smem_bytes());
  EXPECT_EQ(halves.c_box_rows(), 8);
  EXPECT_EQ(big.c_box_rows(), 16);
  const Problem p = problem(512, 512, 512);
  EXPECT_EQ(wgmma().tensor_map(from_wgmma(halves), p, KernelArg::c_tensor_map).box_rows, 8);
  EXPECT_EQ(wgmma().tensor_map(from_wgmma(big), p, KernelArg::c_tensor_map).box_rows, 16);
  WgmmaConfig one = halves;
  one.consumers = 1;
  EXPECT_FALSE(one.check().ok());
  c.k_interleave = 2;
  const std::string name2 = config_name(from_wgmma(c), Dtype::bf16, Epilogue::bias_gelu);
  EXPECT_EQ(name2, "wgmma_bf16_bm64_bn32_bk64_s16_wg2_cm1_cn2_p0_g8_ts0_ki2_bias_gelu");
  ASSERT_TRUE(parse_config_name(name2).has_value());
  EXPECT_EQ(parse_config_name(name2)->config, from_wgmma(c));
  c.k_interleave = 0;
  EXPECT_EQ(config_name(from_wgmma(c), Dtype::bf16, Epilogue::bias_gelu).find("ki"), std::string::npos);
  EXPECT_NE(wgmma().tile_type(on).find(", 1>"), std::string::npos) << wgmma().tile_type(on);
}

// The swapped tile: C^T = B^T A^T, wgmma's M side the tile's 64 columns per consumer and its N
// side the tile's 16 to 64 rows; accumulators BM / 2 a thread; the slots as the plain tile's.
// Refused beyond its first build's schedules, with other BM or BN, and in tf32.
TEST(WgmmaFamily, TheSwappedTileHasFewRows) {
  WgmmaConfig c{.bm = 32, .bn = 64, .stages = 16, .consumers = 1, .tma_store = 0, .swap_ab = 1};
  ASSERT_TRUE(c.check().ok()) << c.check().why;
  ASSERT_TRUE(c.check(DeviceLimits{}).ok()) << c.check(DeviceLimits{}).why;
  EXPECT_TRUE(c.swapped());
  EXPECT_EQ(c.mma_rows(), 64);
  EXPECT_EQ(c.mma_cols(), 32);
  EXPECT_EQ(c.m_iters(), 1);
  EXPECT_EQ(c.accumulators(), 16);
  EXPECT_EQ(c.a_stage_bytes(), 32 * 128);
  EXPECT_EQ(c.b_stage_bytes(), 64 * 128);
  const TensorMapSpec a = wgmma().tensor_map(from_wgmma(c), problem(64, 4096, 4096), KernelArg::a_tensor_map);
  EXPECT_EQ(a.box_rows, 32);
  WgmmaConfig two = c;
  two.consumers = 2;
  two.bn = 128;
  EXPECT_TRUE(two.check().ok()) << two.check().why;
  EXPECT_EQ(two.consumer_row(1), 64);
  for (auto refuse : {+[](WgmmaConfig& x) { x.bm = 8; }, +[](WgmmaConfig& x) { x.bm = 128; },
                      +[](WgmmaConfig& x) { x.bn = 128; }, +[](WgmmaConfig& x) { x.tma_store = 1; },
                      +[](WgmmaConfig& x) { x.cluster_n = 2; }, +[](WgmmaConfig& x) { x.split = 2, x.reduce = 1; },
                      +[](WgmmaConfig& x) { x.bk = 32; }, +[](WgmmaConfig& x) { x.swap_ab = 2; }}) {
    WgmmaConfig r = c;
    refuse(r);
    EXPECT_FALSE(r.check().ok()) << r.bm << "x" << r.bn;
  }
  WgmmaConfig split = c;
  split.split = 3;
  EXPECT_TRUE(split.check().ok()) << split.check().why;
  const std::string name = config_name(from_wgmma(c), Dtype::bf16, Epilogue::bias_gelu);
  EXPECT_EQ(name, "wgmma_bf16_bm32_bn64_bk64_s16_wg1_cm1_cn1_p0_g8_ts0_sab1_bias_gelu");
  auto parsed = parse_config_name(name);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(to_wgmma(parsed->config).swap_ab, 1);
  EXPECT_NE(wgmma().tile_type(from_wgmma(c)).find(", 0, 1>"), std::string::npos) << wgmma().tile_type(from_wgmma(c));
}

// The 48-row swapped tile (wgmma's n48; cuBLAS's bf16 512^3 tile, run LC) and two consumers
// taking alternate K slices of one 64-column swapped tile: its accumulators, slots, A box and
// hand-off area; k_interleave needs the 64 columns in all and two consumers; BM 48's last row of
// tiles at 512 holds 32 rows (TMA zero-fills the other 16, the store skips them).
TEST(WgmmaFamily, TheSwappedTileTakes48RowsAndInterleavedConsumers) {
  WgmmaConfig c{.bm = 48, .bn = 64, .stages = 8, .consumers = 1, .tma_store = 0, .swap_ab = 1};
  ASSERT_TRUE(c.check().ok()) << c.check().why;
  EXPECT_EQ(c.mma_cols(), 48);
  EXPECT_EQ(c.accumulators(), 24);
  EXPECT_EQ(c.a_stage_bytes(), 48 * 128);
  EXPECT_EQ(c.a_stage_bytes() % 1024, 0);  // every slot keeps the 128-byte swizzle's 1024-byte period
  EXPECT_EQ(c.tile_pairs_m(512), 11);
  EXPECT_EQ(c.grid_blocks(512, 512), 88);
  const TensorMapSpec a = wgmma().tensor_map(from_wgmma(c), problem(512, 512, 512), KernelArg::a_tensor_map);
  EXPECT_EQ(a.box_rows, 48);

  WgmmaConfig halves = c;
  halves.consumers = 2;
  halves.k_interleave = 2;
  ASSERT_TRUE(halves.check().ok()) << halves.check().why;
  ASSERT_TRUE(halves.check(DeviceLimits{}).ok()) << halves.check(DeviceLimits{}).why;
  EXPECT_EQ(halves.rows_per_consumer(), 64);
  EXPECT_EQ(halves.consumer_row(1), 0);
  EXPECT_EQ(halves.accumulators(), 24);
  EXPECT_EQ(halves.interleave_bytes(), 48 * 64 * 4);
  WgmmaConfig one_half = halves;
  one_half.k_interleave = 1;
  EXPECT_TRUE(one_half.check().ok()) << one_half.check().why;
  for (auto refuse : {+[](WgmmaConfig& x) { x.bn = 128; }, +[](WgmmaConfig& x) { x.consumers = 1; },
                      +[](WgmmaConfig& x) { x.stages = 7; }, +[](WgmmaConfig& x) { x.bm = 40; },
                      +[](WgmmaConfig& x) { x.split = 2, x.reduce = 1; }}) {
    WgmmaConfig r = halves;
    refuse(r);
    EXPECT_FALSE(r.check().ok()) << r.bm << "x" << r.bn << " wg" << r.consumers << " s" << r.stages;
  }
  const std::string name = config_name(from_wgmma(halves), Dtype::bf16, Epilogue::bias_gelu);
  EXPECT_EQ(name, "wgmma_bf16_bm48_bn64_bk64_s8_wg2_cm1_cn1_p0_g8_ts0_ki2_sab1_bias_gelu");
  auto parsed = parse_config_name(name);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(to_wgmma(parsed->config).k_interleave, 2);
  EXPECT_EQ(to_wgmma(parsed->config).swap_ab, 1);
}

// The swapped tile in a 2x1 cluster: its two row tiles share B's one 64-column chunk, each block
// loading 32 of a slice's 64 K rows (its TMA box) into both blocks' slots; the grid is whole
// pairs; with two consumers of 64 columns each B's two chunks are split as the plain 2x1 cluster
// splits them; a 1x2 cluster and the plain 64-column tile in a 2x1 one are refused.
TEST(WgmmaFamily, TheSwappedPairSharesBByKRows) {
  WgmmaConfig pair{.bm = 32, .bn = 64, .stages = 8, .consumers = 2, .cluster_m = 2, .tma_store = 0,
                   .k_interleave = 2, .swap_ab = 1};
  ASSERT_TRUE(pair.check().ok()) << pair.check().why;
  ASSERT_TRUE(pair.check(DeviceLimits{}).ok()) << pair.check(DeviceLimits{}).why;
  EXPECT_TRUE(pair.b_split_by_rows());
  EXPECT_EQ(pair.b_box_rows(), 32);
  EXPECT_EQ(wgmma().tensor_map(from_wgmma(pair), problem(512, 512, 512), KernelArg::b_tensor_map).box_rows, 32);
  EXPECT_EQ(wgmma().tensor_map(from_wgmma(pair), problem(512, 512, 512), KernelArg::a_tensor_map).box_rows, 32);
  const Geometry g = wgmma().geometry(from_wgmma(pair), problem(512, 512, 512), h200());
  EXPECT_EQ(g.grid_x, 128u);
  EXPECT_EQ(g.cluster_x, 2u);
  // 100 rows are four 32-row tiles, two pairs (the second pair's second tile past M).
  EXPECT_EQ(pair.grid_blocks(100, 64), 4);
  EXPECT_EQ(pair.grid_blocks(70, 64), 4);
  WgmmaConfig one = pair;
  one.consumers = 1;
  one.k_interleave = 0;
  EXPECT_TRUE(one.check().ok()) << one.check().why;
  EXPECT_TRUE(one.b_split_by_rows());
  WgmmaConfig unpaired = pair;
  unpaired.cluster_m = 1;
  EXPECT_FALSE(unpaired.b_split_by_rows());
  EXPECT_EQ(unpaired.b_box_rows(), 64);
  WgmmaConfig two{.bm = 16, .bn = 128, .stages = 8, .consumers = 2, .cluster_m = 2, .tma_store = 0, .swap_ab = 1};
  EXPECT_TRUE(two.check().ok()) << two.check().why;
  EXPECT_FALSE(two.b_split_by_rows());
  WgmmaConfig a_shared = pair;
  a_shared.cluster_m = 1;
  a_shared.cluster_n = 2;
  EXPECT_EQ(a_shared.check().violation, Violation::shape);
  WgmmaConfig plain{.bm = 64, .bn = 64, .stages = 8, .consumers = 1, .cluster_m = 2, .tma_store = 0};
  EXPECT_EQ(plain.check().violation, Violation::shape);  // the plain tile splits B by chunks only
  const std::string name = config_name(from_wgmma(pair), Dtype::bf16, Epilogue::bias_gelu);
  EXPECT_EQ(name, "wgmma_bf16_bm32_bn64_bk64_s8_wg2_cm2_cn1_p0_g8_ts0_ki2_sab1_bias_gelu");
  ASSERT_TRUE(parse_config_name(name).has_value());
  EXPECT_EQ(to_wgmma(parse_config_name(name)->config).cluster_m, 2);
}

TEST(WgmmaFamily, BuiltinsFitEveryProblemTheFamilyTakes) {
  for (const Problem& p : {problem(4096, 4096, 4096), problem(1024, 1000, 1032, Dtype::f16), problem(1, 8, 8),
                           problem(4096, 4096, 4096, Dtype::tf32), problem(1000, 1004, 1028, Dtype::tf32)}) {
    const auto builtins = wgmma().builtin_configs(p);
    ASSERT_EQ(builtins.size(),
              static_cast<std::size_t>(p.dtype == Dtype::tf32 ? wgmma_builtin::kTf32Count : wgmma_builtin::kCount));
    for (const Config& c : builtins) {
      EXPECT_TRUE(wgmma().check(c, DeviceLimits{}, wgmma().predict(c, DeviceLimits{}).registers).ok());
      EXPECT_TRUE(wgmma().check_problem(c, p).ok());
    }
  }
  // An unaligned 16-bit problem runs on padded copies (below); tf32's transposed tile does not.
  EXPECT_TRUE(wgmma().check_problem(from_wgmma(WgmmaConfig{}), problem(4096, 4095, 4096)).ok());
  EXPECT_EQ(wgmma().check_problem(from_wgmma(wgmma_builtin::kTf32Configs[0]), problem(4096, 4095, 4096, Dtype::tf32))
                .violation,
            Violation::divisibility);
}

// TMA's 16-byte rows: the untransposed 16-bit tile reads rows of 8 elements in place and stages
// any other; the transposed (tf32), swapped and gated ones keep the divisibility rule.
TEST(WgmmaFamily, UnalignedRowsAreStagedIntoPaddedCopies) {
  const Config plain = from_wgmma(WgmmaConfig{});
  EXPECT_EQ(wgmma().row_multiple(plain, problem(4096, 4096, 4096)), 8);
  EXPECT_EQ(wgmma().row_multiple(plain, problem(4096, 4096, 4096, Dtype::f16)), 8);
  EXPECT_EQ(wgmma().row_multiple(from_wgmma(wgmma_builtin::kTf32Configs[0]), problem(64, 64, 64, Dtype::tf32)), 1);
  Problem gated = problem(4096, 4096, 4096);
  gated.epilogue = Epilogue::swiglu;
  EXPECT_EQ(wgmma().row_multiple(plain, gated), 1);
  gated.n = 4100;  // even, so the gated rule is the family's: 16-byte rows of C
  EXPECT_EQ(wgmma().check_problem(plain, gated).violation, Violation::divisibility);

  // 4095 x 4097 x 4100 bf16 bias_gelu: K = 4100 pads to 4104, N = 4097 to 4104.
  const Problem odd = problem(4095, 4097, 4100);
  const Staging s = staging_of(plain, odd, h200());
  EXPECT_EQ(s.kernel, problem(4095, 4104, 4104));
  EXPECT_TRUE(s.a);
  EXPECT_TRUE(s.n);
  EXPECT_EQ(s.family_bytes, 0);
  // A (M x 4104), B (K x 4104), bias (4104), C (M x 4104), each 256-byte aligned, 2 bytes each.
  EXPECT_EQ(s.a_offset, 0);
  EXPECT_EQ(s.b_offset, (4095LL * 4104 * 2 + 255) / 256 * 256);
  EXPECT_EQ(s.bias_offset, (s.b_offset + 4100LL * 4104 * 2 + 255) / 256 * 256);
  EXPECT_EQ(s.residual_offset, -1);
  EXPECT_EQ(s.c_offset, (s.bias_offset + 4104 * 2 + 255) / 256 * 256);
  EXPECT_EQ(s.bytes, s.c_offset + 4095LL * 4104 * 2);
  EXPECT_EQ(workspace_bytes(plain, odd, h200()), s.bytes);

  // Only K unaligned: A is copied, B is read in place (its maps keep K rows), C is stored in place.
  const Staging k_only = staging_of(plain, problem(64, 64, 60), h200());
  EXPECT_TRUE(k_only.a);
  EXPECT_FALSE(k_only.n);
  EXPECT_EQ(k_only.bytes, 64 * 64 * 2);
  // Aligned: nothing staged, the family's own workspace only.
  const Staging none = staging_of(plain, problem(4096, 4096, 4096), h200());
  EXPECT_FALSE(none.any());
  EXPECT_EQ(none.bytes, 0);
  EXPECT_EQ(none.kernel, problem(4096, 4096, 4096));
}

TEST(WgmmaFamily, GeometryIsATileGridOrOneWave) {
  WgmmaConfig c;  // 128 x 256
  const Problem p = problem(4096, 4096, 4096);
  Geometry g = wgmma().geometry(from_wgmma(c), p, h200());
  EXPECT_EQ(g.grid_x, 32u * 16u);
  EXPECT_EQ(g.block_x, 384u);
  EXPECT_EQ(g.smem_bytes, c.smem_bytes());
  EXPECT_EQ(g.cluster_x * g.cluster_y, 1u);
  c.persistent = 1;
  g = wgmma().geometry(from_wgmma(c), p, h200());
  EXPECT_EQ(g.grid_x, 132u);
  // Fewer tiles than SMs: one block per tile.
  g = wgmma().geometry(from_wgmma(c), problem(1024, 1000, 1032), h200());
  EXPECT_EQ(g.grid_x, 8u * 4u);
}

TEST(WgmmaFamily, TensorMapsMatchTheKernelsBoxes) {
  const WgmmaConfig c{256, 128, 64, 4, 2, 1, 1, 0, 8, 1};
  const Problem p = problem(1024, 1000, 1032);
  const Config cfg = from_wgmma(c);
  ASSERT_EQ(wgmma().kernel_args().size(), 10u);
  EXPECT_EQ(wgmma().kernel_args()[0], KernelArg::a_tensor_map);
  EXPECT_EQ(wgmma().kernel_args()[5], KernelArg::workspace);  // split-K's partial sums and counters
  EXPECT_EQ(wgmma().kernel_args()[9], KernelArg::residual);   // last: the other epilogues' kernels keep their code
  const TensorMapSpec a = wgmma().tensor_map(cfg, p, KernelArg::a_tensor_map);
  EXPECT_EQ(a, (TensorMapSpec{KernelArg::a, Element::bf16, 1024, 1032, 256, 64, 128}));
  const TensorMapSpec b = wgmma().tensor_map(cfg, p, KernelArg::b_tensor_map);
  EXPECT_EQ(b, (TensorMapSpec{KernelArg::b, Element::bf16, 1032, 1000, 64, 64, 128}));
  const TensorMapSpec cm = wgmma().tensor_map(cfg, p, KernelArg::c_tensor_map);
  EXPECT_EQ(cm, (TensorMapSpec{KernelArg::c, Element::bf16, 1024, 1000, 16, 64, 128}));
  EXPECT_THROW(wgmma().tensor_map(cfg, p, KernelArg::bias), std::invalid_argument);
  // tf32: every box's inner side is a 128-byte row of 32 f32.
  const Config t = from_wgmma(WgmmaConfig{128, 256, 32, 4, 2, 1, 1, 1, 8, 0});
  const Problem q = problem(1000, 1004, 1028, Dtype::tf32);
  EXPECT_EQ(wgmma().tensor_map(t, q, KernelArg::a_tensor_map),
            (TensorMapSpec{KernelArg::a, Element::f32, 1000, 1028, 128, 32, 128}));
  EXPECT_EQ(wgmma().tensor_map(t, q, KernelArg::b_tensor_map),
            (TensorMapSpec{KernelArg::b, Element::f32, 1028, 1004, 32, 32, 128}));
  EXPECT_EQ(wgmma().tensor_map(t, q, KernelArg::c_tensor_map),
            (TensorMapSpec{KernelArg::c, Element::f32, 1000, 1004, 16, 32, 128}));
  EXPECT_THROW(find_family("simt")->tensor_map(cfg, p, KernelArg::a_tensor_map), std::logic_error);
}

// Every map of every legal sweep config is one the driver takes (its documented rules, checked
// here without a GPU), at the square shape and at the edge shape; a shape the rule refuses
// would be refused by the driver too.
TEST(WgmmaFamily, EveryLegalConfigsTensorMapsAreEncodable) {
  const void* aligned = reinterpret_cast<const void*>(std::uintptr_t{1} << 20);
  for (const Problem& p : {problem(4096, 4096, 4096), problem(1024, 1000, 1032, Dtype::f16),
                           problem(1000, 1004, 1028, Dtype::tf32)})
    for (const Config& c : wgmma().sweep_configs(p)) {
      if (!wgmma().check(c).ok()) continue;
      for (KernelArg map : {KernelArg::a_tensor_map, KernelArg::b_tensor_map, KernelArg::c_tensor_map}) {
        const TensorMapSpec s = wgmma().tensor_map(c, p, map);
        EXPECT_EQ(tensor_map_refusal(s, aligned), "") << describe(s);
      }
    }
  const TensorMapSpec odd = wgmma().tensor_map(from_wgmma(WgmmaConfig{}), problem(4096, 4095, 4096),
                                               KernelArg::b_tensor_map);
  EXPECT_NE(tensor_map_refusal(odd, aligned), "");
  const TensorMapSpec fine = wgmma().tensor_map(from_wgmma(WgmmaConfig{}), problem(64, 64, 64), KernelArg::a_tensor_map);
  EXPECT_NE(tensor_map_refusal(fine, reinterpret_cast<const void*>(std::uintptr_t{8})), "");
}

TEST(WgmmaFamily, DefinesTheKernelThroughItsMacro) {
  const Config c = from_wgmma(WgmmaConfig{});
  EXPECT_EQ(wgmma().tile_type(c), "coalesce::WgmmaTile<128, 256, 64, 4, 2, 1, 1, 0, 8, 0>");
  EXPECT_EQ(wgmma().define_kernel(c, Dtype::f16, Epilogue::bias_relu, "k"),
            "COALESCE_DEFINE_WGMMA_KERNEL(k, coalesce::Dtype::f16, coalesce::WgmmaTile<128, 256, 64, 4, 2, 1, 1, 0, 8, "
            "0>, coalesce::EpilogueFor<coalesce::Epilogue::bias_relu>)");
  // A dtype needs its own kernel: tf32 the one with BK = 32, and the 16-bit dtypes BK = 64.
  EXPECT_THROW(wgmma().define_kernel(c, Dtype::tf32, Epilogue::none, "k"), std::invalid_argument);
  EXPECT_THROW(wgmma().define_kernel(c, Dtype::f32, Epilogue::none, "k"), std::invalid_argument);
  const Config t = from_wgmma(WgmmaConfig{128, 256, 32, 4, 2, 1, 1, 1, 8, 0});
  EXPECT_EQ(wgmma().define_kernel(t, Dtype::tf32, Epilogue::bias_gelu, "k"),
            "COALESCE_DEFINE_WGMMA_KERNEL(k, coalesce::Dtype::tf32, coalesce::WgmmaTile<128, 256, 32, 4, 2, 1, 1, 1, 8, "
            "0>, coalesce::EpilogueFor<coalesce::Epilogue::bias_gelu>)");
  EXPECT_THROW(wgmma().define_kernel(t, Dtype::bf16, Epilogue::none, "k"), std::invalid_argument);
}

// Split-K (kernels/core/family.hpp, kSplitParam): split = 1 is left out of names, params_json and
// the tile type, so every stored wgmma name still means the kernel it named; a split names itself
// "sk" and appends its factor to the tile type.
TEST(WgmmaFamily, SplitIsNamedOnlyWhenItSplits) {
  WgmmaConfig c{64, 64, 64, 6, 1, 1, 1, 0, 8, 0};
  const Config whole = from_wgmma(c);
  EXPECT_EQ(split_slices(whole), 1);
  c.split = 8;
  const Config split = from_wgmma(c);
  EXPECT_EQ(split_slices(split), 8);
  EXPECT_EQ(to_wgmma(split).split, 8);
  const std::string name = config_name(split, Dtype::bf16, Epilogue::bias_gelu);
  EXPECT_EQ(name, "wgmma_bf16_bm64_bn64_bk64_s6_wg1_cm1_cn1_p0_g8_ts0_sk8_bias_gelu");
  for (Dtype d : {Dtype::bf16, Dtype::f16}) {
    auto parsed = parse_config_name(config_name(split, d, Epilogue::bias));
    ASSERT_TRUE(parsed.has_value());
    EXPECT_EQ(parsed->config, split);
    EXPECT_EQ(parsed->dtype, d);
  }
  auto parsed_whole = parse_config_name("wgmma_bf16_bm64_bn64_bk64_s6_wg1_cm1_cn1_p0_g8_ts0_bias_gelu");
  ASSERT_TRUE(parsed_whole.has_value());
  EXPECT_EQ(parsed_whole->config, whole);
  // "sk1" is not the canonical spelling of the unsplit config.
  EXPECT_FALSE(parse_config_name("wgmma_bf16_bm64_bn64_bk64_s6_wg1_cm1_cn1_p0_g8_ts0_sk1_bias_gelu").has_value());
  EXPECT_NE(params_json(split).find(R"("tma_store":0,"split":8})"), std::string::npos) << params_json(split);
  EXPECT_EQ(params_json(whole).find("split"), std::string::npos);
  EXPECT_EQ(wgmma().tile_type(whole), "coalesce::WgmmaTile<64, 64, 64, 6, 1, 1, 1, 0, 8, 0>");
  EXPECT_EQ(wgmma().tile_type(split), "coalesce::WgmmaTile<64, 64, 64, 6, 1, 1, 1, 0, 8, 0, 8>");
  // Every factor above 1 compiles as one kernel: the factor is the grid's z extent.
  EXPECT_EQ(wgmma().tile_type(kernel_config(split)), "coalesce::WgmmaTile<64, 64, 64, 6, 1, 1, 1, 0, 8, 0, 2>");
  EXPECT_EQ(kernel_config(whole), whole);
  // The built-ins hold no split (the tuner adds split variants; the compiler's fallback needs none).
  for (const Config& b : wgmma().builtin_configs(problem(64, 4096, 4096))) EXPECT_EQ(split_slices(b), 1);
}

TEST(WgmmaFamily, SplitSlicesKInTheGridAndAsksForPartials) {
  WgmmaConfig c{64, 64, 64, 6, 1, 1, 1, 0, 8, 0};
  c.split = 3;
  const Config split = from_wgmma(c);
  const Problem skinny = problem(128, 4096, 4096);
  const Geometry g = wgmma().geometry(split, skinny, h200());
  EXPECT_EQ(g.grid_z, 3u);
  EXPECT_EQ(g.grid_x, 2u * 64u);  // 2 x 64 tiles of 64 x 64, each in 3 slices
  EXPECT_EQ(g.blocks(), 3LL * 128);
  EXPECT_EQ(wgmma().geometry(from_wgmma(WgmmaConfig{}), skinny, h200()).grid_z, 1u);
  EXPECT_EQ(workspace_bytes(split, skinny), 3LL * 128 * 4096 * 4);
  EXPECT_EQ(workspace_bytes(from_wgmma(WgmmaConfig{}), skinny), 0);
  EXPECT_TRUE(wgmma().check(split, DeviceLimits{}, wgmma().predict(split, DeviceLimits{}).registers).ok());
  EXPECT_TRUE(wgmma().check_problem(split, skinny).ok());
  EXPECT_TRUE(check_schedule(wgmma(), split, skinny, h200()).ok());
  // 4096²: 512 tiles of 128 x 256 already fill the 132 SMs.
  WgmmaConfig big;
  big.split = 2;
  EXPECT_EQ(check_schedule(wgmma(), from_wgmma(big), problem(4096, 4096, 4096), h200()).violation,
            Violation::schedule);
}

// The split rules, WgmmaConfig's: 1..32 slices, only with the direct store (f32 partials in the
// workspace, C stored from registers after the reduction) and without a persistent grid; at least one
// K step per slice; the partials below 2^31 elements.
TEST(WgmmaFamily, SplitRules) {
  WgmmaConfig c{64, 64, 64, 6, 1, 1, 1, 0, 8, 0};
  for (int s : {1, 2, 3, 8, 32}) {
    c.split = s;
    EXPECT_TRUE(c.check().ok()) << s;
  }
  for (int s : {0, -1, 33}) {
    c.split = s;
    EXPECT_EQ(c.check().violation, Violation::shape) << s;
  }
  c.split = 2;
  c.tma_store = 1;
  Verdict v = c.check();
  EXPECT_EQ(v.violation, Violation::shape);
  EXPECT_NE(std::string(v.why).find("tma_store = 0"), std::string::npos) << v.why;
  c.tma_store = 0;
  c.persistent = 1;
  v = c.check();
  EXPECT_EQ(v.violation, Violation::shape);
  EXPECT_NE(std::string(v.why).find("persistent = 0"), std::string::npos) << v.why;
  c.split = 1;  // unsplit, both stay legal
  EXPECT_TRUE(c.check().ok());
  c.tma_store = 1;
  EXPECT_TRUE(c.check().ok());

  c = WgmmaConfig{64, 64, 64, 6, 1, 1, 1, 0, 8, 0};
  c.split = 16;
  EXPECT_TRUE(c.check_problem(8, 4096, 1000, Dtype::bf16).ok());  // 16 steps of 64 (the last partial)
  EXPECT_EQ(c.check_problem(8, 4096, 960, Dtype::bf16).violation, Violation::shape);  // 15 steps
  c.split = 32;
  EXPECT_EQ(c.check_problem(1 << 13, 1 << 13, 4096, Dtype::f16).violation, Violation::shape);  // 2^31 partials
  c.split = 31;
  EXPECT_TRUE(c.check_problem(1 << 13, 1 << 13, 4096, Dtype::f16).ok());
  // The family answers with the same rule.
  c.split = 2;
  c.tma_store = 1;
  EXPECT_EQ(wgmma().check(from_wgmma(c)).violation, Violation::shape);
}

// Ping-pong is unnamed at 0 like split at 1: every stored name keeps its kernel; a ping-pong
// config names itself "pp1" and its tile type spells out split (1) before the flag.
TEST(WgmmaFamily, PingPongIsNamedOnlyWhenOn) {
  WgmmaConfig c{128, 128, 64, 4, 2, 1, 1, 1, 8, 1};
  const Config cooperative = from_wgmma(c);
  c.pingpong = 1;
  const Config pingpong = from_wgmma(c);
  EXPECT_EQ(config_name(cooperative, Dtype::bf16, Epilogue::bias_gelu),
            "wgmma_bf16_bm128_bn128_bk64_s4_wg2_cm1_cn1_p1_g8_ts1_bias_gelu");
  const std::string name = config_name(pingpong, Dtype::bf16, Epilogue::bias_gelu);
  EXPECT_EQ(name, "wgmma_bf16_bm128_bn128_bk64_s4_wg2_cm1_cn1_p1_g8_ts1_pp1_bias_gelu");
  auto parsed = parse_config_name(name);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->config, pingpong);
  EXPECT_EQ(to_wgmma(parsed->config).pingpong, 1);
  EXPECT_FALSE(parse_config_name("wgmma_bf16_bm128_bn128_bk64_s4_wg2_cm1_cn1_p1_g8_ts1_pp0_bias_gelu").has_value());
  EXPECT_NE(params_json(pingpong).find(R"("tma_store":1,"pingpong":1})"), std::string::npos) << params_json(pingpong);
  EXPECT_EQ(params_json(cooperative).find("pingpong"), std::string::npos);
  EXPECT_EQ(wgmma().tile_type(cooperative), "coalesce::WgmmaTile<128, 128, 64, 4, 2, 1, 1, 1, 8, 1>");
  EXPECT_EQ(wgmma().tile_type(pingpong), "coalesce::WgmmaTile<128, 128, 64, 4, 2, 1, 1, 1, 8, 1, 1, 1>");
  // A persistent grid of one block per SM, as without ping-pong.
  EXPECT_EQ(wgmma().geometry(pingpong, problem(4096, 4096, 4096), h200()).grid_x, 132u);
  EXPECT_EQ(wgmma().geometry(pingpong, problem(4096, 4096, 4096), h200()).smem_bytes,
            to_wgmma(pingpong).smem_bytes());
}

// A cluster of two launches whole clusters along x: one block per tile of each pair, the edge's
// pairs counted whole; a persistent grid of whole clusters; a 1x2 cluster's A boxes are half
// the tile's rows. Named by cm/cn like any config.
TEST(WgmmaFamily, ClustersLaunchWholePairs) {
  WgmmaConfig c{128, 256, 64, 3, 2, 1, 2, 0, 8, 1};
  const Config pair = from_wgmma(c);
  EXPECT_EQ(config_name(pair, Dtype::bf16, Epilogue::bias_gelu), "wgmma_bf16_bm128_bn256_bk64_s3_wg2_cm1_cn2_p0_g8_ts1_bias_gelu");
  EXPECT_EQ(wgmma().tile_type(pair), "coalesce::WgmmaTile<128, 256, 64, 3, 2, 1, 2, 0, 8, 1>");
  Geometry g = wgmma().geometry(pair, problem(4096, 4096, 4096), h200());
  EXPECT_EQ(g.grid_x, 32u * 16u);  // 32 x 8 pairs
  EXPECT_EQ(g.cluster_x, 2u);
  EXPECT_EQ(g.cluster_y, 1u);
  // 1024 x 1000: 8 x 4 tiles, the fourth column of tiles pairs with one past N.
  g = wgmma().geometry(pair, problem(1024, 1000, 1032), h200());
  EXPECT_EQ(g.grid_x, 8u * 2u * 2u);
  // 1000 rows: 8 tile rows; 2x1 pairs them in 4.
  c.cluster_n = 1, c.cluster_m = 2;
  g = wgmma().geometry(from_wgmma(c), problem(1000, 1024, 1032), h200());
  EXPECT_EQ(g.grid_x, 4u * 2u * 4u);
  // 1100 rows: 9 tile rows, 5 pairs, the last with one tile past M.
  g = wgmma().geometry(from_wgmma(c), problem(1100, 1024, 1032), h200());
  EXPECT_EQ(g.grid_x, 5u * 2u * 4u);
  // Persistent: one block per SM, whole clusters.
  c.persistent = 1;
  g = wgmma().geometry(from_wgmma(c), problem(4096, 4096, 4096), h200());
  EXPECT_EQ(g.grid_x, 132u);
  Target odd = h200();
  odd.sm_count = 131;
  EXPECT_EQ(wgmma().geometry(from_wgmma(c), problem(4096, 4096, 4096), odd).grid_x, 130u);
  // The A boxes: all BM rows with 2x1, half of them with 1x2.
  const Problem p = problem(4096, 4096, 4096);
  EXPECT_EQ(wgmma().tensor_map(from_wgmma(c), p, KernelArg::a_tensor_map).box_rows, 128);
  c.cluster_m = 1, c.cluster_n = 2;
  EXPECT_EQ(wgmma().tensor_map(from_wgmma(c), p, KernelArg::a_tensor_map).box_rows, 64);
}

// Epilogue warps are unnamed at 0 slots like ping-pong: "ew3" names a config whose consumers hand
// 3 slots of 64 columns to the producer warpgroup's other warps. Its rule, its shared memory and
// the space's twin of each tile.
TEST(WgmmaFamily, EpilogueWarpsAreNamedOnlyWhenOnAndFitTheirSlots) {
  WgmmaConfig c{128, 192, 64, 3, 2, 1, 1, 1, 8, 1};
  const Config own = from_wgmma(c);
  c.epilogue_slots = 3;
  const Config warps = from_wgmma(c);
  EXPECT_EQ(config_name(own, Dtype::bf16, Epilogue::bias_gelu),
            "wgmma_bf16_bm128_bn192_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_bias_gelu");
  const std::string name = config_name(warps, Dtype::bf16, Epilogue::bias_gelu);
  EXPECT_EQ(name, "wgmma_bf16_bm128_bn192_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_ew3_bias_gelu");
  auto parsed = parse_config_name(name);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->config, warps);
  EXPECT_EQ(wgmma().tile_type(own), "coalesce::WgmmaTile<128, 192, 64, 3, 2, 1, 1, 1, 8, 1>");
  EXPECT_EQ(wgmma().tile_type(warps), "coalesce::WgmmaTile<128, 192, 64, 3, 2, 1, 1, 1, 8, 1, 1, 0, 0, 3>");
  // The slots replace the C staging tile: 3 x 128 rows x 64 f32 against 128 x 192 x 2 bytes,
  // and two more mbarriers per slot. The threads stay 384 (the epilogue warps are the producer
  // warpgroup's), with a setmaxnreg split of 104 and 200 that fills the launch's registers.
  EXPECT_EQ(c.store_bytes(), 3 * 128 * 64 * 4);
  const WgmmaConfig staged{128, 192, 64, 3, 2, 1, 1, 1, 8, 1};
  EXPECT_EQ(c.smem_bytes() - staged.smem_bytes(), 3 * 128 * 64 * 4 - 128 * 192 * 2 + 3 * 2 * 8);
  EXPECT_EQ(c.threads(), 384);
  EXPECT_EQ(c.register_split(), 384 * 168);
  const DeviceLimits d;
  EXPECT_TRUE(c.check(d, 168).ok());
  EXPECT_EQ(c.check(d, 160).violation, Violation::registers);  // fewer than the split takes
  // A fourth stage does not fit beside three slots.
  c.stages = 4;
  EXPECT_EQ(c.check(d).violation, Violation::smem);
  c.stages = 3;
  // Only with two consumers, the TMA store, no split and no ping-pong; at most BN / 64 slots.
  for (auto broken : {+[](WgmmaConfig& w) { w.consumers = 1, w.bm = 64; }, +[](WgmmaConfig& w) { w.tma_store = 0; },
                      +[](WgmmaConfig& w) { w.split = 2, w.persistent = 0, w.tma_store = 0; },
                      +[](WgmmaConfig& w) { w.pingpong = 1; }, +[](WgmmaConfig& w) { w.epilogue_slots = 4; },
                      +[](WgmmaConfig& w) { w.epilogue_slots = -1; }}) {
    WgmmaConfig w = c;
    broken(w);
    EXPECT_EQ(w.check().violation, Violation::shape) << w.check().why;
  }
  // Fewer slots than the tile's chunks are configs (the GPU test's hazard tile has one).
  c.epilogue_slots = 1;
  EXPECT_TRUE(c.check(d).ok());
  // The space lists each tile's twin with a slot per 64 columns, right after it.
  const auto space = wgmma().sweep_configs(problem(4096, 4096, 4096));
  const auto at = std::find(space.begin(), space.end(), own);
  ASSERT_NE(at, space.end());
  ASSERT_NE(at + 1, space.end());
  EXPECT_EQ(*(at + 1), warps);
}

// The reduction in the kernel (kReduceParam) is unnamed at 0, so every stored split name keeps
// its kernel; "rd1" only with a split; its workspace holds the partial sums and one counter per
// block of x after them.
TEST(WgmmaFamily, ReduceInKernelIsNamedOnlyWhenOnAndCountsItsCounters) {
  WgmmaConfig c{64, 64, 64, 5, 1, 1, 1, 0, 8, 0};
  c.split = 4;
  const Config separate = from_wgmma(c);
  c.reduce = 1;
  const Config in_kernel = from_wgmma(c);
  EXPECT_EQ(config_name(separate, Dtype::bf16, Epilogue::bias_gelu),
            "wgmma_bf16_bm64_bn64_bk64_s5_wg1_cm1_cn1_p0_g8_ts0_sk4_bias_gelu");
  const std::string name = config_name(in_kernel, Dtype::bf16, Epilogue::bias_gelu);
  EXPECT_EQ(name, "wgmma_bf16_bm64_bn64_bk64_s5_wg1_cm1_cn1_p0_g8_ts0_sk4_rd1_bias_gelu");
  auto parsed = parse_config_name(name);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->config, in_kernel);
  EXPECT_FALSE(reduces_in_kernel(separate));
  EXPECT_TRUE(reduces_in_kernel(in_kernel));
  EXPECT_EQ(wgmma().tile_type(in_kernel), "coalesce::WgmmaTile<64, 64, 64, 5, 1, 1, 1, 0, 8, 0, 4, 0, 1>");
  const Problem p = problem(64, 4096, 4096);
  EXPECT_EQ(workspace_bytes(separate, p), 4LL * 4 * 64 * 4096);
  EXPECT_EQ(workspace_bytes(in_kernel, p), 4LL * 4 * 64 * 4096 + 4 * 64);  // 64 tiles of 64 x 64
  // Only with a split.
  c.split = 1;
  EXPECT_EQ(c.check().violation, Violation::shape);
  c.split = 2;
  c.reduce = 3;
  EXPECT_EQ(c.check().violation, Violation::shape);
  // At most 64 accumulators per consumer thread: 128 x 128 with one consumer has 128.
  WgmmaConfig big{128, 128, 64, 6, 1, 1, 1, 0, 8, 0};
  big.split = 2;
  EXPECT_TRUE(big.check().ok());
  big.reduce = 1;
  EXPECT_EQ(big.check().violation, Violation::registers);
  big.consumers = 2;  // 64 rows each: 64 accumulators
  EXPECT_TRUE(big.check().ok());
}

// reduce = 2 adds the slices' sums in the tile's cluster: named rd2, its kernel specialized on
// the split (kernel_config keeps it), launched with the slices as a cluster along z, with no
// workspace; at most 8 slices, and shared memory for a slot per slice of its share of the sums.
TEST(WgmmaFamily, ReduceInClusterIsNamedLaunchedAsAClusterAndNeedsNoWorkspace) {
  WgmmaConfig c{64, 64, 64, 6, 1, 1, 1, 0, 8, 0};
  c.split = 3;
  c.reduce = 2;
  ASSERT_TRUE(c.check().ok()) << c.check().why;
  const Config config = from_wgmma(c);
  const std::string name = config_name(config, Dtype::bf16, Epilogue::bias_gelu);
  EXPECT_EQ(name, "wgmma_bf16_bm64_bn64_bk64_s6_wg1_cm1_cn1_p0_g8_ts0_sk3_rd2_bias_gelu");
  ASSERT_TRUE(parse_config_name(name).has_value());
  EXPECT_EQ(parse_config_name(name)->config, config);
  EXPECT_TRUE(reduces_in_kernel(config));
  EXPECT_TRUE(reduces_in_cluster(config));
  EXPECT_FALSE(reduces_through_counters(config));
  EXPECT_FALSE(workspace_needs_zeros(config));
  EXPECT_EQ(kernel_config(config), config);
  EXPECT_EQ(wgmma().tile_type(config), "coalesce::WgmmaTile<64, 64, 64, 6, 1, 1, 1, 0, 8, 0, 3, 0, 2>");
  const Problem p = problem(64, 4096, 4096);
  EXPECT_EQ(workspace_bytes(config, p), 0);
  const Geometry g = wgmma().geometry(config, p, Target{});
  EXPECT_EQ(g.grid_x, 64u);
  EXPECT_EQ(g.grid_z, 3u);
  EXPECT_EQ(g.cluster_z, 3u);
  EXPECT_EQ(g.cluster_x * g.cluster_y, 1u);
  // 32 accumulators a thread, 16 pairs; each of 3 blocks adds 6 of them (the last 4): 3 slots of
  // 6 pairs for 128 threads, 8 bytes a pair, where the TMA store would stage C; one more barrier.
  EXPECT_EQ(c.pairs_per_block(), 6);
  EXPECT_EQ(c.store_bytes(), 3 * 6 * 128 * 8);
  WgmmaConfig separate = c;
  separate.reduce = 0;
  EXPECT_EQ(c.smem_bytes(), separate.smem_bytes() + 3 * 6 * 128 * 8 + 8);
  // At most 8 slices (a portable cluster); reduce = 1 may take more.
  c.split = 9;
  EXPECT_EQ(c.check().violation, Violation::shape);
  c.reduce = 1;
  EXPECT_TRUE(c.check().ok());
  // Not with a split of 1, nor with a multicast cluster (which takes no split at all).
  c.reduce = 2;
  c.split = 1;
  EXPECT_EQ(c.check().violation, Violation::shape);
  c.split = 2;
  c.cluster_m = 2;
  EXPECT_EQ(c.check().violation, Violation::shape);
  // The rule counts the slots' shared memory: 128 x 256 with 2 consumers and 4 stages fits
  // without them and not with them.
  WgmmaConfig wide{128, 256, 64, 4, 2, 1, 1, 0, 8, 0};
  wide.split = 2;
  ASSERT_TRUE(wide.check(DeviceLimits{}).ok()) << wide.check(DeviceLimits{}).why;
  wide.reduce = 2;
  EXPECT_EQ(wide.check(DeviceLimits{}).violation, Violation::smem);
}

// Stream-K (kStreamKParam) is unnamed at 0, so every stored name keeps its kernel; "stk4" names
// a config that shares the tiles past the last whole wave among up to 4 blocks each. Its rule,
// its grid (one wave of the GPU, fewer where the shared tiles have fewer pieces), its workspace
// (a tile's f32 sums and a flag per block) and its schedule rule (refused where the tiles fill
// whole waves).
TEST(WgmmaFamily, StreamKNamesItsGridWorkspaceAndRules) {
  //                bm   bn  bk  s wg cm cn  p  g ts sk pp rd ew stk
  WgmmaConfig c{128, 256, 64, 3, 2, 1, 1, 1, 8, 1, 1, 0, 0, 0, 4};
  const Config sk = from_wgmma(c);
  const std::string name = config_name(sk, Dtype::bf16, Epilogue::bias_gelu);
  EXPECT_EQ(name, "wgmma_bf16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_stk4_bias_gelu");
  auto parsed = parse_config_name(name);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->config, sk);
  EXPECT_EQ(stream_k_segments(sk), 4);
  EXPECT_TRUE(workspace_needs_zeros(sk));
  EXPECT_EQ(wgmma().tile_type(sk), "coalesce::WgmmaTile<128, 256, 64, 3, 2, 1, 1, 1, 8, 1, 1, 0, 0, 0, 4>");
  EXPECT_EQ(params_json(sk).find("stream_k"), params_json(sk).rfind("stream_k"));
  EXPECT_NE(params_json(sk).find("\"stream_k\":4"), std::string::npos);
  WgmmaConfig plain = c;
  plain.stream_k = 0;
  EXPECT_EQ(params_json(from_wgmma(plain)).find("stream_k"), std::string::npos);
  EXPECT_EQ(stream_k_segments(from_wgmma(plain)), 0);
  EXPECT_FALSE(workspace_needs_zeros(from_wgmma(plain)));

  // 4096^3: 512 tiles on 132 SMs, one block each; 116 tiles past the third whole wave, all 132
  // blocks sharing them from S = 2 on, so S = 4 is refused as the same schedule.
  const Problem square = problem(4096, 4096, 4096);
  EXPECT_EQ(wgmma().geometry(sk, square, h200()).grid_x, 132u);
  EXPECT_EQ(workspace_bytes(sk, square, h200()), 132LL * (128 * 256 * 4 + 4));
  EXPECT_EQ(check_schedule(wgmma(), sk, square, h200()).violation, Violation::schedule);
  WgmmaConfig two = c;
  two.stream_k = 2;
  EXPECT_TRUE(check_schedule(wgmma(), from_wgmma(two), square, h200()).ok());
  // A 64 x 128 tile at M = 64: 32 tiles, fewer than the SMs, each shared among 4 blocks (or 2,
  // or 8 but capped by the 132 SMs); with K = 128, two steps, among 2 at most, so S = 4 is S = 2.
  WgmmaConfig skinny_tile{64, 128, 64, 6, 1, 1, 1, 1, 8, 0, 1, 0, 0, 0, 4};
  const Problem skinny = problem(64, 4096, 4096);
  EXPECT_EQ(wgmma().geometry(from_wgmma(skinny_tile), skinny, h200()).grid_x, 128u);
  EXPECT_EQ(wgmma().geometry(from_wgmma(skinny_tile), problem(64, 4096, 128), h200()).grid_x, 64u);
  EXPECT_TRUE(check_schedule(wgmma(), from_wgmma(skinny_tile), skinny, h200()).ok());
  EXPECT_EQ(check_schedule(wgmma(), from_wgmma(skinny_tile), problem(64, 4096, 128), h200()).violation,
            Violation::schedule);
  skinny_tile.stream_k = 2;
  EXPECT_EQ(wgmma().geometry(from_wgmma(skinny_tile), skinny, h200()).grid_x, 64u);
  skinny_tile.stream_k = 8;  // capped by the SMs, and still more than S = 4's 128 blocks
  EXPECT_EQ(wgmma().geometry(from_wgmma(skinny_tile), skinny, h200()).grid_x, 132u);
  EXPECT_TRUE(check_schedule(wgmma(), from_wgmma(skinny_tile), skinny, h200()).ok());
  // A tile two blocks fit per SM (64 x 64, one consumer, 5 stages): up to two per SM share.
  const Config small_tile = from_wgmma(WgmmaConfig{64, 64, 64, 5, 1, 1, 1, 1, 8, 0, 1, 0, 0, 0, 4});
  EXPECT_EQ(wgmma().predict(small_tile, DeviceLimits{}).blocks_per_sm, 2);
  EXPECT_EQ(wgmma().geometry(small_tile, skinny, h200()).grid_x, 256u);  // 64 tiles x 4
  EXPECT_EQ(wgmma().geometry(small_tile, problem(128, 4096, 4096), h200()).grid_x, 264u);
  // Compiled with more registers than the model's 80, two blocks still fit up to 128 a thread;
  // beyond, the grid of the model's two per SM could not be resident: refused (run EE met
  // 3-per-SM grids of kernels that fit 2 before this rule).
  EXPECT_TRUE(wgmma().check(small_tile, DeviceLimits{}, 128).ok());
  EXPECT_EQ(wgmma().check(small_tile, DeviceLimits{}, 129).violation, Violation::occupancy);
  WgmmaConfig plain_small = to_wgmma(small_tile);
  plain_small.stream_k = 0;
  EXPECT_TRUE(wgmma().check(from_wgmma(plain_small), DeviceLimits{}, 129).ok());
  // 12 x 11 tiles of 128 x 128 fill 132 SMs exactly: nothing to share. On 131 SMs one is left.
  const Config square_tile = from_wgmma(WgmmaConfig{128, 128, 64, 4, 2, 1, 1, 1, 8, 0, 1, 0, 0, 0, 2});
  const Problem whole_waves = problem(1536, 1408, 4096);
  EXPECT_EQ(check_schedule(wgmma(), square_tile, whole_waves, h200()).violation, Violation::schedule);
  Target odd = h200();
  odd.sm_count = 131;
  EXPECT_TRUE(check_schedule(wgmma(), square_tile, whole_waves, odd).ok());
  EXPECT_EQ(workspace_bytes(square_tile, whole_waves, odd), 131LL * (128 * 128 * 4 + 4));
  // A workspace over the target's limit is pruned.
  Target small = h200();
  small.max_workspace_bytes = 1 << 20;
  EXPECT_EQ(check_schedule(wgmma(), from_wgmma(two), square, small).violation, Violation::workspace);

  // The rule: 0 or 2..32 segments, and only on a persistent 16-bit grid without a cluster,
  // split-K, ping-pong or epilogue warps.
  EXPECT_TRUE(c.check().ok());
  for (int bad : {1, -1, 33}) {
    WgmmaConfig b = c;
    b.stream_k = bad;
    EXPECT_EQ(b.check().violation, Violation::shape) << bad;
  }
  auto refused = [&](auto change) {
    WgmmaConfig b = c;
    change(b);
    return b.check().violation == Violation::shape;
  };
  EXPECT_TRUE(refused([](WgmmaConfig& b) { b.persistent = 0; }));
  EXPECT_TRUE(refused([](WgmmaConfig& b) { b.cluster_n = 2; }));
  EXPECT_TRUE(refused([](WgmmaConfig& b) { b.tma_store = 0, b.split = 2; }));
  EXPECT_TRUE(refused([](WgmmaConfig& b) { b.bn = 128, b.pingpong = 1; }));
  EXPECT_TRUE(refused([](WgmmaConfig& b) { b.epilogue_slots = 4; }));
  EXPECT_TRUE(refused([](WgmmaConfig& b) { b.bk = 32, b.tma_store = 0; }));  // tf32
  // The sweep lists stream-K only where the rule takes it, beside each such config.
  int listed = 0;
  for (const Config& s : wgmma().sweep_configs(square)) {
    const WgmmaConfig w = to_wgmma(s);
    if (w.stream_k == 0 || !w.check().ok()) continue;
    ++listed;
    EXPECT_TRUE(w.stream_k == 2 || w.stream_k == 4 || w.stream_k == 8);
    EXPECT_TRUE(w.persistent && w.cluster_size() == 1 && !w.pingpong && w.epilogue_slots == 0);
  }
  EXPECT_GT(listed, 0);
}
