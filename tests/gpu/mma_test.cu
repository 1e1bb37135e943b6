// The mma family's kernel (kernels/mma/gemm.cuh) compiled by nvcc, against the fp64 reference:
// six tiles (four built-ins, a padded 128-byte-slice tile, a two-stage 8-byte-copy tile) in
// bf16, f16 and tf32, with the empty and the erf-GELU epilogue (the first tile with every
// epilogue), at square, edge, narrow-row, tall, tiny and long-K shapes, on normal and bend
// inputs; a shape every 16-bit tile here refuses; and two runs giving the same bits; f32 as
// 3xTF32 at f32's tolerance, which tf32's single product fails (the tests at the end). Split-K
// (kernels/core/family.hpp, kSplitParam): three split tiles at 2, 3 and 8 K slices in every
// dtype at skinny, edge and uneven-K shapes (some with K slices for no block), through
// kernel_method()'s workspace and reduce, each run twice for the same bits; and every partial
// sum written, empty slices included, into a NaN-poisoned workspace.
//
// A failure names the kernel, the shape, the inputs and the check's figures, then says where
// the wrong elements are (diagnose()): how many, the first few, their rows modulo 16 and
// columns modulo 8 (an mma tile: a fragment-layout mistake shows as a pattern there), and
// whether they sit only in edge tiles (a predication mistake) or everywhere (the mainloop).
#include <cuda_fp16.h>

#include <cmath>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "gpu_test.hpp"
#include "harness/cuda_check.hpp"
#include "harness/cuda_raii.hpp"
#include "harness/kernel_method.hpp"
#include "harness/method.hpp"
#include "harness/splitk.hpp"
#include "harness/workspace.hpp"
#include "kernels/mma/family.hpp"
#include "kernels/mma/gemm.cuh"

namespace {

using namespace coalesce;

struct Kernel {
  MmaConfig config;
  Dtype dtype;
  Epilogue epilogue;
  const void* fn;
};

//                                BM   BN  BK_B WM  WN  S  VEC SW  G  MINB
using Large = MmaTile<          128, 256,  64, 64, 64, 4, 16, 1, 8, 1>;  // built-in 1
using Medium = MmaTile<         128, 128,  64, 64, 64, 4, 16, 1, 8, 2>;  // built-in 2
using Small = MmaTile<           64,  64,  64, 32, 32, 4, 16, 1, 8, 4>;  // built-in 3
using Narrow = MmaTile<         128, 128,  64, 64, 32, 4,  4, 1, 8, 1>;  // built-in 5: 4-byte copies
using Padded = MmaTile<         128, 128, 128, 64, 32, 3, 16, 0, 8, 1>;  // padded rows, 4 k-steps per slice
using TwoStage = MmaTile<        64, 128, 128, 32, 64, 2,  8, 0, 4, 1>;  // 8-byte copies, the shortest ring
// Split-K kernels (SPLIT = 2 runs every factor: the slices are gridDim.z).
//                                BM   BN  BK_B WM  WN  S  VEC SW  G  MINB SPLIT
using SplitLarge = MmaTile<     128, 256,  64, 64, 64, 4, 16, 1, 8, 1,   2>;  // built-in 1
using SplitSmall = MmaTile<      64,  64,  64, 32, 32, 4, 16, 1, 8, 4,   2>;  // built-in 3
using SplitNarrow = MmaTile<    128, 128,  64, 64, 32, 4,  4, 1, 8, 1,   2>;  // built-in 5: 4-byte copies

template <class Tile, Dtype D, class Epi>
Kernel kernel(Epilogue e) {
  static_assert(Tile::config.check(DeviceLimits{}).ok(), "a tested tile is legal on the H200");
  return {Tile::config, D, e, reinterpret_cast<const void*>(&mma_gemm_kernel<Tile, GemmOf<D>, Epi>)};
}

template <class Tile, Dtype D>
void add_tile(std::vector<Kernel>& out, bool every_epilogue) {
  out.push_back(kernel<Tile, D, EpilogueNone>(Epilogue::none));
  out.push_back(kernel<Tile, D, EpilogueFor<Epilogue::bias_gelu>>(Epilogue::bias_gelu));
  if (every_epilogue) {
    out.push_back(kernel<Tile, D, EpilogueBias>(Epilogue::bias));
    out.push_back(kernel<Tile, D, EpilogueFor<Epilogue::bias_relu>>(Epilogue::bias_relu));
  }
}

template <Dtype D>
void add_dtype(std::vector<Kernel>& out) {
  add_tile<Large, D>(out, true);
  add_tile<Medium, D>(out, false);
  add_tile<Small, D>(out, false);
  add_tile<Narrow, D>(out, false);
  add_tile<Padded, D>(out, false);
  add_tile<TwoStage, D>(out, false);
}

const std::vector<Kernel>& kernels() {
  static const std::vector<Kernel> all = [] {
    std::vector<Kernel> out;
    add_dtype<Dtype::bf16>(out);
    add_dtype<Dtype::f16>(out);
    add_dtype<Dtype::tf32>(out);
    return out;
  }();
  return all;
}

struct Shape {
  int m, n, k;
};
std::string str(const Shape& s) { return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k); }

