// The gemv family's plug-in (see family.hpp): every answer comes from GemvConfig, the one rule.
#include "kernels/gemv/family.hpp"

#include <cstdio>
#include <stdexcept>

#include "kernels/core/epilogues.hpp"
#include "kernels/gemv/builtin.hpp"

namespace coalesce {

namespace {

// A function-local static, not a namespace-scope vector: a config name may be parsed while other
// units' static objects are constructed (an emitted program's ahead-of-time cubins), before this
// unit's dynamic initialisers have run.
const std::vector<ParamSpec>& param_specs() {
  static const std::vector<ParamSpec> all = {
      {"mr", "mr"}, {"warps", "w"}, {"vec_bytes", "v"}, {"lanes", "l"}, {"unroll", "u"}, {kSplitParam, "sk", 1},
  };
  return all;
}
// The residual last, after the generic list: kernels of the other epilogues keep their code.
const std::vector<KernelArg>& launch_args() {
  static const std::vector<KernelArg> all = {KernelArg::a, KernelArg::b, KernelArg::bias, KernelArg::c,
                                             KernelArg::m, KernelArg::n, KernelArg::k, KernelArg::residual};
  return all;
}

class GemvFamily final : public Family {
 public:
  std::string_view name() const override { return "gemv"; }
  std::string_view summary() const override {
    return "small-M GEMM (M <= 64) streaming B once with vector loads, f32 FMAs, every dtype (kernels/gemv/gemm.cuh)";
  }
  const std::vector<ParamSpec>& params() const override { return param_specs(); }

  Verdict supports(Dtype) const override { return {}; }
  Verdict supports(const Target& target) const override {
    if (target.cc_major < 8)
      return {Violation::arch, "the gemv kernel's L1::no_allocate loads and bf16 conversions need sm_80 or later"};
    return {};
  }
  std::string nvrtc_arch(const Target& target) const override { return target.base_arch(); }

  std::vector<Config> sweep_configs(const Problem& problem) const override {
    const GemvLists& l = gemv_lists();
    // Every N has a load width: an odd N in bf16/f16 takes 2-byte loads (issue 39).
    const int vec = gemv_widest_vec(problem) ? gemv_widest_vec(problem) : 16;
    std::vector<Config> out;
    // Every combination of the lists, in the lists' order (the last list varies fastest).
    for (const std::vector<int>& v : combinations({&l.mr, &l.warps, &l.lanes, &l.unroll})) {
      if (!gemv_sweeps_mr(v[0], problem.m)) continue;
      GemvConfig c;
      c.mr = v[0];
      c.warps = v[1];
      c.lanes = v[2];
      c.unroll = v[3];
      c.vec_bytes = vec;
      out.push_back(from_gemv(c));
    }
    return out;
  }

  std::vector<Config> builtin_configs(const Problem&) const override {
    std::vector<Config> out;
    for (const GemvConfig& c : gemv_builtin::kConfigs) out.push_back(from_gemv(c));
    return out;
  }

  Verdict check(const Config& config) const override { return to_gemv(config).check(); }
  Verdict check(const Config& config, const DeviceLimits& limits, int registers) const override {
    return to_gemv(config).check(limits, registers);
  }
  Verdict check_problem(const Config& config, const Problem& problem) const override {
    const GemvConfig c = to_gemv(config);
    // A split config stores raw partial sums; the reduce that applies the epilogue (harness/
    // splitk.hpp, the runtime's) reads no residual.
    if (c.split > 1 && epilogue_spec(problem.epilogue).reads.residual)
      return {Violation::epilogue, "split-K's reduce adds no residual: the residual epilogue needs split = 1"};
    return c.check_problem(problem.m, problem.n, problem.k, problem.dtype);
  }
  // The store takes a gated epilogue's column pairs from the block's sums; a split config's
  // reduce applies it.
  bool stores_gated() const override { return true; }
  const std::vector<KernelArg>& kernel_args() const override { return launch_args(); }

