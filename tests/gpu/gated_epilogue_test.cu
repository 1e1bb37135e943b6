// The gated epilogues swiglu and geglu (kernels/core/epilogues.hpp, EpilogueReads::gated: B is
// the gate and up weights interleaved by column, C[m][j] = act(acc[m][2j]) * acc[m][2j+1], N/2
// columns) through the store paths of the families that store them, compiled by nvcc, against
// the fp64 reference on bend and normal inputs: mma's staged store in every dtype and its split-K
// through the harness's gated reduce; wgmma's register store, split-K through the reduce and
// behind counters, and stream-K; gemv's store (decode sizes) and its split through the reduce. Then a kernel whose gate is applied to the wrong column of each
// pair fails the check, the baselines of a gated problem (the merged GEMM alone; the merged GEMM
// and one act-and-multiply kernel) pass theirs, and the configs and families that store no gated
// epilogue are refused with their reason.
#include <string>
#include <vector>

#include "gpu_test.hpp"
#include "harness/baselines.hpp"
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

/// The planted bug: the activation applied to the up column of each pair, act(u) * g, as a
/// kernel that took the pair the wrong way round (or B's halves swapped) would compute.
template <class Act>
struct GateOnUp {
  static constexpr bool kUsesBias = false;
  static constexpr bool kUsesResidual = false;
  static constexpr bool kGated = true;
  template <class Acc>
  __device__ __forceinline__ static Acc apply(Acc acc, Acc) { return Act::apply(acc); }
  template <class Acc>
  __device__ __forceinline__ static Acc gate(Acc gate_acc, Acc up_acc) { return Act::apply(up_acc) * gate_acc; }
};

struct Instance {
  Config config;
  Dtype dtype;
  Epilogue epilogue;
  const void* kernel;
};

template <class Tile, Dtype D, Epilogue E, class Epi = EpilogueFor<E>>
Instance mma() {
  return {from_mma(Tile::config), D, E, reinterpret_cast<const void*>(&mma_gemm_kernel<Tile, GemmOf<D>, Epi>)};
}
template <class Tile, Dtype D, Epilogue E, class Epi = EpilogueFor<E>>
Instance gemv() {
  return {from_gemv(Tile::config), D, E, reinterpret_cast<const void*>(&gemv_gemm_kernel<Tile, GemmOf<D>, Epi>)};
}
template <class Tile, Dtype D, Epilogue E, class Epi = EpilogueFor<E>>
Instance wgmma() {
  return {from_wgmma(Tile::config), D, E, reinterpret_cast<const void*>(&wgmma_gemm_kernel<Tile, Epi, D>)};
}

using MmaMedium = MmaTile<128, 128, 64, 64, 64, 4, 16, 1, 8, 2>;
using MmaSplit = MmaTile<128, 128, 64, 64, 32, 4, 16, 1, 8, 1, 2>;
// f32 runs as 3xTF32, whose second fragments put MmaMedium over the register cap: the f32 tile is
// the f32 headline winner's (mma_f32_bm64_bn64_kb128_wm64_wn32_s4_v16_sw1_g8_o2).
using MmaF32 = MmaTile<64, 64, 128, 64, 32, 4, 16, 1, 8, 2>;
using GemvWhole = GemvTile<4, 8, 16, 8, 4>;
using GemvSplit = GemvTile<4, 8, 16, 8, 4, 4>;
// The register store (tma_store = 0), split-K reduced by the harness, split-K behind counters
// (reduce = 1), stream-K; and one with the TMA store, which check_gated() refuses.
using WgmmaRegisters = WgmmaTile<128, 256, 64, 4, 2, 1, 1, 0, 8, 0>;
using WgmmaSplit = WgmmaTile<128, 128, 64, 6, 2, 1, 1, 0, 8, 0, 2>;
using WgmmaCounters = WgmmaTile<128, 128, 64, 6, 2, 1, 1, 0, 8, 0, 2, 0, 1>;
using WgmmaStreamK = WgmmaTile<128, 128, 64, 4, 2, 1, 1, 1, 8, 0, 1, 0, 0, 0, 2>;
using WgmmaTmaStore = WgmmaTile<128, 128, 64, 6, 2, 1, 1, 1, 8, 1>;