// Square and tile-aligned; 1000 (a multiple of no block tile, rows of 16-byte multiples in
// every dtype); rows of 2004 and 1996 bytes in bf16/f16 (4-byte copies only) and 4008 and 3992
// bytes in tf32 (8-byte copies); odd N and K (tf32 with 4-byte copies only; bf16/f16 with 2-byte
// copies, which none of these tiles has: tests/gpu/shapes_test.cu runs them);
// M past a power of two with few columns; a single row with K under one slice; K of 64 slices
// and more; a problem smaller than every block tile.
constexpr Shape kShapes[] = {{512, 512, 512},  {1000, 1000, 1000}, {1000, 1002, 998}, {1000, 1001, 999},
                             {4097, 128, 264}, {1, 64, 16},        {256, 2048, 4096}, {96, 160, 40}};

double to_double(const unsigned char* c, std::size_t i, Dtype d) {
  if (d == Dtype::tf32 || d == Dtype::f32) {
    float f;
    std::memcpy(&f, c + 4 * i, 4);
    return f;
  }
  unsigned short bits;
  std::memcpy(&bits, c + 2 * i, 2);
  if (d == Dtype::bf16) {
    const unsigned u = static_cast<unsigned>(bits) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
  __half_raw raw;
  raw.x = bits;
  return __half2float(__half(raw));
}

// Where the output is wrong: elements off by more than 20x the check's elementwise tolerance
// (or not finite), counted by row % 16 and column % 8 and by edge vs interior block tile.
std::string diagnose(Workspace& ws, const ReferenceKind& kind, const MmaConfig& cfg, double tolerance) {
  const Problem& p = ws.problem();
  const std::size_t count = static_cast<std::size_t>(p.m) * p.n;
  std::vector<double> ref(count);
  std::vector<unsigned char> out(ws.c_bytes());
  COALESCE_CUDA(cudaMemcpy(ref.data(), ws.reference(kind), count * sizeof(double), cudaMemcpyDeviceToHost));
  COALESCE_CUDA(cudaMemcpy(out.data(), ws.c(), out.size(), cudaMemcpyDeviceToHost));
  double sum = 0;
  for (double r : ref) sum += r * r;
  const double rms = std::sqrt(sum / static_cast<double>(count));
  long long bad = 0, bad_edge = 0, non_finite = 0;
  long long by_row16[16] = {}, by_col8[8] = {};
  std::ostringstream first;
  const int full_m = p.m / cfg.bm * cfg.bm, full_n = p.n / cfg.bn * cfg.bn;
  for (int i = 0; i < p.m; ++i)
    for (int j = 0; j < p.n; ++j) {
      const std::size_t at = static_cast<std::size_t>(i) * p.n + j;
      const double o = to_double(out.data(), at, p.dtype), r = ref[at];
      const bool finite = std::isfinite(o);
      if (finite && std::fabs(o - r) <= 20 * tolerance * (std::fabs(r) + rms)) continue;
      ++bad;
      non_finite += !finite;
      bad_edge += i >= full_m || j >= full_n;
      ++by_row16[i % 16];
      ++by_col8[j % 8];
      if (bad <= 4) first << " (" << i << ", " << j << "): " << o << " vs " << r << ";";
    }
  std::ostringstream s;
  s << "\n  where: " << bad << " of " << count << " elements off by more than 20x the tolerance (" << non_finite
    << " not finite), " << bad_edge << " of them in edge tiles (rows >= " << full_m << " or columns >= " << full_n
    << ")";
  if (bad == 0) return s.str();
  s << "\n  first:" << first.str() << "\n  by row % 16:";
  for (long long c : by_row16) s << " " << c;
  s << "\n  by column % 8:";
  for (long long c : by_col8) s << " " << c;
  return s.str();
}

std::string figures(const CheckResult& c) {
  char buf[240];
  std::snprintf(buf, sizeof buf, "rel_frobenius %.3g (tolerance %.3g), max_scaled %.3g (tolerance %.3g), non-finite %lld",
                c.errors.rel_frobenius, c.tolerance.rel_frobenius, c.errors.max_scaled_err, c.tolerance.max_scaled,
                c.errors.non_finite);
  return buf;
}

// Checks `m` on normal and bend inputs against the fp64 reference with the problem's own
// tolerance (for f32 the one the simt family's FP32 FMAs meet), and on a failure says where the
// wrong elements are; returns the checks made.
int check_both_inputs(const Method& m, Workspace& ws, const MmaConfig& config, const std::string& where) {
  int checked = 0;
  for (Inputs inputs : {Inputs::normal, Inputs::bend}) {
    const CheckResult c = check_method(m, ws, inputs);
    EXPECT_TRUE(c.passed) << where << " on " << (inputs == Inputs::bend ? "bend" : "normal") << " inputs: " << c.why
                          << "\n  " << figures(c) << diagnose(ws, m.reference(), config, c.tolerance.max_scaled);
    EXPECT_EQ(c.tolerance.rel_frobenius, tolerance_for(ws.problem()).rel_frobenius) << where;
    ++checked;
  }
  return checked;
}

// Runs `m` once more on the inputs it last ran on: a correct kernel gives the same bits.
void expect_same_bits_again(const Method& m, Workspace& ws, const std::string& where) {
  ws.snapshot_output();
  ws.poison_output();
  m.launch(ws.stream());
  EXPECT_EQ(ws.output_differs(), 0) << where << ": a second run changed the output";
}

TEST(Mma, EveryKernelMatchesTheReferenceOrRefusesTheShape) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  int checked = 0, refused = 0;
  for (const Shape& s : kShapes)
    for (Dtype d : {Dtype::bf16, Dtype::f16, Dtype::tf32}) {
      Workspace ws({s.m, s.n, s.k, d, Epilogue::bias_gelu}, 300 + s.n + static_cast<int>(d), stream.get());
      for (const Kernel& k : kernels()) {
        if (k.dtype != d) continue;
        const std::string where = config_name(from_mma(k.config), d, k.epilogue) + " at " + str(s);
        if (!k.config.check_problem(s.m, s.n, s.k, d).ok()) {
          EXPECT_THROW(kernel_method(from_mma(k.config), k.epilogue, k.fn, ws), std::invalid_argument) << where;
          ++refused;
          continue;
        }
        const Method m = kernel_method(from_mma(k.config), k.epilogue, k.fn, ws);
        checked += check_both_inputs(m, ws, k.config, where);
      }
    }
  // Every kernel takes 512^3, 1000^3, 4097x128x264, 1x64x16, 256x2048x4096 and 96x160x40; the
  // 4-byte-copy tile also takes 1000x1002x998 in every dtype and 1000x1001x999 in tf32; the
  // 8-byte-copy tile takes 1000x1002x998 in tf32.
  const int per_dtype = static_cast<int>(kernels().size()) / 3;
  EXPECT_EQ(checked, 2 * (3 * 6 * per_dtype + 3 * 2 + 2 + 2));
  EXPECT_EQ(refused, 3 * 2 * per_dtype - (3 * 2 + 2 + 2));
}

