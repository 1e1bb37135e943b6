// Every shape gets a checked kernel (issue 39): the issue's tiny and unaligned shapes in every
// dtype, through every family the space selects there (tests/unit/tuner/shapes_test.cpp pins
// which), each run against the fp64 reference on random inputs; then matrices of 2^31 elements
// or more through simt's 64-bit offsets and mma's. The kernels are nvcc instantiations of the
// configs the space selects at these shapes (narrow copies: mma's 2-byte plain loads, simt's
// 1-float copies, gemv's 4- and 2-byte loads; wgmma on the launch's padded copies of unaligned
// 16-bit rows, through each of its stores and schedules), each run only where its family's rules
// accept the problem; a (shape, dtype) whose selecting families are not all run fails.
#include <set>
#include <string>
#include <vector>

#include "gpu_test.hpp"
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
#include "tuner/space.hpp"

namespace {

using namespace coalesce;

struct Instance {
  Config config;
  Dtype dtype;
  const void* kernel;
};

constexpr Epilogue kEpi = Epilogue::bias_gelu;

template <class Tile>
Instance simt() {
  return {from_simt(Tile::config), Dtype::f32, reinterpret_cast<const void*>(&simt_gemm_kernel<Tile, EpilogueFor<kEpi>>)};
}
template <class Tile, Dtype D>
Instance mma() {
  return {from_mma(Tile::config), D, reinterpret_cast<const void*>(&mma_gemm_kernel<Tile, GemmOf<D>, EpilogueFor<kEpi>>)};
}
template <class Tile, Dtype D>
Instance wgmma() {
  return {from_wgmma(Tile::config), D, reinterpret_cast<const void*>(&wgmma_gemm_kernel<Tile, EpilogueFor<kEpi>, D>)};
}
template <class Tile, Dtype D>
Instance gemv() {
  return {from_gemv(Tile::config), D, reinterpret_cast<const void*>(&gemv_gemm_kernel<Tile, GemmOf<D>, EpilogueFor<kEpi>>)};
}

// simt: 1- and 4-float copies of B; the 64-bit variant of the 1-float one.
using SimtV1 = SimtTile<64, 64, 16, 32, 32, 4, 8, 3, 1, 8, 2>;
using SimtV4 = SimtTile<64, 64, 16, 32, 32, 4, 8, 3, 4, 8, 2>;
using SimtV4Wide = SimtTile<128, 128, 16, 64, 32, 8, 8, 3, 4, 8, 2, 1, 64>;
using SimtV1Wide = SimtTile<64, 64, 16, 32, 32, 4, 8, 3, 1, 8, 2, 1, 64>;
// mma: the built-in 2-byte (odd bf16/f16 rows) and 4-byte configs, a padded 2-byte one, a
// split-K 2-byte one, and the 16-byte one for aligned rows.
using MmaV2 = MmaTile<128, 128, 64, 64, 32, 4, 2, 1, 8, 1>;
using MmaV2Padded = MmaTile<64, 64, 64, 32, 32, 3, 2, 0, 8, 1>;
using MmaV2Split = MmaTile<128, 128, 64, 64, 32, 4, 2, 1, 8, 1, 3>;
using MmaV4 = MmaTile<128, 128, 64, 64, 32, 4, 4, 1, 8, 1>;
using MmaV16 = MmaTile<128, 128, 64, 64, 64, 4, 16, 1, 8, 2>;
// gemv: 16-, 4- and 2-byte loads of B.
using GemvV16 = GemvTile<4, 8, 16, 8, 4>;
using GemvV4 = GemvTile<4, 8, 4, 8, 4>;
using GemvV2 = GemvTile<4, 8, 2, 32, 8>;  // the 2-byte built-in: an odd N in bf16/f16
// wgmma (staged where K or N is not a multiple of 8): the register store, the TMA store, split-K
// with the reduce after the kernel and in it (counters), and stream-K.
using WgmmaRegisters = WgmmaTile<128, 256, 64, 4, 2, 1, 1, 0, 8, 0>;
using WgmmaTmaStore = WgmmaTile<128, 128, 64, 6, 2, 1, 1, 1, 8, 1>;
using WgmmaSplit = WgmmaTile<128, 128, 64, 6, 2, 1, 1, 0, 8, 0, 2>;
using WgmmaCounters = WgmmaTile<128, 128, 64, 6, 2, 1, 1, 0, 8, 0, 2, 0, 1>;
using WgmmaStreamK = WgmmaTile<128, 128, 64, 4, 2, 1, 1, 1, 8, 0, 1, 0, 0, 0, 2>;

const std::vector<Instance>& instances() {
  static const std::vector<Instance> all = {
      simt<SimtV1>(),
      simt<SimtV4>(),
      mma<MmaV2, Dtype::bf16>(),
      mma<MmaV2, Dtype::f16>(),
      mma<MmaV2Padded, Dtype::bf16>(),
      mma<MmaV2Split, Dtype::f16>(),
      mma<MmaV4, Dtype::tf32>(),
      mma<MmaV4, Dtype::f32>(),
      mma<MmaV4, Dtype::bf16>(),
      mma<MmaV16, Dtype::f16>(),
      gemv<GemvV16, Dtype::f32>(),
      gemv<GemvV16, Dtype::tf32>(),
      gemv<GemvV16, Dtype::bf16>(),
      gemv<GemvV16, Dtype::f16>(),
      gemv<GemvV4, Dtype::f32>(),
      gemv<GemvV4, Dtype::tf32>(),
      gemv<GemvV2, Dtype::bf16>(),
      gemv<GemvV2, Dtype::f16>(),
      wgmma<WgmmaRegisters, Dtype::bf16>(),
      wgmma<WgmmaRegisters, Dtype::f16>(),
      wgmma<WgmmaTmaStore, Dtype::f16>(),
      wgmma<WgmmaSplit, Dtype::bf16>(),
      wgmma<WgmmaCounters, Dtype::f16>(),
      wgmma<WgmmaStreamK, Dtype::bf16>(),
  };
  return all;
}

struct Shape {
  int m, n, k;
};

// The issue's shapes, 4095x4097x4100 standing for the unaligned neighbour of 4096^3.
const Shape kShapes[] = {{1, 1, 1},     {7, 9, 13},    {33, 65, 129},     {4097, 1, 4097},
                         {3, 5000, 3},  {129, 257, 1}, {1000, 3001, 777}, {4095, 4097, 4100}};

std::string where(const Instance& k, const Problem& p) {
  return config_name(k.config, k.dtype, kEpi) + " at " + shape_string(p);
}

// Whether `k` may run `p` on `target`: its family runs there, and its rules accept the config
// on the device and the problem (what the space asks of a candidate).
bool runs(const Instance& k, const Problem& p, const Target& target) {
  const Family* family = find_family(k.config.family);
  if (!family || k.dtype != p.dtype || !family->supports(target).ok() || !family->supports(p.dtype).ok()) return false;
  const int registers = family->predict(k.config, target.limits, p).registers;
  return family->check(k.config, target.limits, registers).ok() && family->check_problem(k.config, p).ok() &&
         family->check_schedule(k.config, p, target).ok();
}

TEST(Shapes, EverySelectingFamilyMatchesTheFp64ReferenceAtEveryIssueShape) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  const Target target = current_target();
  for (const Shape& s : kShapes) {
    for (Dtype d : all_dtypes()) {
      const Problem p{s.m, s.n, s.k, d, kEpi};
      std::set<std::string> selecting, checked;
      for (const Family* family : families())
        if (tuner::enumerate(*family, p, target).legal() > 0) selecting.insert(std::string(family->name()));
      Workspace ws(p, 3900 + s.m + 7 * s.n + static_cast<int>(d), stream.get());
      for (const Instance& k : instances()) {
        if (!runs(k, p, target)) continue;
        const Method m = kernel_method(k.config, kEpi, k.kernel, ws);
        for (Inputs inputs : {Inputs::normal, Inputs::bend}) {
          const CheckResult c = check_method(m, ws, inputs);
          EXPECT_TRUE(c.passed) << where(k, p) << (inputs == Inputs::bend ? " (bend inputs): " : ": ") << c.why;
        }
        checked.insert(k.config.family);
      }
      EXPECT_FALSE(selecting.empty()) << shape_string(p) << " " << to_string(d) << ": no family selects a config";
      for (const std::string& family : selecting)
        EXPECT_TRUE(checked.count(family)) << shape_string(p) << " " << to_string(d) << ": " << family
                                           << " selects configs here but none of this test's instances ran";
    }
  }
}