template <Epilogue E>
void add_epilogue(std::vector<Instance>& out) {
  out.push_back(mma<MmaMedium, Dtype::bf16, E>());
  out.push_back(mma<MmaMedium, Dtype::f16, E>());
  out.push_back(mma<MmaMedium, Dtype::tf32, E>());
  out.push_back(mma<MmaF32, Dtype::f32, E>());
  out.push_back(mma<MmaSplit, Dtype::bf16, E>());
  out.push_back(gemv<GemvWhole, Dtype::bf16, E>());
  out.push_back(gemv<GemvWhole, Dtype::f32, E>());
  out.push_back(gemv<GemvSplit, Dtype::f16, E>());
  out.push_back(wgmma<WgmmaRegisters, Dtype::bf16, E>());
  out.push_back(wgmma<WgmmaRegisters, Dtype::f16, E>());
  out.push_back(wgmma<WgmmaSplit, Dtype::bf16, E>());
  out.push_back(wgmma<WgmmaCounters, Dtype::bf16, E>());
  out.push_back(wgmma<WgmmaStreamK, Dtype::bf16, E>());
}

const std::vector<Instance>& instances() {
  static const std::vector<Instance> all = [] {
    std::vector<Instance> out;
    add_epilogue<Epilogue::swiglu>(out);
    add_epilogue<Epilogue::geglu>(out);
    return out;
  }();
  return all;
}

struct Shape {
  int m, n, k;
};

// A small tile-sized one, an odd M with a deep K, and Llama-3-8B's merged gate/up projection at
// decode size (N = 2 x 14336); gemv takes decode sizes only (it refuses the others), plus an odd
// M of its own.
const Shape kShapes[] = {{128, 256, 64}, {999, 2048, 4096}, {16, 28672, 4096}, {3, 2048, 1032}};

std::string where(const Instance& k, const Shape& s) {
  return config_name(k.config, k.dtype, k.epilogue) + " at " + std::to_string(s.m) + "x" + std::to_string(s.n) +
         "x" + std::to_string(s.k);
}

TEST(GatedEpilogue, MmaAndWgmmaMatchTheFp64Reference) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  const Target target = current_target();
  int checked = 0;
  for (const Instance& k : instances()) {
    const Family* family = find_family(k.config.family);
    ASSERT_NE(family, nullptr);
    if (!family->supports(target).ok()) continue;  // wgmma needs sm_90a
    const int checked_before = checked;
    for (const Shape& s : kShapes) {
      Workspace ws({s.m, s.n, s.k, k.dtype, k.epilogue}, 5000 + s.m + static_cast<int>(k.epilogue), stream.get());
      // Split-K needs a K step per slice: the split configs skip K = 64.
      if (!family->check_problem(k.config, ws.problem()).ok()) continue;
      const Method m = kernel_method(k.config, k.epilogue, k.kernel, ws);
      for (Inputs inputs : {Inputs::bend, Inputs::normal}) {
        const CheckResult c = check_method(m, ws, inputs);
        EXPECT_TRUE(c.passed) << where(k, s) << " on " << (inputs == Inputs::bend ? "bend" : "normal")
                              << " inputs: " << c.why;
        ++checked;
      }
    }
    // A config that no shape takes (an illegal tile, say) would otherwise pass by checking nothing.
    EXPECT_GT(checked, checked_before) << config_name(k.config, k.dtype, k.epilogue) << " was checked at no shape";
  }
  EXPECT_GT(checked, 0);
}

