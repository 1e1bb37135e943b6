// The wgmma family's plug-in (see family.hpp): every answer comes from WgmmaConfig, the one rule.
#include "kernels/wgmma/family.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <utility>

#include "kernels/core/epilogues.hpp"
#include "kernels/wgmma/builtin.hpp"

namespace coalesce {

namespace {

// The K steps of one tile (BK deep).
long long steps(const WgmmaConfig& c, const Problem& problem) { return (problem.k + c.bk - 1) / c.bk; }

// A function-local static, not a namespace-scope vector: a config name may be parsed while other
// units' static objects are constructed (an emitted program's ahead-of-time cubins), before this
// unit's dynamic initialisers have run.
const std::vector<ParamSpec>& param_specs() {
  static const std::vector<ParamSpec> all = {
      {"bm", "bm"},        {"bn", "bn"},        {"bk", "bk"},         {"stages", "s"},  {"consumers", "wg"},
      {"cluster_m", "cm"}, {"cluster_n", "cn"}, {"persistent", "p"}, {"group_m", "g"}, {"tma_store", "ts"},
      {kSplitParam, "sk", 1}, {"pingpong", "pp", 0}, {kReduceParam, "rd", 0}, {"epilogue_slots", "ew", 0},
      {kStreamKParam, "stk", 0}, {"k_interleave", "ki", 0},
      {"swap_ab", "sab", 0},
  };
  return all;
}

// The kernel's parameters (kernels/wgmma/gemm.cuh, COALESCE_DEFINE_WGMMA_KERNEL); the residual
// last, so the kernels of the other epilogues keep their code.
const std::vector<KernelArg>& launch_args() {
  static const std::vector<KernelArg> all = {
      KernelArg::a_tensor_map, KernelArg::b_tensor_map, KernelArg::c_tensor_map,
      KernelArg::bias,         KernelArg::c,            KernelArg::workspace,
      KernelArg::m,            KernelArg::n,            KernelArg::k,            KernelArg::residual,
  };
  return all;
}

class WgmmaFamily final : public Family {
 public:
  std::string_view name() const override { return "wgmma"; }
  std::string_view summary() const override {
    return "bf16/f16/tf32 GEMM on Hopper's warpgroup tensor cores: TMA into a swizzled mbarrier ring, "
           "warp-specialized wgmma (kernels/wgmma/gemm.cuh; sm_90a)";
  }
  const std::vector<ParamSpec>& params() const override { return param_specs(); }

  Verdict supports(Dtype dtype) const override { return WgmmaConfig::check_dtype(dtype); }
  Verdict supports(const Target& target) const override {
    if (target.cc_major != 9 || target.cc_minor != 0 || !target.arch_specific)
      return {Violation::arch,
              "the wgmma family needs sm_90a: wgmma.mma_async and setmaxnreg exist only on compute capability 9.0 "
              "with its architecture-specific target"};
    return {};
  }
  std::string nvrtc_arch(const Target&) const override { return "sm_90a"; }

