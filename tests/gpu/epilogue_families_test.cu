// The registry's newer epilogues (kernels/core/epilogues.hpp: bias_gelu_tanh, bias_silu) through
// every family's store paths, compiled by nvcc, against the fp64 reference on normal and bend
// inputs: simt (direct store; split-K through the harness's reduce), mma (staged store; split-K),
// gemv (unsplit and split) and wgmma (register store, TMA store, split-K reduced behind counters,
// stream-K), each in one or two dtypes at an edge shape; bias_gelu_residual through gemv, mma and
// wgmma, the families whose kernels read a residual (unsplit, and in wgmma through the register
// store: its direct store, ping-pong, stream-K and k_interleave's halves). Then the
// check's resolution on the GPU: a tanh GELU kernel judged as the erf GELU fails in f32 (and the
// reverse), a residual kernel judged without its residual fails, and the families whose kernels
// take no residual are refused it.
#include <string>
#include <vector>

#include "gpu_test.hpp"
#include "harness/cuda_check.hpp"
#include "harness/cuda_raii.hpp"
#include "harness/device.hpp"
#include "harness/kernel_method.hpp"
#include "harness/method.hpp"
#include "harness/workspace.hpp"
#include "kernels/gemv/family.hpp"
#include "kernels/gemv/gemm.cuh"
#include "kernels/mma/family.hpp"
#include "kernels/mma/gemm.cuh"
#include "kernels/simt/family.hpp"
#include "kernels/simt/gemm.cuh"
#include "kernels/wgmma/family.hpp"
#include "kernels/wgmma/gemm.cuh"