// A race shows as an output that changes between runs on the same inputs: run kernels with edge
// tiles three times each and require the same bits (the mainloop's order of accumulation is
// fixed, so a correct kernel is deterministic).
TEST(Mma, RepeatedRunsAreBitIdentical) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  for (Dtype d : {Dtype::bf16, Dtype::tf32}) {
    Workspace ws({1000, 1000, 1000, d, Epilogue::bias_gelu}, 11, stream.get());
    for (const Kernel& k : kernels()) {
      if (k.dtype != d || k.epilogue != Epilogue::bias_gelu) continue;
      const Method m = kernel_method(from_mma(k.config), k.epilogue, k.fn, ws);
      std::vector<unsigned char> first(ws.c_bytes()), again(ws.c_bytes());
      for (int run = 0; run < 3; ++run) {
        ws.poison_output();
        m.launch(ws.stream());
        COALESCE_CUDA(cudaStreamSynchronize(ws.stream()));
        COALESCE_CUDA(cudaMemcpy(run == 0 ? first.data() : again.data(), ws.c(), first.size(), cudaMemcpyDeviceToHost));
        if (run > 0)
          EXPECT_EQ(std::memcmp(first.data(), again.data(), first.size()), 0)
              << config_name(from_mma(k.config), d, k.epilogue) << ": run " << run << " differs from run 0";
      }
    }
  }
}

