// The stand-in family (see standin_family.hpp). Its rules are small on purpose; each one shows
// up in the tests as a pruned candidate or a non-config.
#include "standin_family.hpp"

#include <stdexcept>
#include <string>

namespace coalesce::testing {

namespace {

const std::vector<ParamSpec> kParams = {{"bm", "bm"}, {"bn", "bn"}, {"threads", "t"}};

class StandinFamily final : public Family {
 public:
  std::string_view name() const override { return "stub"; }
  std::string_view summary() const override { return "a naive f32 GEMM, for tests of the family interface"; }
  const std::vector<ParamSpec>& params() const override { return kParams; }

  Verdict supports(Dtype dtype) const override {
    if (dtype != Dtype::f32) return {Violation::dtype, "the stub family computes f32 only"};
    return {};
  }
  Verdict supports(const Target& target) const override {
    if (target.cc_major < 7) return {Violation::arch, "the stub family needs sm_70 or later"};
    return {};
  }
  std::string nvrtc_arch(const Target& target) const override { return target.base_arch(); }

  // bm in {32, 64, 128, 512}, bn in {32, 64}, threads in {64, 100}: 16 configs, of which bm 512
  // and 100 threads are not configs at all.
  std::vector<Config> sweep_configs(const Problem&) const override {
    std::vector<Config> out;
    for (int bm : {32, 64, 128, 512})
      for (int bn : {32, 64})
        for (int t : {64, 100}) out.push_back({"stub", {bm, bn, t}});
    return out;
  }
  std::vector<Config> builtin_configs(const Problem&) const override { return {{"stub", {32, 32, 64}}}; }

  Verdict check(const Config& c) const override {
    const int bm = c.values.at(0), bn = c.values.at(1), t = c.values.at(2);
    if (bm < 16 || bm > 256 || bn < 16 || bn > 256) return {Violation::shape, "bm and bn must be 16 to 256"};
    if (t % 32 != 0) return {Violation::threads, "threads must be whole warps"};
    return {};
  }
  Verdict check(const Config& c, const DeviceLimits& limits, int registers) const override {
    if (Verdict v = check(c); !v.ok()) return v;
    if (smem(c) > limits.smem_per_block_optin) return {Violation::smem, "the tile does not fit in shared memory"};
    if (registers > limits.max_regs_per_thread) return {Violation::registers, "too many registers"};
    return {};
  }
  Verdict check_problem(const Config&, const Problem& p) const override {
    if (p.m <= 0 || p.n <= 0 || p.k <= 0) return {Violation::shape, "M, N and K must be positive"};
    return {};
  }

  Resources predict(const Config& c, const DeviceLimits& limits) const override {
    const int t = c.values.at(2);
    return {t, 32, 255, smem(c), resident_blocks(limits, t, smem(c), 32)};
  }
  Geometry geometry(const Config& c, const Problem& p, const Target&) const override {
    Geometry g;
    g.grid_x = static_cast<unsigned>((p.n + c.values.at(1) - 1) / c.values.at(1));
    g.grid_y = static_cast<unsigned>((p.m + c.values.at(0) - 1) / c.values.at(0));
    g.block_x = static_cast<unsigned>(c.values.at(2));
    g.smem_bytes = 0;
    return g;
  }

  std::string_view kernel_header() const override { return "kernels/core/epilogue.cuh"; }
  std::string tile_type(const Config& c) const override {
    return "StubTile<" + std::to_string(c.values.at(0)) + ", " + std::to_string(c.values.at(1)) + ", " +
           std::to_string(c.values.at(2)) + ">";
  }
  // Each thread strides over the block's bm x bn tile; a plain dot product per element.
  std::string define_kernel(const Config& c, Dtype dtype, Epilogue epilogue, std::string_view symbol) const override {
    if (!supports(dtype).ok()) throw std::invalid_argument("the stub family computes f32 only");
    const std::string bm = std::to_string(c.values.at(0)), bn = std::to_string(c.values.at(1));
    return "extern \"C\" __global__ void " + std::string(symbol) +
           "(const float* A, const float* B, const float* bias, float* C, int M, int N, int K) {\n"
           "  using Epi = coalesce::EpilogueFor<coalesce::Epilogue::" +
           std::string(to_string(epilogue)) + ">;\n  for (int i = threadIdx.x; i < " + bm + " * " + bn +
           "; i += blockDim.x) {\n    const int m = blockIdx.y * " + bm + " + i / " + bn + ", n = blockIdx.x * " + bn +
           " + i % " + bn +
           ";\n    if (m >= M || n >= N) continue;\n    float acc = 0;\n"
           "    for (int k = 0; k < K; ++k) acc += A[(long long)m * K + k] * B[(long long)k * N + n];\n"
           "    C[(long long)m * N + n] = Epi::apply(acc, Epi::kUsesBias ? bias[n] : 0.0f);\n  }\n}";
  }

 private:
  static int smem(const Config& c) { return (c.values.at(0) + c.values.at(1)) * 16 * 4; }
};

}  // namespace

const Family& standin_family() {
  static const StandinFamily family;
  static const bool registered = [] {
    register_family(family);
    return true;
  }();
  (void)registered;
  return family;
}

}  // namespace coalesce::testing