// Matrices of 2^31 elements or more (issue 39): C of 32768 x 65537 (2^31 + 32768 elements),
// and B of 32769 x 65536, through simt's 64-bit offsets (f32) and mma's (tf32 and bf16; its
// offsets are 64-bit in every config). K and M are kept small so that the fp64 reference (16 GiB for
// the large C) fits beside the operands on an 80 GB card.
TEST(Shapes, MatricesPastTwoToTheThirtyOneElements) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  const Target target = current_target();
  const Shape huge[] = {{32768, 65537, 16}, {16, 65536, 32769}};
  const Instance wide[] = {simt<SimtV4Wide>(), simt<SimtV1Wide>(), mma<MmaV4, Dtype::tf32>(), mma<MmaV2, Dtype::bf16>()};
  int checked = 0;
  for (const Shape& s : huge) {
    for (const Instance& k : wide) {
      const Problem p{s.m, s.n, s.k, k.dtype, kEpi};
      ASSERT_TRUE(needs_64bit_offsets(p.m, p.n, p.k)) << shape_string(p);
      if (!runs(k, p, target)) continue;
      Workspace ws(p, 5100 + s.m, stream.get());
      const CheckResult c = check_method(kernel_method(k.config, kEpi, k.kernel, ws), ws);
      EXPECT_TRUE(c.passed) << where(k, p) << ": " << c.why;
      ++checked;
    }
  }
  // Every instance runs both shapes but simt's 4-float copies, which an odd N refuses.
  EXPECT_EQ(checked, 7);
}

}  // namespace