// A split tile's kernel in one dtype. In split mode the kernel stores raw sums whatever its Epi
// (the reduce applies the epilogue), so one instantiation serves every epilogue.
template <class Tile, Dtype D>
Kernel split_kernel() {
  static_assert(Tile::config.split > 1 && Tile::config.check(DeviceLimits{}).ok(), "a legal split tile");
  return {Tile::config, D, Epilogue::bias_gelu,
          reinterpret_cast<const void*>(&mma_gemm_kernel<Tile, GemmOf<D>, EpilogueFor<Epilogue::bias_gelu>>)};
}

std::vector<Kernel> split_kernels(Dtype d) {
  switch (d) {
    case Dtype::bf16:
      return {split_kernel<SplitLarge, Dtype::bf16>(), split_kernel<SplitSmall, Dtype::bf16>(),
              split_kernel<SplitNarrow, Dtype::bf16>()};
    case Dtype::f16:
      return {split_kernel<SplitLarge, Dtype::f16>(), split_kernel<SplitSmall, Dtype::f16>(),
              split_kernel<SplitNarrow, Dtype::f16>()};
    case Dtype::tf32:
      return {split_kernel<SplitLarge, Dtype::tf32>(), split_kernel<SplitSmall, Dtype::tf32>(),
              split_kernel<SplitNarrow, Dtype::tf32>()};
    default: return {};
  }
}

Config with_split(const MmaConfig& tile, int slices) {
  MmaConfig c = tile;
  c.split = slices;
  return from_mma(c);
}

// One row with K of 128 (bf16/f16) or 256 (tf32) 64-byte slices; 8 rows with uneven tiles and K
// (1000: 31.25 slices in bf16/f16, 62.5 in tf32), which no factor divides; 33 rows, past a
// 32-row warp tile; 128 rows with K of 8.25 (bf16/f16) or 16.5 (tf32) slices, which 8 blocks of
// z share 2 or 3 each, leaving the last ones none; rows of 1996 and 2004 bytes in bf16/f16
// (3992 and 4008 in tf32), which only the 4-byte-copy tile takes.
constexpr Shape kSplitShapes[] = {{1, 4096, 4096}, {8, 1000, 1000}, {33, 4096, 1000}, {128, 512, 264},
                                  {8, 1002, 998}};

TEST(Mma, SplitKMatchesTheReferenceAndIsDeterministic) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  int checked = 0;
  for (const Shape& s : kSplitShapes)
    for (Dtype d : {Dtype::bf16, Dtype::f16, Dtype::tf32}) {
      Workspace ws({s.m, s.n, s.k, d, Epilogue::bias_gelu}, 700 + s.m + static_cast<int>(d), stream.get());
      for (const Kernel& k : split_kernels(d))
        for (int slices : {2, 3, 8})
          for (Epilogue e : {Epilogue::bias_gelu, Epilogue::none}) {
            const Config config = with_split(k.config, slices);
            if (!mma_family().check_problem(config, ws.problem()).ok()) continue;
            const std::string where = config_name(config, d, e) + " at " + str(s);
            const Method m = kernel_method(config, e, k.fn, ws);
            EXPECT_EQ(m.workspace_bytes, 4LL * slices * s.m * s.n) << where;
            checked += check_both_inputs(m, ws, k.config, where);
            expect_same_bits_again(m, ws, where);
          }
    }
  // Every tile takes the first four shapes at every factor, with both epilogues on both inputs,
  // in every dtype; 8x1002x998 only the 4-byte-copy tile takes.
  EXPECT_EQ(checked, 3 * (4 * 3 + 1) * 3 * 2 * 2);
}

