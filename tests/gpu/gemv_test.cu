// The gemv family's kernel (kernels/gemv/gemm.cuh) compiled by nvcc, against the fp64 reference:
// the built-ins and four sweep configs (one row per block with 32 lanes across, eight rows with
// 4 lanes, 8-byte loads, sixteen rows), unsplit and split 4 (the harness's workspace and
// reduce), in f32, tf32, bf16 and f16 with every epilogue, and in f32 and tf32 32 rows with A
// staged in shared memory, unsplit and split 4 (issue 12: its 8 bf16 columns a lane do not fit
// the registers); at M = 1, 3, 8, 17, 20, 32 and 64 (rows past M in a block: 20 and 17 with 16
// and 32 rows; more row groups than one) with N = K = 4096, and at uneven shapes (N = 1000,
// K = 1030, a staged tail step; N = 1002, whose bf16 rows take only 4-byte loads), on normal and
// bend inputs; every rerun gives the same bits.
#include <cstdio>
#include <iterator>
#include <string>
#include <vector>

#include "gpu_test.hpp"
#include "harness/cuda_check.hpp"
#include "harness/kernel_method.hpp"
#include "harness/method.hpp"
#include "harness/workspace.hpp"
#include "kernels/gemv/builtin.hpp"
#include "kernels/gemv/family.hpp"
#include "kernels/gemv/gemm.cuh"

namespace {

using namespace coalesce;

struct Kernel {
  GemvConfig config;  ///< split = 1 for the unsplit kernel, 2 for the split one (any factor)
  Dtype dtype;
  Epilogue epilogue;
  const void* fn;
};

//                            MR  W  VEC LANES U
using Builtin1 = GemvTile<     4, 8, 16,  8,   4>;
using Builtin2 = GemvTile<     4, 8,  4, 32,   8>;
using OneRow = GemvTile<       1, 4, 16, 32,   8>;
using EightRows = GemvTile<    8, 8, 16,  4,   8>;
using Vec8 = GemvTile<         2, 4,  8,  8,   4>;
using SixteenRows = GemvTile< 16, 8, 16,  8,   4>;
using StagedRows = GemvTile<  32, 4, 16, 32,   4>;
static_assert(!SixteenRows::config.stages_a() && StagedRows::config.stages_a(), "A is staged above 16 rows");
static_assert(Builtin1::config.mr == gemv_builtin::kConfigs[0].mr && Builtin1::config.vec_bytes == 16 &&
                  Builtin1::config.lanes == gemv_builtin::kConfigs[0].lanes,
              "Builtin1 is the first built-in");
static_assert(Builtin2::config.vec_bytes == gemv_builtin::kConfigs[1].vec_bytes &&
                  Builtin2::config.lanes == gemv_builtin::kConfigs[1].lanes &&
                  Builtin2::config.unroll == gemv_builtin::kConfigs[1].unroll,
              "Builtin2 is the second built-in");

template <class Tile, Dtype D, class Epi>
Kernel kernel(Epilogue e) {
  static_assert(Tile::config.check(DeviceLimits{}).ok(), "a tested tile is legal on the H200");
  return {Tile::config, D, e, reinterpret_cast<const void*>(&gemv_gemm_kernel<Tile, GemmOf<D>, Epi>)};
}

template <class Tile, Dtype D>
void add_tile(std::vector<Kernel>& out) {
  out.push_back(kernel<Tile, D, EpilogueNone>(Epilogue::none));
  out.push_back(kernel<Tile, D, EpilogueBias>(Epilogue::bias));
  out.push_back(kernel<Tile, D, EpilogueFor<Epilogue::bias_relu>>(Epilogue::bias_relu));
  out.push_back(kernel<Tile, D, EpilogueFor<Epilogue::bias_gelu>>(Epilogue::bias_gelu));
}

// The split kernel of a tile: the same parameters with SPLIT = 2, which runs any factor.
template <class Tile>
using SplitOf = GemvTile<Tile::config.mr, Tile::config.warps, Tile::config.vec_bytes, Tile::config.lanes,
                         Tile::config.unroll, 2>;

template <Dtype D>
void add_dtype(std::vector<Kernel>& out) {
  add_tile<Builtin1, D>(out);
  add_tile<Builtin2, D>(out);
  add_tile<OneRow, D>(out);
  add_tile<EightRows, D>(out);
  add_tile<Vec8, D>(out);
  add_tile<SixteenRows, D>(out);
  add_tile<SplitOf<Builtin1>, D>(out);
  add_tile<SplitOf<EightRows>, D>(out);
  if constexpr (D == Dtype::f32 || D == Dtype::tf32) {
    add_tile<StagedRows, D>(out);
    add_tile<SplitOf<StagedRows>, D>(out);
  }
}

const std::vector<Kernel>& kernels() {
  static const std::vector<Kernel> all = [] {
    std::vector<Kernel> out;
    add_dtype<Dtype::f32>(out);
    add_dtype<Dtype::tf32>(out);
    add_dtype<Dtype::bf16>(out);
    add_dtype<Dtype::f16>(out);
    return out;
  }();
  return all;
}

struct Shape {
  int m, n, k;
};
std::string str(const Shape& s) { return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k); }

