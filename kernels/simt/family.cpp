// The simt family's plug-in (see family.hpp): every answer comes from SimtConfig, the one rule.
#include "kernels/simt/family.hpp"

#include <cstdio>
#include <stdexcept>

#include "kernels/simt/builtin.hpp"

namespace coalesce {

namespace {

// A function-local static, not a namespace-scope vector: a config name may be parsed while other
// units' static objects are constructed (an emitted program's ahead-of-time cubins), before this
// unit's dynamic initialisers have run.
const std::vector<ParamSpec>& param_specs() {
  static const std::vector<ParamSpec> all = {
      {"bm", "bm"}, {"bn", "bn"}, {"bk", "bk"},      {"wm", "wm"},   {"wn", "wn"},          {"tm", "tm"},
      {"tn", "tn"}, {"stages", "s"}, {"vec", "v"}, {"group_m", "g"}, {"min_blocks", "o"},
      {kSplitParam, "sk", 1}, {"index_bits", "ix", 32},
  };
  return all;
}

class SimtFamily final : public Family {
 public:
  std::string_view name() const override { return "simt"; }
  std::string_view summary() const override {
    return "FP32 GEMM on the CUDA cores, register-tiled, cp.async pipeline (kernels/simt/gemm.cuh)";
  }
  const std::vector<ParamSpec>& params() const override { return param_specs(); }

  Verdict supports(Dtype dtype) const override {
    if (dtype != Dtype::f32)
      return {Violation::dtype, "the simt family computes in f32 on the CUDA cores only (no tf32, bf16 or f16 path)"};
    return {};
  }
  Verdict supports(const Target& target) const override {
    if (target.cc_major < 8) return {Violation::arch, "the simt kernel's cp.async pipeline needs sm_80 or later"};
    return {};
  }
  std::string nvrtc_arch(const Target& target) const override { return target.base_arch(); }

  std::vector<Config> sweep_configs(const Problem& problem) const override {
    const SimtLists& l = simt_lists();
    const int vec = simt_widest_vec(problem);
    const std::vector<int> bm = simt_sweep_bm(problem.m);
    std::vector<Config> out;
    // Every combination of the lists, in the lists' order (the last list varies fastest).
    for (const std::vector<int>& v : combinations({&bm, &l.bn, &l.bk, &l.wm, &l.wn, &l.tm, &l.tn, &l.stages, &l.group_m, &l.min_blocks})) {
      SimtConfig c;
      c.bm = v[0];
      c.bn = v[1];
      c.bk = v[2];
      c.wm = v[3];
      c.wn = v[4];
      c.tm = v[5];
      c.tn = v[6];
      c.stages = v[7];
      c.group_m = v[8];
      c.min_blocks = v[9];
      c.vec = vec;
      c.index_bits = simt_index_bits(problem);
      out.push_back(from_simt(c));
    }
    return out;
  }

  std::vector<Config> builtin_configs(const Problem& problem) const override {
    std::vector<Config> out;
    for (SimtConfig c : simt_builtin::kConfigs) {
      c.index_bits = simt_index_bits(problem);
      out.push_back(from_simt(c));
    }
    return out;
  }

  Verdict check(const Config& config) const override { return to_simt(config).check(); }
  Verdict check(const Config& config, const DeviceLimits& limits, int registers) const override {
    return to_simt(config).check(limits, registers);
  }
  Verdict check_problem(const Config& config, const Problem& problem) const override {
    if (Verdict v = supports(problem.dtype); !v.ok()) return v;
    return to_simt(config).check_problem(problem.m, problem.n, problem.k);
  }

  Resources predict(const Config& config, const DeviceLimits& limits) const override {
    const SimtConfig c = to_simt(config);
    const int regs = c.predicted_registers();
    return {c.threads(), regs, c.register_cap(limits.regs_per_sm), c.smem_bytes(), c.blocks_per_sm(limits, regs)};
  }
  Geometry geometry(const Config& config, const Problem& problem, const Target&) const override {
    const SimtConfig c = to_simt(config);
    Geometry g;
    g.grid_x = static_cast<unsigned>(static_cast<long long>((problem.m + c.bm - 1) / c.bm) * ((problem.n + c.bn - 1) / c.bn));
    g.grid_z = static_cast<unsigned>(c.split);
    g.block_x = static_cast<unsigned>(c.threads());
    g.smem_bytes = c.smem_bytes();
    return g;
  }