  std::vector<Config> sweep_configs(const Problem& problem) const override {
    const WgmmaLists& l = wgmma_lists();
    std::vector<Config> out;
    // Every combination of the lists, in the lists' order (the last list varies fastest), with
    // the BK of the problem's dtype (one 128-byte row: 64 in bf16 and f16, 32 in tf32).
    for (int bm : l.bm)
      for (int bn : l.bn)
        for (int bk : l.bk)
          if (bk == WgmmaConfig::bk_for(problem.dtype))
          for (int stages : l.stages)
            for (int consumers : l.consumers)
              for (int cm : l.cluster_m)
                for (int cn : l.cluster_n)
                  for (int persistent : l.persistent)
                    for (int group_m : l.group_m)
                      for (int tma_store : l.tma_store)
                        for (int pingpong : l.pingpong)
                          for (int stream_k : l.stream_k)
                            for (int warps : l.epilogue_warps)
                              // Epilogue warps get a slot per 64 columns, the whole tile: with
                              // fewer the consumers wait for them (run CA).
                              out.push_back(from_wgmma({bm, bn, bk, stages, consumers, cm, cn, persistent, group_m,
                                                        tma_store, 1, pingpong, 0,
                                                        warps ? bn / WgmmaConfig::kRowElements : 0, stream_k}));
    // Deep rings where a 16-bit problem has few tiles (wgmma_deep_rings): the small tiles, the
    // narrow BN = 32 among them, with 8, 12 or 16 stages, every cluster, grid and store, with
    // and without two consumers that take alternate K slices of the whole tile (k_interleave),
    // without ping-pong, stream-K or epilogue warps (which need more tiles than SMs, or a second
    // consumer's registers beside the ring); the rule drops the rings that do not fit beside the
    // tile's C staging, the narrow tile's schedules it does not take, and k_interleave with one
    // consumer. Not in tf32, whose kernel has not run them.
    if (problem.dtype != Dtype::tf32 && wgmma_deep_rings(problem))
      for (int bm : l.deep_bm)
        for (int bn : l.deep_bn)
          for (int stages : l.deep_stages)
            for (int consumers : l.consumers)
              for (int cm : l.cluster_m)
                for (int cn : l.cluster_n)
                  for (int persistent : l.persistent)
                    for (int tma_store : l.tma_store)
                      for (int interleave : l.deep_k_interleave) {
                        WgmmaConfig c{bm, bn, WgmmaConfig::bk_for(problem.dtype), stages, consumers, cm,
                                      cn, persistent, l.group_m.front(), tma_store};
                        c.k_interleave = interleave;
                        out.push_back(from_wgmma(c));
                      }
    // The swapped tile (C^T = B^T A^T) where a 16-bit problem has few tiles: BM = 16, 32, 48 or
    // 64 rows of C (wgmma's N side) by 64 columns per consumer, or by 64 with two consumers
    // taking alternate K slices (k_interleave = 2, as the plain tile lists it), the deep rings
    // and the regular ones, each grid, direct store, 1x1 cluster (the 2x1 pair sharing B by K
    // rows is built and tested but not listed: slower wherever it ran, runs KA and LY).
    if (problem.dtype != Dtype::tf32 && wgmma_deep_rings(problem))
      for (int bm : l.swapped_bm)
        for (int consumers : l.consumers)
          for (int interleave : l.deep_k_interleave) {
            if (interleave && consumers != 2) continue;
            for (int stages : l.swapped_stages)
              for (int persistent : l.persistent) {
                WgmmaConfig c{bm, WgmmaConfig::kWgmmaM * (interleave ? 1 : consumers), WgmmaConfig::bk_for(problem.dtype),
                              stages, consumers, 1, 1, persistent, l.group_m.front(), 0};
                c.k_interleave = interleave;
                c.swap_ab = 1;
                out.push_back(from_wgmma(c));
              }
          }
    return out;
  }

  std::vector<Config> builtin_configs(const Problem& problem) const override {
    std::vector<Config> out;
    if (problem.dtype == Dtype::tf32) {
      for (const WgmmaConfig& c : wgmma_builtin::kTf32Configs) out.push_back(from_wgmma(c));
    } else {
      for (const WgmmaConfig& c : wgmma_builtin::kConfigs) out.push_back(from_wgmma(c));
    }
    return out;
  }

  Verdict check(const Config& config) const override { return to_wgmma(config).check(); }
  Verdict check(const Config& config, const DeviceLimits& limits, int registers) const override {
    return to_wgmma(config).check(limits, registers);
  }
  Verdict check_problem(const Config& config, const Problem& user_problem) const override {
    const WgmmaConfig c = to_wgmma(config);
    // An unaligned 16-bit problem runs on the launch's padded copy (row_multiple below): the
    // kernel's rule judges that.
    const Problem problem = kernel_problem(*this, config, user_problem);
    if (Verdict v = c.check_problem(problem.m, problem.n, problem.k, problem.dtype); !v.ok()) return v;
    if (epilogue_spec(problem.epilogue).reads.gated) return c.check_gated_problem(problem.n);
    if (epilogue_spec(problem.epilogue).reads.residual) return c.check_residual();
    return {};
  }
  bool stores_gated() const override { return true; }
  // TMA reads and writes rows of 16-byte multiples. The untransposed 16-bit tile takes an
  // unaligned problem through a padded copy. The tf32 and swapped tiles (which compute C^T and
  // store it from paths of their own) keep the divisibility rule until a GPU test has run them
  // padded, and so does a gated C (N/2 columns, whose padding would interleave gate and up).
  int row_multiple(const Config& config, const Problem& problem) const override {
    const WgmmaConfig c = to_wgmma(config);
    if (problem.dtype != Dtype::bf16 && problem.dtype != Dtype::f16) return 1;
    if (c.transposed() || c.swapped() || epilogue_spec(problem.epilogue).reads.gated) return 1;
    return 16 / element_bytes(problem.types().a);
  }

