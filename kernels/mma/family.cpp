// The mma family's plug-in (see family.hpp): every answer comes from MmaConfig, the one rule.
#include "kernels/mma/family.hpp"

#include <cstdio>
#include <stdexcept>

#include "kernels/core/epilogues.hpp"
#include "kernels/mma/builtin.hpp"

namespace coalesce {

namespace {

// A function-local static, not a namespace-scope vector: a config name may be parsed while other
// units' static objects are constructed (an emitted program's ahead-of-time cubins), before this
// unit's dynamic initialisers have run.
const std::vector<ParamSpec>& param_specs() {
  static const std::vector<ParamSpec> all = {
      {"bm", "bm"},     {"bn", "bn"},        {"bk_bytes", "kb"}, {"wm", "wm"},      {"wn", "wn"},
      {"stages", "s"},  {"vec_bytes", "v"},  {"swizzle", "sw"},  {"group_m", "g"},  {"min_blocks", "o"},
      {kSplitParam, "sk", 1},
  };
  return all;
}
// The residual last, after the generic list: kernels of the other epilogues keep their code.
const std::vector<KernelArg>& launch_args() {
  static const std::vector<KernelArg> all = {KernelArg::a, KernelArg::b, KernelArg::bias, KernelArg::c,
                                             KernelArg::m, KernelArg::n, KernelArg::k, KernelArg::residual};
  return all;
}

class MmaFamily final : public Family {
 public:
  std::string_view name() const override { return "mma"; }
  std::string_view summary() const override {
    return "bf16/f16/tf32 GEMM, and f32 as 3xTF32, on the tensor cores through mma.sync, ldmatrix, cp.async "
           "pipeline (kernels/mma/gemm.cuh)";
  }
  const std::vector<ParamSpec>& params() const override { return param_specs(); }

  // Every dtype: f32 as 3xTF32 (MmaMath<Math::f32>), checked against f32's own tolerance.
  Verdict supports(Dtype) const override { return {}; }
  Verdict supports(const Target& target) const override {
    if (target.cc_major < 8)
      return {Violation::arch, "mma.sync on bf16 and tf32, ldmatrix and cp.async need sm_80 or later"};
    return {};
  }
  // mma.sync, ldmatrix and cp.async are portable from sm_80 on: one cubin for every GPU of the
  // compute capability.
  std::string nvrtc_arch(const Target& target) const override { return target.base_arch(); }

  std::vector<Config> sweep_configs(const Problem& problem) const override {
    const MmaLists& l = mma_lists();
    // Every shape has a legal copy width: an odd K or N in bf16/f16 takes 2-byte plain loads.
    const int vec = mma_widest_vec(problem) ? mma_widest_vec(problem) : 16;
    std::vector<Config> out;
    // Every combination of the lists, in the lists' order (the last list varies fastest).
    for (const std::vector<int>& v : combinations({&l.bm, &l.bn, &l.bk_bytes, &l.wm, &l.wn, &l.stages, &l.swizzle, &l.group_m, &l.min_blocks})) {
      MmaConfig c;
      c.bm = v[0];
      c.bn = v[1];
      c.bk_bytes = v[2];
      c.wm = v[3];
      c.wn = v[4];
      c.stages = v[5];
      c.swizzle = v[6];
      c.group_m = v[7];
      c.min_blocks = v[8];
      c.vec_bytes = vec;
      out.push_back(from_mma(c));
    }
    return out;
  }

  std::vector<Config> builtin_configs(const Problem&) const override {
    std::vector<Config> out;
    for (const MmaConfig& c : mma_builtin::kConfigs) out.push_back(from_mma(c));
    return out;
  }

  Verdict check(const Config& config) const override { return to_mma(config).check(); }
  Verdict check(const Config& config, const DeviceLimits& limits, int registers) const override {
    return to_mma(config).check(limits, registers);
  }
  Verdict check_problem(const Config& config, const Problem& problem) const override {
    const MmaConfig c = to_mma(config);
    // A split config stores raw partial sums; the reduce that applies the epilogue (harness/
    // splitk.hpp, the runtime's) reads no residual.
    if (c.split > 1 && epilogue_spec(problem.epilogue).reads.residual)
      return {Violation::epilogue, "split-K's reduce adds no residual: the residual epilogue needs split = 1"};
    return c.check_problem(problem.m, problem.n, problem.k, problem.dtype);
  }
  const std::vector<KernelArg>& kernel_args() const override { return launch_args(); }
  // Every store path: the staged store applies a gated epilogue (mma_store_tile), split-K's
  // partials are raw sums and the reduce applies it.
  bool stores_gated() const override { return true; }