  std::string_view kernel_header() const override { return "kernels/simt/gemm.cuh"; }
  std::string tile_type(const Config& config) const override {
    const SimtConfig c = to_simt(config);
    char buf[160];
    std::snprintf(buf, sizeof buf, "coalesce::SimtTile<%d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d", c.bm, c.bn, c.bk,
                  c.wm, c.wn, c.tm, c.tn, c.stages, c.vec, c.group_m, c.min_blocks);
    // The split factor and the index bits only where they differ from the template's defaults
    // (1 and 32); the index bits follow the split, so a 64-bit config spells both.
    std::string tail = c.split > 1 || c.index_bits != 32 ? ", " + std::to_string(c.split) : std::string();
    if (c.index_bits != 32) tail += ", " + std::to_string(c.index_bits);
    return buf + tail + ">";
  }
  std::string define_kernel(const Config& config, Dtype dtype, Epilogue epilogue,
                            std::string_view symbol) const override {
    if (Verdict v = supports(dtype); !v.ok()) throw std::invalid_argument(v.why);
    return "COALESCE_DEFINE_SIMT_KERNEL(" + std::string(symbol) + ", " + tile_type(config) +
           ", coalesce::EpilogueFor<coalesce::Epilogue::" + std::string(to_string(epilogue)) + ">)";
  }
};

}  // namespace

const Family& simt_family() {
  static const SimtFamily family;
  return family;
}

SimtConfig to_simt(const Config& config) {
  if (config.family != "simt" || config.values.size() != param_specs().size())
    throw std::invalid_argument("not a simt config (family '" + config.family + "', " +
                                std::to_string(config.values.size()) + " parameters)");
  const std::vector<int>& v = config.values;
  return {v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], v[12]};
}

Config from_simt(const SimtConfig& c) {
  return {"simt",
          {c.bm, c.bn, c.bk, c.wm, c.wn, c.tm, c.tn, c.stages, c.vec, c.group_m, c.min_blocks, c.split, c.index_bits}};
}

const SimtLists& simt_lists() {
  // Sized so that a full sweep at 4096 is a few hundred legal configs (the counts are in
  // docs/tuner.md): at up to a second to measure each, the sweep stays within 10 minutes. The
  // lists span the region the kernel's first probes found fast (thread tiles of 32 to 128
  // accumulators, 8- and 16-deep K slices, 3 or 4 stages). Left out to keep the count down:
  // 32-row block tiles (16K blocks of one or two warps at 4096) except for M <= 32, where a
  // 64-row tile wastes half its rows (issue 12's f32 M = 32: 57 us at BM = 64 with split-K 16
  // against cuBLAS's 47; small_m_bm), and TN = 4 (its largest thread tile, 16x4, has fewer
  // accumulators than 8x8). group_m stays at 8, the L2-friendly
  // rasterization Triton and CUTLASS default to. min_blocks spans 1 to 3: the probes at 4096
  // found the fastest configs at 2 or 3 resident blocks (an 8x8 tile fits unspilled in the
  // 127-170 registers that leaves), and SimtConfig::check() prunes the caps too small for a tile.
  static const SimtLists lists{
      .bm = {64, 128, 256},
      .bn = {64, 128, 256},
      .bk = {8, 16},
      .wm = {32, 64, 128},
      .wn = {32, 64, 128},
      .tm = {4, 8, 16},
      .tn = {8, 16, 32},
      .stages = {3, 4},
      .group_m = {8},
      .min_blocks = {1, 2, 3},
      .small_m_bm = {32},
  };
  return lists;
}

std::vector<int> simt_sweep_bm(int m) {
  const SimtLists& l = simt_lists();
  std::vector<int> bm = l.bm;
  for (int rows : l.small_m_bm)
    if (m <= rows) bm.push_back(rows);
  return bm;
}

int simt_index_bits(const Problem& problem) {
  return needs_64bit_offsets(problem.m, problem.n, problem.k) ? 64 : 32;
}

int simt_widest_vec(const Problem& problem) {
  // The one rule decides: the widest copy that check_problem() accepts for this shape.
  for (int v : {4, 2}) {
    SimtConfig probe;
    probe.vec = v;
    probe.index_bits = simt_index_bits(problem);
    if (probe.check_problem(problem.m, problem.n, problem.k).ok()) return v;
  }
  return 1;
}

}  // namespace coalesce
