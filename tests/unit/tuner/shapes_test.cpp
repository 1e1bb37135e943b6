// Every shape gets a config (issue 39): for the issue's tiny, unaligned and huge problems, in
// every dtype, the space on the H200 (sm_90a, every family) selects at least one config, and
// which families select one is pinned here, so a rule change that loses a shape shows up as a
// diff of this table. tests/gpu/shapes_test.cu runs what it selects through the fp64 check.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "kernels/core/family.hpp"
#include "kernels/gemv/family.hpp"
#include "kernels/mma/family.hpp"
#include "kernels/simt/family.hpp"
#include "tuner/space.hpp"

namespace coalesce::tuner {
namespace {

const Target kH200{9, 0, true, DeviceLimits{}, 132};

// The families with at least one legal candidate for `p`, in registration order, joined by ",".
std::string selecting_families(const Problem& p) {
  std::string out;
  for (const Family* family : families()) {
    const Space space = enumerate(*family, p, kH200);
    if (space.legal() > 0) out += (out.empty() ? "" : ",") + std::string(family->name());
  }
  return out;
}

struct Row {
  int m, n, k;
  // The selecting families for f32, tf32, bf16, f16.
  const char* f32;
  const char* tf32;
  const char* bf16;
  const char* f16;
};

// The issue's shapes. mma takes every one in every dtype (2-byte plain loads for rows of an odd
// number of bf16/f16; 4-byte cp.async for any f32 row); simt every f32 one (1-float copies);
// gemv every one with M <= 64 (2-byte loads for an odd N in bf16/f16); wgmma every bf16/f16 one
// under 2^31 elements (rows that TMA cannot read in place, K or N not a multiple of 8, run on
// padded copies: Staging in kernels/core/family.hpp), and no tf32 one (its transposed tile keeps
// the 16-byte rule: K and N multiples of 4).
const Row kRows[] = {
    {1, 1, 1, "simt,mma,gemv", "mma,gemv", "mma,wgmma,gemv", "mma,wgmma,gemv"},
    {7, 9, 13, "simt,mma,gemv", "mma,gemv", "mma,wgmma,gemv", "mma,wgmma,gemv"},
    {33, 65, 129, "simt,mma,gemv", "mma,gemv", "mma,wgmma,gemv", "mma,wgmma,gemv"},
    {4097, 1, 4097, "simt,mma", "mma", "mma,wgmma", "mma,wgmma"},
    {3, 5000, 3, "simt,mma,gemv", "mma,gemv", "mma,wgmma,gemv", "mma,wgmma,gemv"},
    {129, 257, 1, "simt,mma", "mma", "mma,wgmma", "mma,wgmma"},
    {1000, 3001, 777, "simt,mma", "mma", "mma,wgmma", "mma,wgmma"},
    {4095, 4097, 4100, "simt,mma", "mma", "mma,wgmma", "mma,wgmma"},
    // Past 2^31 elements: simt with 64-bit offsets; mma, whose offsets are 64-bit.
    {131072, 131072, 8192, "simt,mma", "mma", "mma", "mma"},
};

TEST(Shapes, EveryIssueShapeHasAConfigInEveryDtype) {
  for (const Row& r : kRows) {
    const std::map<Dtype, const char*> expected = {
        {Dtype::f32, r.f32}, {Dtype::tf32, r.tf32}, {Dtype::bf16, r.bf16}, {Dtype::f16, r.f16}};
    for (Dtype d : all_dtypes()) {
      const Problem p{r.m, r.n, r.k, d, Epilogue::bias_gelu};
      const std::string got = selecting_families(p);
      EXPECT_FALSE(got.empty()) << shape_string(p) << " " << to_string(d);
      EXPECT_EQ(got, expected.at(d)) << shape_string(p) << " " << to_string(d);
    }
  }
}

// The copies the unaligned 16-bit shapes select: 2 bytes where K or N is odd (mma), where N is
// odd (gemv, which loads only B in vectors).
TEST(Shapes, UnalignedSixteenBitRowsTakeTwoByteCopies) {
  for (Dtype d : {Dtype::bf16, Dtype::f16}) {
    for (const Row& r : kRows) {
      const Problem p{r.m, r.n, r.k, d, Epilogue::bias_gelu};
      const bool odd = r.k % 2 != 0 || r.n % 2 != 0;
      const Space space = enumerate(mma_family(), p, kH200);
      ASSERT_GT(space.legal(), 0u) << shape_string(p);
      for (const Candidate& c : space.candidates)
        if (!c.pruned() && odd) EXPECT_EQ(to_mma(c.config).vec_bytes, 2) << c.name;
      if (r.m > GemvConfig::kMaxM) continue;
      const Space gemv = enumerate(gemv_family(), p, kH200);
      ASSERT_GT(gemv.legal(), 0u) << shape_string(p);
      for (const Candidate& c : gemv.candidates)
        if (!c.pruned() && r.n % 2 != 0) EXPECT_EQ(to_gemv(c.config).vec_bytes, 2) << c.name;
    }
  }
}

// 64-bit offsets only where a matrix has 2^31 elements or more, so the common case keeps 32.
TEST(Shapes, SimtIndexBitsFollowTheProblem) {
  for (const Row& r : kRows) {
    const Problem p{r.m, r.n, r.k, Dtype::f32, Epilogue::bias_gelu};
    const Space space = enumerate(simt_family(), p, kH200);
    const int bits = needs_64bit_offsets(r.m, r.n, r.k) ? 64 : 32;
    std::size_t legal = 0;
    for (const Candidate& c : space.candidates) {
      EXPECT_EQ(to_simt(c.config).index_bits, bits) << c.name;
      legal += !c.pruned();
    }
    EXPECT_GT(legal, 0u) << shape_string(p);
  }
}

// A problem with a matrix past 2^31 elements and no split-K variant past the reduce's 32-bit
// partials: every legal mma candidate there is unsplit or keeps split·M·N under 2^31.
TEST(Shapes, HugeProblemsKeepSplitPartialsIndexable) {
  const Problem p{131072, 131072, 8192, Dtype::bf16, Epilogue::bias_gelu};
  for (const Candidate& c : enumerate(mma_family(), p, kH200).candidates)
    if (!c.pruned()) EXPECT_EQ(to_mma(c.config).split, 1) << c.name;
}

}  // namespace
}  // namespace coalesce::tuner