  Resources predict(const Config& config, const DeviceLimits& limits) const override {
    const GemvConfig c = to_gemv(config);
    const int regs = c.predicted_registers();
    return {c.threads(), regs, c.register_cap(limits.regs_per_sm), c.smem_bytes(), c.blocks_per_sm(limits, regs)};
  }
  Resources predict(const Config& config, const DeviceLimits& limits, const Problem& problem) const override {
    const GemvConfig c = to_gemv(config);
    const int bytes = element_bytes(gemm_types(problem.dtype).b);
    const int regs = c.predicted_registers(bytes);
    const int smem = c.smem_bytes(bytes);
    return {c.threads(), regs, c.register_cap(limits.regs_per_sm), smem,
            resident_blocks(limits, c.threads(), smem, regs)};
  }
  Geometry geometry(const Config& config, const Problem& problem, const Target&) const override {
    const GemvConfig c = to_gemv(config);
    const int bytes = element_bytes(gemm_types(problem.dtype).b);
    const int strip = c.strip_columns(bytes);
    Geometry g;
    g.grid_x = static_cast<unsigned>((problem.n + strip - 1) / strip);
    g.grid_y = static_cast<unsigned>((problem.m + c.mr - 1) / c.mr);
    g.grid_z = static_cast<unsigned>(c.split);
    g.block_x = static_cast<unsigned>(c.threads());
    g.smem_bytes = c.smem_bytes(bytes);
    return g;
  }

  std::string_view kernel_header() const override { return "kernels/gemv/gemm.cuh"; }
  std::string tile_type(const Config& config) const override {
    const GemvConfig c = to_gemv(config);
    char buf[120];
    std::snprintf(buf, sizeof buf, "coalesce::GemvTile<%d, %d, %d, %d, %d", c.mr, c.warps, c.vec_bytes, c.lanes,
                  c.unroll);
    // The split factor only when there is one (the template's default is 1).
    return buf + (c.split > 1 ? ", " + std::to_string(c.split) : std::string()) + ">";
  }
  std::string define_kernel(const Config& config, Dtype dtype, Epilogue epilogue,
                            std::string_view symbol) const override {
    return "COALESCE_DEFINE_GEMV_KERNEL(" + std::string(symbol) + ", " + tile_type(config) +
           ", coalesce::GemmOf<coalesce::Dtype::" + std::string(to_string(dtype)) +
           ">, coalesce::EpilogueFor<coalesce::Epilogue::" + std::string(to_string(epilogue)) + ">)";
  }
};

}  // namespace

const Family& gemv_family() {
  static const GemvFamily family;
  return family;
}

GemvConfig to_gemv(const Config& config) {
  if (config.family != "gemv" || config.values.size() != param_specs().size())
    throw std::invalid_argument("not a gemv config (family '" + config.family + "', " +
                                std::to_string(config.values.size()) + " parameters)");
  const std::vector<int>& v = config.values;
  return {v[0], v[1], v[2], v[3], v[4], v[5]};
}

Config from_gemv(const GemvConfig& c) { return {"gemv", {c.mr, c.warps, c.vec_bytes, c.lanes, c.unroll, c.split}}; }

const GemvLists& gemv_lists() {
  // Tens of configs (48 at M <= 8, 72 above, before the space's split variants): MR of 1 to 32
  // rows (a block reads its strip of B once for MR rows, so M = 32 reads it once at MR = 32
  // where MR = 8 read it four times, issue 12; MR above M only wastes FMAs and registers, so
  // 16 and 32 only where a block's rows are at least half used: gemv_sweeps_mr()), 4 or 8 warps (a block must have enough loads in flight without leaving the
  // strips too few blocks), strips of 32, 8 or 4 lanes (16-byte loads: 512-, 128- and 64-byte row
  // segments; at N = 4096 in f32 they make 32, 128 and 256 strips, in bf16 16, 64 and 128, so
  // the narrow strips fill 132 SMs without split-K's second kernel), and 4 or 8 loads in flight
  // per thread (Little's law at ~4.3 TB/s and ~0.7 us of DRAM latency wants ~23 KB in flight per
  // SM: 256 threads x 4 x 16 bytes is 16 KB, x 8 is 32 KB).
  static const GemvLists lists{
      .mr = {1, 2, 4, 8, 16, 32},
      .warps = {4, 8},
      .lanes = {32, 8, 4},
      .unroll = {4, 8},
  };
  return lists;
}

bool gemv_sweeps_mr(int mr, int m) { return mr <= 8 || 2 * m > mr; }

int gemv_widest_vec(const Problem& problem) {
  // The one rule decides: the widest load that check_problem() accepts for this shape.
  for (int v : {16, 8, 4, 2}) {
    GemvConfig probe;
    probe.vec_bytes = v;
    if (probe.check_problem(problem.m, problem.n, problem.k, problem.dtype).violation != Violation::divisibility)
      return v;
  }
  return 0;
}

}  // namespace coalesce