// The gate on the wrong column of the pair: the kernel computes act(u) * g, judged as swiglu
// (geglu) it fails in every dtype, on either kind of input. Configs whose kernel stores the gated
// pair only: a split-K config's kernel writes f32 partial sums and the harness's gated reduce
// applies the real epilogue (a wrong gate planted in its kernel changes nothing), so that reduce
// is covered by the reference test above, not here.
TEST(GatedEpilogue, TheCheckCatchesAGateAppliedToTheWrongColumn) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  const Target target = current_target();
  const Instance planted[] = {
      mma<MmaMedium, Dtype::bf16, Epilogue::swiglu, GateOnUp<ActSilu>>(),
      mma<MmaF32, Dtype::f32, Epilogue::geglu, GateOnUp<ActGeluErf>>(),
      mma<MmaMedium, Dtype::f16, Epilogue::swiglu, GateOnUp<ActSilu>>(),
      gemv<GemvWhole, Dtype::bf16, Epilogue::swiglu, GateOnUp<ActSilu>>(),
      wgmma<WgmmaRegisters, Dtype::bf16, Epilogue::swiglu, GateOnUp<ActSilu>>(),
      wgmma<WgmmaCounters, Dtype::bf16, Epilogue::geglu, GateOnUp<ActGeluErf>>(),
  };
  int checked = 0;
  for (const Instance& k : planted) {
    if (!find_family(k.config.family)->supports(target).ok()) continue;
    const Shape s = k.config.family == "gemv" ? Shape{16, 28672, 4096} : Shape{999, 2048, 4096};
    Workspace ws({s.m, s.n, s.k, k.dtype, k.epilogue}, 5100, stream.get());
    const Method m = kernel_method(k.config, k.epilogue, k.kernel, ws);
    for (Inputs inputs : {Inputs::bend, Inputs::normal}) {
      const CheckResult c = check_method(m, ws, inputs);
      EXPECT_FALSE(c.passed) << where(k, s) << " with act(up) * gate passed: rel " << c.errors.rel_frobenius
                             << ", scaled " << c.errors.max_scaled_err;
      ++checked;
    }
  }
  EXPECT_GT(checked, 0);
}

// The framework's path (the merged GEMM into an M x N intermediate, then one act-and-multiply
// kernel into the M x N/2 C) passes the gated reference; the merged GEMM alone passes the plain
// one (C has room for its M x N); eager and cuBLASLt have no gated sequence and say why.
TEST(GatedEpilogue, TheBaselinesOfAGatedProblem) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  Baselines baselines;
  for (Epilogue e : {Epilogue::swiglu, Epilogue::geglu})
    for (Dtype d : {Dtype::bf16, Dtype::f32}) {
      Workspace ws({999, 2048, 4096, d, e}, 5200, stream.get());
      EXPECT_NE(ws.intermediate(), nullptr);
      std::string why_not;
      const std::vector<Method> methods = baselines.all(ws, &why_not);
      ASSERT_EQ(methods.size(), 2u) << to_string(e);  // cublas_gemm and unfused
      EXPECT_EQ(methods[0].reference_epilogue, Epilogue::none);
      EXPECT_EQ(methods[1].config, baseline_config_name("unfused", d, e));
      EXPECT_EQ(methods[1].reference_epilogue, e);
      for (const Method& m : methods)
        for (Inputs inputs : {Inputs::bend, Inputs::normal}) {
          const CheckResult c = check_method(m, ws, inputs);
          EXPECT_TRUE(c.passed) << m.config << " " << to_string(e) << ": " << c.why;
        }
      EXPECT_NE(why_not.find("cuBLASLt"), std::string::npos) << why_not;
      EXPECT_NE(baseline_unavailable("eager", e).find("merged GEMM"), std::string::npos);
    }
}

// The family whose kernels store no gated epilogue (simt) and a wgmma config whose store path does
// not (the TMA store) are refused with their reasons, not run.
TEST(GatedEpilogue, FamiliesAndConfigsWithoutAGatedStoreRefuseIt) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  Workspace ws({256, 256, 256, Dtype::f32, Epilogue::swiglu}, 5300, stream.get());
  using SimtWhole = SimtTile<64, 64, 16, 32, 32, 4, 8, 3, 4, 8, 2>;
  const void* simt_kernel = reinterpret_cast<const void*>(&simt_gemm_kernel<SimtWhole, EpilogueFor<Epilogue::none>>);
  try {
    kernel_method(from_simt(SimtWhole::config), Epilogue::swiglu, simt_kernel, ws);
    ADD_FAILURE() << "kernel_method accepted a gated epilogue simt cannot store";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("gated"), std::string::npos) << e.what();
  }
  const Verdict tma = wgmma_family().check_problem(from_wgmma(WgmmaTmaStore::config),
                                                   {256, 256, 256, Dtype::bf16, Epilogue::swiglu});
  EXPECT_EQ(tma.violation, Violation::epilogue);
  EXPECT_NE(std::string(tma.why).find("tma_store"), std::string::npos) << tma.why;
}

}  // namespace