constexpr Shape kShapes[] = {{1, 4096, 4096},  {3, 4096, 4096},  {8, 4096, 4096},  {17, 4096, 4096},
                             {20, 4096, 4096}, {32, 4096, 4096}, {64, 4096, 4096}, {3, 1000, 1030},
                             {17, 1000, 1030}, {5, 1002, 1030}};

// The config a kernel runs as: its split kernel with 4 slices.
Config run_config(const Kernel& k) {
  GemvConfig c = k.config;
  if (c.split > 1) c.split = 4;
  return from_gemv(c);
}

std::string figures(const CheckResult& c) {
  char buf[240];
  std::snprintf(buf, sizeof buf, "rel_frobenius %.3g (tolerance %.3g), max_scaled %.3g (tolerance %.3g), non-finite %lld",
                c.errors.rel_frobenius, c.tolerance.rel_frobenius, c.errors.max_scaled_err, c.tolerance.max_scaled,
                c.errors.non_finite);
  return buf;
}

TEST(Gemv, EveryKernelMatchesTheReferenceRerunsBitIdenticallyOrRefusesTheShape) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  int checked = 0, refused = 0;
  for (const Shape& s : kShapes)
    for (Dtype d : all_dtypes()) {
      Workspace ws({s.m, s.n, s.k, d, Epilogue::bias_gelu}, 700 + s.m + s.n + static_cast<int>(d), stream.get());
      for (const Kernel& k : kernels()) {
        if (k.dtype != d) continue;
        const Config config = run_config(k);
        const std::string where = config_name(config, d, k.epilogue) + " at " + str(s);
        if (!gemv_family().check_problem(config, {s.m, s.n, s.k, d, k.epilogue}).ok()) {
          EXPECT_THROW(kernel_method(config, k.epilogue, k.fn, ws), std::invalid_argument) << where;
          ++refused;
          continue;
        }
        const Method m = kernel_method(config, k.epilogue, k.fn, ws);
        EXPECT_TRUE(m.deterministic) << where;
        for (Inputs inputs : {Inputs::bend, Inputs::normal}) {
          const CheckResult c = check_method(m, ws, inputs);
          EXPECT_TRUE(c.passed) << where << " on " << (inputs == Inputs::bend ? "bend" : "normal") << " inputs: "
                                << c.why << "\n  " << figures(c);
          ++checked;
        }
        // The same inputs give the same bits (fixed orders of summation, split or not).
        ws.snapshot_output();
        ws.poison_output();
        m.launch(ws.stream());
        COALESCE_CUDA(cudaStreamSynchronize(ws.stream()));
        EXPECT_EQ(ws.output_differs(), 0) << where << ": a rerun changed the output";
      }
    }
  // Every kernel takes every shape but 5x1002x1030 in 16-bit types (2004-byte rows of B), which
  // only the 4-byte built-in takes; in f32 and tf32 its 4008-byte rows refuse the 16-byte loads.
  int expected_refused = 0;
  for (const Kernel& k : kernels())
    expected_refused += k.config.vec_bytes == 16 || (k.config.vec_bytes == 8 && k.dtype != Dtype::f32 &&
                                                     k.dtype != Dtype::tf32);
  EXPECT_EQ(refused, expected_refused);
  EXPECT_EQ(checked, 2 * (static_cast<int>(std::size(kShapes) * kernels().size()) - refused));
}

}  // namespace