// Every block stores its partial sums, a block whose share of K is empty included (zeros): the
// kernel writes into a workspace of NaNs, and the reduce's output must pass the check.
TEST(Mma, SplitKWritesEveryPartialSum) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  const int max_blocks = elementwise_grid_cap();
  for (Dtype d : {Dtype::bf16, Dtype::tf32}) {
    // bf16: 9 slices of K over 8 blocks of z, 2 each, so z = 5, 6 and 7 have none; tf32: 17 over
    // 8, 3 each, so z = 6 and 7 have none.
    Workspace ws({33, 512, 264, d, Epilogue::bias_gelu}, 31, stream.get());
    const Problem p = ws.problem();
    const int slices = 8;
    for (const Kernel& k : split_kernels(d)) {
      const Config config = with_split(k.config, slices);
      const std::string where = config_name(config, d, p.epilogue);
      ASSERT_TRUE(mma_family().check_problem(config, p).ok()) << where;
      const Geometry g = mma_family().geometry(config, p, Target{});
      ASSERT_EQ(g.grid_z, static_cast<unsigned>(slices)) << where;
      auto partials = std::make_shared<DeviceBuffer<float>>(static_cast<std::size_t>(slices) * p.m * p.n);
      COALESCE_CUDA(cudaFuncSetAttribute(k.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, g.smem_bytes));
      Method m;
      m.method = "coalesce";
      m.family = "mma";
      m.config = where;
      m.reference_epilogue = p.epilogue;
      m.launch = [&ws, p, g, k, partials, slices, max_blocks](cudaStream_t st) {
        COALESCE_CUDA(cudaMemsetAsync(partials->get(), 0xff, sizeof(float) * slices * p.m * p.n, st));
        const void* a = ws.a();
        const void* b = ws.b();
        const void* bias = ws.bias();
        void* c = partials->get();
        int rows = p.m, cols = p.n, depth = p.k;
        void* args[] = {&a, &b, &bias, &c, &rows, &cols, &depth};
        COALESCE_CUDA(cudaLaunchKernel(k.fn, dim3(g.grid_x, g.grid_y, g.grid_z), dim3(g.block_x), args,
                                       static_cast<std::size_t>(g.smem_bytes), st));
        launch_splitk_reduce(p, partials->get(), slices, ws.bias(), ws.c(), max_blocks, st);
      };
      const CheckResult c = check_method(m, ws);
      EXPECT_TRUE(c.passed) << where << ": " << c.why << "\n  " << figures(c)
                            << diagnose(ws, m.reference(), k.config, c.tolerance.max_scaled);
    }
  }
}

// f32 as 3xTF32 (MmaMath<Math::f32>): tiles whose split fragments and slice sums fit the
// registers (64x32 and 32x64 warp tiles, 64- and 128-byte slices), with 16-, 8- and 4-byte
// copies, padded and swizzled, every epilogue on the first, at every shape of the test above,
// checked against f32's own tolerance (the
// simt family's) on normal and bend inputs and run twice for the same bits; split-K at 2, 3 and
// 8 K slices through the reduce. And the check's side of it: tf32's kernel on the same f32
// problems (one TF32 product, the lo parts dropped) fails that tolerance at every shape.
//                                BM   BN  BK_B WM  WN  S  VEC SW  G  MINB SPLIT
using F32Wide = MmaTile<        128, 128,  64, 64, 32, 4, 16, 1, 8, 1>;
using F32Padded = MmaTile<      128, 128,  64, 64, 32, 3, 16, 0, 8, 1>;
using F32TwoStage = MmaTile<     64, 128,  64, 32, 64, 2,  8, 0, 4, 1>;
using F32Split = MmaTile<       128, 128,  64, 64, 32, 4, 16, 1, 8, 1,   2>;
using F32TwoStage128 = MmaTile< 128, 128, 128, 64, 32, 2,  8, 0, 4, 1>;  // 8-byte copies, 2 stages

// f32's own rule (3xTF32's lo parts and slice sums in registers) holds for every tile here; a
// tile that broke it would be refused by check_problem at every shape and test nothing.
template <class Tile>
constexpr bool f32_legal = Tile::config.check(DeviceLimits{}, Tile::config.model_registers_3xtf32()).ok() &&
                           Tile::config.check_problem(512, 512, 512, Dtype::f32).ok();
static_assert(f32_legal<F32Wide> && f32_legal<Narrow> && f32_legal<F32Padded> && f32_legal<F32TwoStage> &&
              f32_legal<F32Split> && f32_legal<Padded> && f32_legal<F32TwoStage128>);

const std::vector<Kernel>& f32_kernels() {
  static const std::vector<Kernel> all = [] {
    std::vector<Kernel> out;
    add_tile<F32Wide, Dtype::f32>(out, true);
    add_tile<Narrow, Dtype::f32>(out, false);
    add_tile<F32Padded, Dtype::f32>(out, false);
    add_tile<F32TwoStage, Dtype::f32>(out, false);
    // 128-byte slices: four k-steps into each slice's sums
    add_tile<Padded, Dtype::f32>(out, false);
    add_tile<F32TwoStage128, Dtype::f32>(out, false);
    return out;
  }();
  return all;
}