  Resources predict(const Config& config, const DeviceLimits& limits) const override {
    const WgmmaConfig c = to_wgmma(config);
    const int regs = c.predicted_registers();
    return {c.threads(), regs, register_cap(c.threads(), 1, limits.regs_per_sm), c.smem_bytes(),
            resident_blocks(limits, c.threads(), c.smem_bytes(), regs)};
  }
  Geometry geometry(const Config& config, const Problem& problem, const Target& target) const override {
    const WgmmaConfig c = to_wgmma(config);
    // With a cluster of two, tiles go in pairs (kernels/wgmma/gemm.cuh, WgmmaTileWalk): the
    // edge's pairs count whole, and the blocks of a cluster are neighbours in x.
    const long long cluster = c.cluster_size();
    Geometry g;
    long long blocks = c.grid_blocks(problem.m, problem.n);
    if (c.persistent) {
      // One wave: as many blocks as the SMs hold at once (the model's blocks per SM), whole
      // clusters; with stream-K up to that many even where there are fewer tiles. Stream-K's
      // blocks wait for each other, so all must be resident: the harness checks the compiled
      // kernel's occupancy against this grid before it launches (harness/kernel_method.cpp).
      const int per_sm = std::max(1, predict(config, target.limits).blocks_per_sm);
      const long long capacity = static_cast<long long>(target.sm_count) * per_sm / cluster * cluster;
      blocks = c.stream_k ? c.stream_k_grid(blocks, steps(c, problem), capacity) : std::min(blocks, capacity);
    }
    g.grid_x = static_cast<unsigned>(std::max(cluster, blocks));
    g.grid_z = static_cast<unsigned>(c.split);
    g.block_x = static_cast<unsigned>(c.threads());
    g.cluster_x = static_cast<unsigned>(cluster);
    g.cluster_y = 1;
    g.cluster_z = static_cast<unsigned>(c.k_cluster());  // reduce = 2: a tile's K slices are one cluster
    g.smem_bytes = c.smem_bytes();
    return g;
  }
  long long workspace_bytes(const Config& config, const Problem& problem, const Target& target) const override {
    const WgmmaConfig c = to_wgmma(config);
    if (!c.stream_k) return Family::workspace_bytes(config, problem, target);
    // A tile's f32 sums and a 4-byte flag per block (kernels/wgmma/gemm.cuh, WgmmaStreamK).
    const long long grid = geometry(config, problem, target).grid_x;
    return grid * (4LL * c.partial_floats() + 4);
  }
  Verdict check_schedule(const Config& config, const Problem& problem, const Target& target) const override {
    const WgmmaConfig c = to_wgmma(config);
    if (!c.stream_k) return {};
    const auto [grid, sharing] = stream_k_plan(c, problem, target);
    if (sharing == 0)
      return {Violation::schedule, "stream-K cannot help: the tiles fill whole waves of the persistent grid"};
    // A larger S only changes the schedule where the shared tiles have fewer pieces than blocks.
    WgmmaConfig half = c;
    half.stream_k = c.stream_k / 2;
    if (half.stream_k >= 2 && stream_k_plan(half, problem, target) == std::pair(grid, sharing))
      return {Violation::schedule, "stream-K shares the tiles here exactly as with half as many blocks per tile (stream_k / 2)"};
    return {};
  }
  /// Stream-K's grid and the blocks that share tiles (kernels/wgmma/gemm.cuh, WgmmaStreamK).
  std::pair<long long, long long> stream_k_plan(const WgmmaConfig& c, const Problem& problem, const Target& target) const {
    const long long grid = geometry(from_wgmma(c), problem, target).grid_x;
    return {grid, c.stream_k_sharing(static_cast<int>(c.grid_blocks(problem.m, problem.n)),
                                     static_cast<int>(steps(c, problem)), static_cast<int>(grid))};
  }
  const std::vector<KernelArg>& kernel_args() const override { return launch_args(); }
  TensorMapSpec tensor_map(const Config& config, const Problem& problem, KernelArg map) const override {
    const WgmmaConfig c = to_wgmma(config);
    const GemmTypes t = problem.types();
    // Every box's inner side is one 128-byte swizzle row (64 elements, 32 in tf32); the kernel's
    // shared layout and its wgmma descriptors assume exactly these boxes.
    switch (map) {
      case KernelArg::a_tensor_map:  // A: M x K, BM rows (half with a 1x2 cluster) x BK k per copy (K-major slot)
        return {KernelArg::a, t.a, problem.m, problem.k, c.a_box_rows(), c.bk, WgmmaConfig::kSwizzleBytes};
      case KernelArg::b_tensor_map:  // B: K x N, BK k x one row of columns per copy (one N-major chunk)
        return {KernelArg::b, t.b, problem.k, problem.n, c.b_box_rows(), c.b_chunk_cols(), c.b_swizzle_bytes()};
      case KernelArg::c_tensor_map:  // C: M x N (N/2 gated), a warp's 16 rows (8 with k_interleave = 2) x one row of columns per store
        return {KernelArg::c, t.c, problem.m, problem.c_cols(), c.c_box_rows(), c.row_elements(),
                WgmmaConfig::kSwizzleBytes};
      default:
        throw std::invalid_argument("the wgmma kernel takes tensor maps of A, B and C only");
    }
  }