  Resources predict(const Config& config, const DeviceLimits& limits) const override {
    const MmaConfig c = to_mma(config);
    const int regs = c.predicted_registers();
    return {c.threads(), regs, c.register_cap(limits.regs_per_sm), c.smem_bytes(), c.blocks_per_sm(limits, regs)};
  }
  Geometry geometry(const Config& config, const Problem& problem, const Target&) const override {
    const MmaConfig c = to_mma(config);
    Geometry g;
    g.grid_x = static_cast<unsigned>(static_cast<long long>((problem.m + c.bm - 1) / c.bm) *
                                     ((problem.n + c.bn - 1) / c.bn));
    g.grid_z = static_cast<unsigned>(c.split);
    g.block_x = static_cast<unsigned>(c.threads());
    g.smem_bytes = c.smem_bytes();
    return g;
  }

  std::string_view kernel_header() const override { return "kernels/mma/gemm.cuh"; }
  std::string tile_type(const Config& config) const override {
    const MmaConfig c = to_mma(config);
    char buf[160];
    std::snprintf(buf, sizeof buf, "coalesce::MmaTile<%d, %d, %d, %d, %d, %d, %d, %d, %d, %d", c.bm, c.bn,
                  c.bk_bytes, c.wm, c.wn, c.stages, c.vec_bytes, c.swizzle, c.group_m, c.min_blocks);
    // The split factor only when there is one (the template's default is 1).
    return buf + (c.split > 1 ? ", " + std::to_string(c.split) : std::string()) + ">";
  }
  std::string define_kernel(const Config& config, Dtype dtype, Epilogue epilogue,
                            std::string_view symbol) const override {
    if (Verdict v = supports(dtype); !v.ok()) throw std::invalid_argument(v.why);
    return "COALESCE_DEFINE_MMA_KERNEL(" + std::string(symbol) + ", " + tile_type(config) +
           ", coalesce::GemmOf<coalesce::Dtype::" + std::string(to_string(dtype)) +
           ">, coalesce::EpilogueFor<coalesce::Epilogue::" + std::string(to_string(epilogue)) + ">)";
  }
};

}  // namespace

const Family& mma_family() {
  static const MmaFamily family;
  return family;
}

MmaConfig to_mma(const Config& config) {
  if (config.family != "mma" || config.values.size() != param_specs().size())
    throw std::invalid_argument("not an mma config (family '" + config.family + "', " +
                                std::to_string(config.values.size()) + " parameters)");
  const std::vector<int>& v = config.values;
  return {v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10]};
}

Config from_mma(const MmaConfig& c) {
  return {"mma", {c.bm, c.bn, c.bk_bytes, c.wm, c.wn, c.stages, c.vec_bytes, c.swizzle, c.group_m, c.min_blocks,
                 c.split}};
}

const MmaLists& mma_lists() {
  // Sized so that a full sweep at 4096 is a few hundred legal configs (370 on the H200 for each
  // dtype, docs/tuner.md): at up to a second to measure each, the sweep stays within 10
  // minutes. Block tiles of 64 to 256 per side: 128x128 to 128x256 is where CUTLASS's sm80
  // tensor-core GEMMs run fastest at large shapes, 64-wide tiles keep small problems busy. Warp
  // tiles of 32 or 64 per side: a 64x64 warp tile holds 128 accumulators plus 64 fragment
  // registers (the most that fits 255 registers), and 16-wide ones issue two ldmatrix per
  // four mma. K slices of 64 or 128 bytes (two or four mma k-steps per barrier) in 3 or 4
  // stages keep 96 to 256 elements of K in flight. Both shared-memory layouts, so a sweep shows
  // what the swizzle buys over padding. group_m stays at 8, the L2-friendly rasterization
  // Triton and CUTLASS default to. min_blocks 1 or 2: two resident blocks need at most 128
  // registers per thread at 256 threads, which only 32-wide warp tiles fit; the rule prunes
  // the rest.
  static const MmaLists lists{
      .bm = {64, 128, 256},
      .bn = {64, 128, 256},
      .bk_bytes = {64, 128},
      .wm = {32, 64},
      .wn = {32, 64},
      .stages = {3, 4},
      .swizzle = {1, 0},
      .group_m = {8},
      .min_blocks = {1, 2},
  };
  return lists;
}

int mma_widest_vec(const Problem& problem) {
  // The one rule decides: the widest copy that check_problem() accepts for this shape.
  for (int v : {16, 8, 4, 2}) {
    MmaConfig probe;
    probe.vec_bytes = v;
    if (probe.check_problem(problem.m, problem.n, problem.k, problem.dtype).violation != Violation::divisibility)
      return v;
  }
  return 0;
}

}  // namespace coalesce