TEST(Mma, F32As3xTf32MatchesTheF32Reference) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  int checked = 0, refused = 0;
  for (const Shape& s : kShapes) {
    Workspace ws({s.m, s.n, s.k, Dtype::f32, Epilogue::bias_gelu}, 900 + s.n, stream.get());
    for (const Kernel& k : f32_kernels()) {
      const std::string where = config_name(from_mma(k.config), Dtype::f32, k.epilogue) + " at " + str(s);
      if (!k.config.check_problem(s.m, s.n, s.k, Dtype::f32).ok()) {
        EXPECT_THROW(kernel_method(from_mma(k.config), k.epilogue, k.fn, ws), std::invalid_argument) << where;
        ++refused;
        continue;
      }
      const Method m = kernel_method(from_mma(k.config), k.epilogue, k.fn, ws);
      checked += check_both_inputs(m, ws, k.config, where);
      expect_same_bits_again(m, ws, where);
    }
  }
  // As tf32: every tile takes six of the shapes; the 4-byte-copy tile also 1000x1002x998 and
  // 1000x1001x999, the two 8-byte-copy tiles 1000x1002x998.
  const int kernels_count = static_cast<int>(f32_kernels().size());
  EXPECT_EQ(checked, 2 * (6 * kernels_count + 2 * 2 + 2 * 2));
  EXPECT_EQ(refused, 2 * kernels_count - (2 * 2 + 2 * 2));
}

TEST(Mma, OneTf32ProductFailsTheF32Check) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  const void* tf32_kernel = reinterpret_cast<const void*>(&mma_gemm_kernel<F32Wide, GemmOf<Dtype::tf32>, EpilogueFor<Epilogue::bias_gelu>>);
  const void* f32_kernel = reinterpret_cast<const void*>(&mma_gemm_kernel<F32Wide, GemmOf<Dtype::f32>, EpilogueFor<Epilogue::bias_gelu>>);
  for (const Shape& s : {Shape{512, 512, 512}, Shape{1000, 1000, 1000}, Shape{256, 2048, 4096}, Shape{96, 160, 40}}) {
    Workspace ws({s.m, s.n, s.k, Dtype::f32, Epilogue::bias_gelu}, 950 + s.k, stream.get());
    const CheckResult one = check_method(kernel_method(from_mma(F32Wide::config), Epilogue::bias_gelu, tf32_kernel, ws), ws);
    EXPECT_FALSE(one.passed) << "tf32's kernel passed f32's check at " << str(s) << ": " << figures(one);
    const CheckResult three = check_method(kernel_method(from_mma(F32Wide::config), Epilogue::bias_gelu, f32_kernel, ws), ws);
    EXPECT_TRUE(three.passed) << str(s) << ": " << three.why << "\n  " << figures(three);
    // 3xTF32's error is the size of f32 accumulation's, far under one TF32 product's.
    EXPECT_LT(three.errors.rel_frobenius * 20, one.errors.rel_frobenius) << str(s);
  }
}

TEST(Mma, F32SplitKMatchesTheReferenceAndIsDeterministic) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  const std::vector<Kernel> split = {split_kernel<F32Split, Dtype::f32>(), split_kernel<SplitNarrow, Dtype::f32>()};
  int checked = 0;
  for (const Shape& s : kSplitShapes) {
    Workspace ws({s.m, s.n, s.k, Dtype::f32, Epilogue::bias_gelu}, 970 + s.m, stream.get());
    for (const Kernel& k : split)
      for (int slices : {2, 3, 8}) {
        const Config config = with_split(k.config, slices);
        if (!mma_family().check_problem(config, ws.problem()).ok()) continue;
        const std::string where = config_name(config, Dtype::f32, Epilogue::bias_gelu) + " at " + str(s);
        const Method m = kernel_method(config, Epilogue::bias_gelu, k.fn, ws);
        checked += check_both_inputs(m, ws, k.config, where);
        expect_same_bits_again(m, ws, where);
      }
  }
  // Both tiles take the first four shapes at every factor; 8x1002x998 only the 4-byte-copy tile.
  EXPECT_EQ(checked, (2 * 4 * 3 + 3) * 2);
}

}  // namespace