  std::string_view kernel_header() const override { return "kernels/wgmma/gemm.cuh"; }
  std::string tile_type(const Config& config) const override {
    const WgmmaConfig c = to_wgmma(config);
    char buf[160];
    std::snprintf(buf, sizeof buf, "coalesce::WgmmaTile<%d, %d, %d, %d, %d, %d, %d, %d, %d, %d", c.bm, c.bn, c.bk,
                  c.stages, c.consumers, c.cluster_m, c.cluster_n, c.persistent, c.group_m, c.tma_store);
    // The split factor, ping-pong, the reduction, the epilogue slots, stream-K, k_interleave and
    // swap_ab only when they are not the template's defaults (1, 0, 0, 0, 0, 0 and 0).
    std::string tail;
    const int last = c.swap_ab ? 7 : c.k_interleave ? 6 : c.stream_k ? 5 : c.epilogue_slots ? 4 : c.reduce ? 3
                     : c.pingpong ? 2 : c.split > 1 ? 1 : 0;
    if (last >= 1) tail += ", " + std::to_string(c.split);
    if (last >= 2) tail += ", " + std::to_string(c.pingpong);
    if (last >= 3) tail += ", " + std::to_string(c.reduce);
    if (last >= 4) tail += ", " + std::to_string(c.epilogue_slots);
    if (last >= 5) tail += ", " + std::to_string(c.stream_k);
    if (last >= 6) tail += ", " + std::to_string(c.k_interleave);
    if (last >= 7) tail += ", " + std::to_string(c.swap_ab);
    return buf + tail + ">";
  }
  std::string define_kernel(const Config& config, Dtype dtype, Epilogue epilogue,
                            std::string_view symbol) const override {
    if (Verdict v = supports(dtype); !v.ok()) throw std::invalid_argument(v.why);
    if (to_wgmma(config).bk != WgmmaConfig::bk_for(dtype))
      throw std::invalid_argument(std::string(to_string(dtype)) + " needs the wgmma kernel with BK = " +
                                  std::to_string(WgmmaConfig::bk_for(dtype)) + " (one 128-byte row of its elements)");
    return "COALESCE_DEFINE_WGMMA_KERNEL(" + std::string(symbol) + ", coalesce::Dtype::" +
           std::string(to_string(dtype)) + ", " + tile_type(config) + ", coalesce::EpilogueFor<coalesce::Epilogue::" +
           std::string(to_string(epilogue)) + ">)";
  }
};

}  // namespace

const Family& wgmma_family() {
  static const WgmmaFamily family;
  return family;
}

WgmmaConfig to_wgmma(const Config& config) {
  if (config.family != "wgmma" || config.values.size() != param_specs().size())
    throw std::invalid_argument("not a wgmma config (family '" + config.family + "', " +
                                std::to_string(config.values.size()) + " parameters)");
  const std::vector<int>& v = config.values;
  return {v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], v[12], v[13], v[14], v[15], v[16]};
}

Config from_wgmma(const WgmmaConfig& c) {
  return {"wgmma",
          {c.bm, c.bn, c.bk, c.stages, c.consumers, c.cluster_m, c.cluster_n, c.persistent, c.group_m, c.tma_store,
           c.split, c.pingpong, c.reduce, c.epilogue_slots, c.stream_k, c.k_interleave, c.swap_ab}};
}