namespace {

using namespace coalesce;

struct Instance {
  Config config;
  Dtype dtype;
  Epilogue epilogue;
  const void* kernel;
};

template <class Tile, Epilogue E>
Instance simt() {
  return {from_simt(Tile::config), Dtype::f32, E, reinterpret_cast<const void*>(&simt_gemm_kernel<Tile, EpilogueFor<E>>)};
}
template <class Tile, Dtype D, Epilogue E>
Instance mma() {
  return {from_mma(Tile::config), D, E,
          reinterpret_cast<const void*>(&mma_gemm_kernel<Tile, GemmOf<D>, EpilogueFor<E>>)};
}
template <class Tile, Dtype D, Epilogue E>
Instance gemv() {
  return {from_gemv(Tile::config), D, E,
          reinterpret_cast<const void*>(&gemv_gemm_kernel<Tile, GemmOf<D>, EpilogueFor<E>>)};
}
template <class Tile, Dtype D, Epilogue E>
Instance wgmma() {
  return {from_wgmma(Tile::config), D, E,
          reinterpret_cast<const void*>(&wgmma_gemm_kernel<Tile, EpilogueFor<E>, D>)};
}

using SimtWhole = SimtTile<64, 64, 16, 32, 32, 4, 8, 3, 4, 8, 2>;
using SimtSplit = SimtTile<64, 64, 16, 32, 32, 4, 8, 3, 4, 8, 2, 2>;
using MmaMedium = MmaTile<128, 128, 64, 64, 64, 4, 16, 1, 8, 2>;
using MmaSplit = MmaTile<128, 128, 64, 64, 32, 4, 16, 1, 8, 1, 2>;
using GemvWhole = GemvTile<4, 8, 16, 8, 4>;
using GemvSplit = GemvTile<4, 8, 16, 8, 4, 4>;
using WgmmaRegisters = WgmmaTile<128, 256, 64, 4, 2, 1, 1, 0, 8, 0>;
using WgmmaTmaStore = WgmmaTile<128, 128, 64, 6, 2, 1, 1, 1, 8, 1>;
using WgmmaCounters = WgmmaTile<128, 128, 64, 6, 2, 1, 1, 0, 8, 0, 2, 0, 1>;
using WgmmaStreamK = WgmmaTile<128, 128, 64, 4, 2, 1, 1, 1, 8, 0, 1, 0, 0, 0, 2>;
using WgmmaPingPong = WgmmaTile<128, 128, 64, 4, 2, 1, 1, 1, 8, 0, 1, 1>;
using WgmmaHalves = WgmmaTile<128, 128, 64, 4, 2, 1, 1, 0, 8, 0, 1, 0, 0, 0, 0, 2>;

template <Epilogue E>
void add_epilogue(std::vector<Instance>& out) {
  out.push_back(simt<SimtWhole, E>());
  out.push_back(simt<SimtSplit, E>());
  out.push_back(mma<MmaMedium, Dtype::bf16, E>());
  out.push_back(mma<MmaMedium, Dtype::tf32, E>());
  out.push_back(mma<MmaSplit, Dtype::f16, E>());
  out.push_back(gemv<GemvWhole, Dtype::bf16, E>());
  out.push_back(gemv<GemvWhole, Dtype::f32, E>());
  out.push_back(gemv<GemvSplit, Dtype::f16, E>());
  out.push_back(wgmma<WgmmaRegisters, Dtype::bf16, E>());
  out.push_back(wgmma<WgmmaTmaStore, Dtype::f16, E>());
  out.push_back(wgmma<WgmmaCounters, Dtype::bf16, E>());
  out.push_back(wgmma<WgmmaStreamK, Dtype::bf16, E>());
}

const std::vector<Instance>& instances() {
  static const std::vector<Instance> all = [] {
    std::vector<Instance> out;
    add_epilogue<Epilogue::bias_gelu_tanh>(out);
    add_epilogue<Epilogue::bias_silu>(out);
    out.push_back(gemv<GemvWhole, Dtype::f32, Epilogue::bias_gelu_residual>());
    out.push_back(gemv<GemvWhole, Dtype::tf32, Epilogue::bias_gelu_residual>());
    out.push_back(gemv<GemvWhole, Dtype::bf16, Epilogue::bias_gelu_residual>());
    out.push_back(gemv<GemvWhole, Dtype::f16, Epilogue::bias_gelu_residual>());
    out.push_back(mma<MmaMedium, Dtype::bf16, Epilogue::bias_gelu_residual>());
    out.push_back(mma<MmaMedium, Dtype::f16, Epilogue::bias_gelu_residual>());
    out.push_back(mma<MmaMedium, Dtype::tf32, Epilogue::bias_gelu_residual>());
    out.push_back(mma<MmaMedium, Dtype::f32, Epilogue::bias_gelu_residual>());
    out.push_back(mma<MmaSplit, Dtype::bf16, Epilogue::bias_gelu_residual>());  // refused: the split
    out.push_back(wgmma<WgmmaRegisters, Dtype::bf16, Epilogue::bias_gelu_residual>());
    out.push_back(wgmma<WgmmaRegisters, Dtype::f16, Epilogue::bias_gelu_residual>());
    out.push_back(wgmma<WgmmaStreamK, Dtype::bf16, Epilogue::bias_gelu_residual>());
    out.push_back(wgmma<WgmmaPingPong, Dtype::bf16, Epilogue::bias_gelu_residual>());
    out.push_back(wgmma<WgmmaHalves, Dtype::f16, Epilogue::bias_gelu_residual>());
    return out;
  }();
  return all;
}

struct Shape {
  int m, n, k;
};

// gemv's shapes are decode-sized (few rows); the others take an edge shape off every tile and
// a square one.
std::vector<Shape> shapes_for(const Config& c) {
  if (c.family == "gemv") return {{3, 1000, 1032}, {8, 4096, 4096}};
  return {{1000, 1000, 1000}, {512, 512, 512}};
}

std::string where(const Instance& k, const Shape& s) {
  return config_name(k.config, k.dtype, k.epilogue) + " at " + std::to_string(s.m) + "x" + std::to_string(s.n) +
         "x" + std::to_string(s.k);
}

TEST(EpilogueFamilies, NewEpiloguesMatchTheFp64ReferenceInEveryFamily) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  const Target target = current_target();
  int checked = 0;
  for (const Instance& k : instances()) {
    const Family* family = find_family(k.config.family);
    ASSERT_NE(family, nullptr);
    if (!family->supports(target).ok()) continue;  // wgmma needs sm_90a
    for (const Shape& s : shapes_for(k.config)) {
      Workspace ws({s.m, s.n, s.k, k.dtype, k.epilogue}, 4000 + s.m + static_cast<int>(k.epilogue), stream.get());
      if (!family->check_problem(k.config, ws.problem()).ok()) continue;
      const Method m = kernel_method(k.config, k.epilogue, k.kernel, ws);
      for (Inputs inputs : {Inputs::bend, Inputs::normal}) {
        const CheckResult c = check_method(m, ws, inputs);
        EXPECT_TRUE(c.passed) << where(k, s) << " on " << (inputs == Inputs::bend ? "bend" : "normal")
                              << " inputs: " << c.why;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 0);
}

// The check tells the two GELU forms apart in f32 on bend inputs (the CPU model:
// tests/unit/harness/check_test.cpp PlantedGeluSwap): a kernel computing one and judged as the
// other fails.
TEST(EpilogueFamilies, TheCheckTellsTanhFromErfGeluInF32) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  struct Swap {
    Instance kernel;
    Epilogue judged_as;
  };
  const Swap swaps[] = {
      {simt<SimtWhole, Epilogue::bias_gelu_tanh>(), Epilogue::bias_gelu},
      {simt<SimtWhole, Epilogue::bias_gelu>(), Epilogue::bias_gelu_tanh},
      {gemv<GemvWhole, Dtype::f32, Epilogue::bias_gelu_tanh>(), Epilogue::bias_gelu},
  };
  for (const Swap& swap : swaps) {
    const Shape s = swap.kernel.config.family == "gemv" ? Shape{8, 4096, 4096} : Shape{1000, 1000, 1000};
    Workspace ws({s.m, s.n, s.k, Dtype::f32, swap.judged_as}, 4100, stream.get());
    Method m = kernel_method(swap.kernel.config, swap.kernel.epilogue, swap.kernel.kernel, ws);
    ASSERT_TRUE(check_method(m, ws, Inputs::bend).passed) << where(swap.kernel, s) << " as itself";
    m.reference_epilogue = swap.judged_as;
    const CheckResult wrong = check_method(m, ws, Inputs::bend);
    EXPECT_FALSE(wrong.passed) << where(swap.kernel, s) << " judged as " << to_string(swap.judged_as)
                               << ": rel " << wrong.errors.rel_frobenius << ", scaled "
                               << wrong.errors.max_scaled_err;
  }
}

// A residual kernel judged as the same epilogue without the residual fails: the check sees a
// residual left out (and so one added twice, which is off by as much).
TEST(EpilogueFamilies, TheCheckSeesTheResidual) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  const Instance kernels[] = {gemv<GemvWhole, Dtype::f32, Epilogue::bias_gelu_residual>(),
                              gemv<GemvWhole, Dtype::bf16, Epilogue::bias_gelu_residual>(),
                              mma<MmaMedium, Dtype::bf16, Epilogue::bias_gelu_residual>(),
                              wgmma<WgmmaRegisters, Dtype::bf16, Epilogue::bias_gelu_residual>()};
  for (const Instance& k : kernels) {
    if (!find_family(k.config.family)->supports(current_target()).ok()) continue;  // wgmma needs sm_90a
    const Shape s = k.config.family == "gemv" ? Shape{8, 4096, 4096} : Shape{1000, 1000, 1000};
    Workspace ws({s.m, s.n, s.k, k.dtype, Epilogue::bias_gelu_residual}, 4300, stream.get());
    Method m = kernel_method(k.config, k.epilogue, k.kernel, ws);
    ASSERT_TRUE(check_method(m, ws).passed) << where(k, s);
    m.reference_epilogue = Epilogue::bias_gelu;
    EXPECT_FALSE(check_method(m, ws).passed) << where(k, s) << " judged without its residual";
  }
}

// A family whose kernels take no residual: the harness refuses bias_gelu_residual with the reason
// rather than run a kernel that would leave it out.
TEST(EpilogueFamilies, FamiliesWithoutAResidualArgumentRefuseIt) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  Workspace ws({256, 256, 256, Dtype::f32, Epilogue::bias_gelu_residual}, 4200, stream.get());
  EXPECT_NE(ws.residual(), nullptr);
  const Instance k = simt<SimtWhole, Epilogue::bias_gelu>();
  try {
    kernel_method(k.config, Epilogue::bias_gelu_residual, k.kernel, ws);
    ADD_FAILURE() << "kernel_method accepted an epilogue the family cannot run";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("residual"), std::string::npos) << e.what();
  }
}

}  // namespace