const WgmmaLists& wgmma_lists() {
  // Sized so that a sweep at 4096 is about six hundred legal configs (counted in
  // tests/unit/kernels/wgmma/family_test.cpp), a few minutes of compiling and measuring. The tiles are the
  // four that pair consumers with 64 or 128 rows each (bm 64, 128, 256) against every BN the
  // rule takes; the rule prunes the pairs whose accumulators do not fit (in tf32 the consumers
  // split BN instead, and the same lists give its tiles). Stages 3 to 6: two stages leave TMA
  // latency exposed and deeper rings rarely fit beside a large tile. BK is one swizzle row, 64
  // or 32 elements, the one of the problem's dtype (sweep_configs takes only it), clusters 1x1, 2x1 and 1x2 (the rule refuses 2x2), group_m 8 (the L2-friendly
  // rasterization the simt family and Triton use). Ping-pong both ways: the rule keeps it to
  // persistent two-consumer tiles of 64 or 128 rows. Epilogue warps both ways, with slots for
  // the whole tile: the rule keeps them to two-consumer tiles stored through TMA whose ring and
  // slots fit (128 x 64 to 128 x 192, 3 stages at 128 x 192). Stream-K off and with tiles
  // shared by up to 2, 4 or 8 blocks: the rule keeps it to persistent 16-bit tiles without a
  // cluster, ping-pong or epilogue warps, and the schedule rule to problems whose tiles leave a
  // partial wave, each S only where it shares differently from S/2 (check_schedule): at 4096^3
  // every block already shares at S = 2, at N = K = 4096 and M <= 256 the larger S spread a few
  // tiles over more of the SMs.
  static const WgmmaLists lists{
      .bm = {64, 128, 256},
      .bn = {64, 128, 192, 256},
      .bk = {64, 32},
      .stages = {3, 4, 5, 6},
      .consumers = {1, 2},
      .cluster_m = {1, 2},
      .cluster_n = {1, 2},
      .persistent = {0, 1},
      .group_m = {8},
      .tma_store = {0, 1},
      .pingpong = {0, 1},
      .epilogue_warps = {0, 1},
      .stream_k = {0, 2, 4, 8},
      // At M = 128, N = K = 4096 (128 tiles of 64 x 64, one block per SM, each waiting on its
      // loads) the unsplit 64 x 64 tile took 38.5, 31.4, 26.5 and 24.6 us with 3 to 6 stages
      // (runs 37, 53, 59), and cuBLAS runs a 64 x 64 tile with 13 stages there (run IA, Nsight
      // Compute). 8 and 12 stages: a 64 x 64 ring of 128 or 192 KB, 128 x 64 and 64 x 128 of
      // 192 KB at 8 (12 do not fit); 16 fit only the narrow 64 x 32 tile (192 KB).
      // The narrow tile (BN = 32, B in a 64-byte swizzle) only here: cuBLAS's tile at M = 64 is
      // 64 x 32 with 16 stages in a 1x2 cluster (run IA); its 12 KB stages fit 16.
      .deep_stages = {8, 12, 16},
      .deep_bm = {64, 128},
      .deep_bn = {32, 64, 128},
      // Two consumers taking alternate K slices of the whole tile: with one consumer our 64 x 32
      // tile spent 430 cycles per slice at M = 64 to cuBLAS's 264 (run JA). The fastest config
      // at bf16 M = 8 and 32 (run JC), no change at M = 64. Listed as 2 (each consumer adds and
      // finishes half the tile's rows, the epilogue on both warpgroups): in runs LJ and LK it
      // took 0.2-1.0 us less than its k_interleave 1 twin in every pair at bf16 512^3 and M = 8,
      // 32, 64 and 128 but one reading at M = 128 (the other reading there reversed). 1 is still
      // built and GPU-tested, no longer in the space (so `--config` does not take it).
      .deep_k_interleave = {0, 2},
      // cuBLAS's kernel at M = 64 is a swapped tile of 64 columns by 32 rows (run JG), at bf16
      // 512^3 one of 64 columns by 48 rows on two consumers (run LC).
      .swapped_bm = {16, 32, 48, 64},
      .swapped_stages = {4, 6, 8, 12, 16},
  };
  return lists;
}

bool wgmma_deep_rings(const Problem& problem) {
  const long long tiles = static_cast<long long>((problem.m + 63) / 64) * ((problem.n + 63) / 64);
  return tiles <= WgmmaConfig::kDeepRingTiles;
}

}  // namespace coalesce
