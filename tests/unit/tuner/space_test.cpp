// A family's search space (here simt's, and mma's split-K variants): enumeration is complete,
// deterministic and judged by the family's one validity rule; the random strategy is a
// deterministic function of its seed.
#include "tuner/space.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "kernels/gemv/family.hpp"
#include "kernels/mma/family.hpp"
#include "kernels/simt/family.hpp"
#include "kernels/wgmma/family.hpp"

namespace coalesce::tuner {
namespace {

Problem square(int s) { return Problem{s, s, s, Dtype::f32, Epilogue::bias_gelu}; }

Target h200_with(const DeviceLimits& limits) { return Target{9, 0, true, limits}; }

Space enumerate_simt(const Problem& p, const DeviceLimits& limits) {
  return enumerate(simt_family(), p, h200_with(limits));
}

std::size_t product_of_lists() {
  const SimtLists& l = simt_lists();
  std::size_t n = 1;
  for (const auto* list : {&l.bm, &l.bn, &l.bk, &l.wm, &l.wn, &l.tm, &l.tn, &l.stages, &l.group_m, &l.min_blocks})
    n *= list->size();
  return n;
}

TEST(Space, EveryCombinationIsACandidateOrANonConfig) {
  Space s = enumerate_simt(square(4096), DeviceLimits{});
  EXPECT_EQ(s.candidates.size() + s.non_configs.size(), product_of_lists());
  for (const Candidate& c : s.candidates) EXPECT_TRUE(to_simt(c.config).check().ok()) << c.name;
  for (const NonConfig& n : s.non_configs) {
    EXPECT_FALSE(n.verdict.ok());
    EXPECT_NE(n.verdict.why, nullptr);
  }
}

TEST(Space, VerdictsAreTheSharedRule) {
  DeviceLimits limits;
  Problem p = square(4096);
  Space s = enumerate_simt(p, limits);
  for (const Candidate& c : s.candidates) {
    const SimtConfig config = to_simt(c.config);
    Verdict device = config.check(limits, config.predicted_registers());
    Verdict expected = device.ok() ? config.check_problem(p.m, p.n, p.k) : device;
    EXPECT_EQ(c.verdict.violation, expected.violation) << c.name;
    EXPECT_EQ(c.pruned(), !expected.ok());
    if (c.pruned()) EXPECT_NE(c.verdict.why, nullptr);
    EXPECT_EQ(c.predicted.registers, config.predicted_registers());
    EXPECT_EQ(c.predicted.smem_bytes, config.smem_bytes());
    EXPECT_EQ(c.predicted.blocks_per_sm, config.blocks_per_sm(limits, config.predicted_registers()));
    EXPECT_EQ(c.name, config_name(c.config, Dtype::f32, Epilogue::bias_gelu));
  }
}

// The sweep at 4096 must finish within 10 minutes on the H200 host, where a config measures in
// about a quarter of a second: the lists are sized for several hundred legal configs, not
// thousands (the H200 sweep's own time is in results/).
TEST(Space, A4096SweepIsSeveralHundredConfigs) {
  Space s = enumerate_simt(square(4096), DeviceLimits{});
  EXPECT_GE(s.legal(), 200u);
  EXPECT_LE(s.legal(), 1000u);
}

TEST(Space, EnumerationIsDeterministicAndNamesAreUnique) {
  Space a = enumerate_simt(square(1024), DeviceLimits{});
  Space b = enumerate_simt(square(1024), DeviceLimits{});
  ASSERT_EQ(a.candidates.size(), b.candidates.size());
  std::set<std::string> names;
  for (std::size_t i = 0; i < a.candidates.size(); ++i) {
    EXPECT_EQ(a.candidates[i].name, b.candidates[i].name);
    names.insert(a.candidates[i].name);
  }
  EXPECT_EQ(names.size(), a.candidates.size());
}

TEST(Space, VectorWidthFollowsTheProblem) {
  for (const Candidate& c : enumerate_simt(Problem{512, 514, 512}, DeviceLimits{}).candidates)
    EXPECT_EQ(to_simt(c.config).vec, 2);
}

// A family that does not compute the dtype, or does not run on the device, has no space: the
// sweep reports its refusal instead of a list of pruned rows.
TEST(Space, RefusedFamiliesHaveNoCandidates) {
  Problem bf16 = square(1024);
  bf16.dtype = Dtype::bf16;
  EXPECT_EQ(refused(simt_family(), bf16, h200_with({})).violation, Violation::dtype);
  EXPECT_TRUE(enumerate(simt_family(), bf16, h200_with({})).candidates.empty());
  const Target volta{7, 0, false, {}};
  EXPECT_EQ(refused(simt_family(), square(1024), volta).violation, Violation::arch);
  EXPECT_TRUE(enumerate(simt_family(), square(1024), volta).candidates.empty());
}

// An epilogue the family's kernels cannot read (a residual without KernelArg::residual: simt)
// refuses the whole sweep with the epilogue's reason; gemv, whose kernels read one (and which the
// compiler emits with its residual operand), sweeps it unsplit. The tanh GELU and SiLU take part.
TEST(Space, EpiloguesAFamilyCannotRunAreRefused) {
  Problem residual = square(64);
  residual.epilogue = Epilogue::bias_gelu_residual;
  const Verdict v = refused(simt_family(), residual, h200_with({}));
  EXPECT_EQ(v.violation, Violation::epilogue);
  EXPECT_NE(std::string(v.why).find("residual"), std::string::npos) << v.why;
  EXPECT_TRUE(enumerate(simt_family(), residual, h200_with({})).candidates.empty());
  EXPECT_TRUE(refused(gemv_family(), residual, h200_with({})).ok());
  const Space gemv = enumerate(gemv_family(), residual, h200_with({}));
  ASSERT_GT(gemv.legal(), 0u);
  for (const Candidate& c : gemv.candidates)
    if (!c.pruned()) EXPECT_EQ(gemv_family().value(c.config, kSplitParam), 1) << c.name;  // split-K reads no residual
  for (Epilogue e : {Epilogue::bias_gelu_tanh, Epilogue::bias_silu}) {
    Problem p = square(1024);
    p.epilogue = e;
    EXPECT_TRUE(refused(simt_family(), p, h200_with({})).ok()) << to_string(e);
    EXPECT_FALSE(enumerate(simt_family(), p, h200_with({})).candidates.empty()) << to_string(e);
  }
}

// A gated epilogue (swiglu at Llama-3-8B's merged gate/up shape): simt is refused with the
// reason; mma, gemv (decode) and wgmma sweep it; wgmma keeps the configs whose store applies the
// gate (WgmmaConfig::check_gated: tma_store = 0, ...) and prunes the TMA-store ones with theirs,
// and the same configs are legal for bias_gelu. An odd N refuses every family.
TEST(Space, AGatedEpilogueIsSweptByTheFamiliesThatStoreIt) {
  const Target h200{9, 0, true, DeviceLimits{}, 132};
  Problem gated{16, 28672, 4096, Dtype::bf16, Epilogue::swiglu};
  Problem f32 = gated;
  f32.dtype = Dtype::f32;
  const Verdict simt = refused(simt_family(), f32, h200);
  EXPECT_EQ(simt.violation, Violation::epilogue);
  EXPECT_NE(std::string(simt.why).find("gated"), std::string::npos) << simt.why;
  for (const Family* f : {&mma_family(), &gemv_family(), &wgmma_family()}) {
    EXPECT_TRUE(refused(*f, gated, h200).ok()) << f->name();
    EXPECT_GT(enumerate(*f, gated, h200).legal(), 0u) << f->name();
  }
  Problem plain = gated;
  plain.epilogue = Epilogue::bias_gelu;
  const Space with_gate = enumerate(wgmma_family(), gated, h200), without = enumerate(wgmma_family(), plain, h200);
  std::map<std::vector<int>, const Candidate*> plain_of;
  for (const Candidate& c : without.candidates) plain_of[c.config.values] = &c;
  int tma_pruned = 0, compared = 0;
  for (const Candidate& c : with_gate.candidates) {
    const WgmmaConfig w = to_wgmma(c.config);
    if (!c.pruned()) {
      EXPECT_EQ(w.tma_store, 0) << c.name;
      EXPECT_TRUE(w.check_gated().ok()) << c.name;
    } else if (c.verdict.violation == Violation::epilogue) {
      EXPECT_FALSE(w.check_gated().ok()) << c.name;
      tma_pruned += w.tma_store;
    }
    // A config whose store applies the gate is judged as it is for bias_gelu.
    const auto same = plain_of.find(c.config.values);
    if (w.check_gated().ok() && same != plain_of.end()) {
      EXPECT_EQ(c.pruned(), same->second->pruned()) << c.name;
      ++compared;
    }
  }
  EXPECT_GT(compared, 0);
  EXPECT_GT(tma_pruned, 0);
  // Both spaces list the same configs: whether split-K can help is judged on the unsplit config
  // without its in-kernel reduction (check_schedule), so a cluster-reduce variant judged
  // unsplittable no longer cuts off a legal base's larger factors for bias_gelu alone (1041
  // candidates against swiglu's 1058 before).
  EXPECT_EQ(with_gate.candidates.size(), without.candidates.size());
  EXPECT_EQ(compared + std::count_if(with_gate.candidates.begin(), with_gate.candidates.end(),
                                     [](const Candidate& c) { return !to_wgmma(c.config).check_gated().ok(); }),
            static_cast<long>(with_gate.candidates.size()));
  Problem odd = gated;
  odd.n = 28671;
  for (const Family* f : families()) EXPECT_FALSE(refused(*f, odd, h200).ok()) << f->name();
}

TEST(Space, SmallerDeviceLimitsPruneWithTheirCategory) {
  DeviceLimits small;
  small.smem_per_block_optin = 48 * 1024;
  small.max_threads_per_block = 256;
  Space s = enumerate_simt(square(4096), small);
  std::set<Violation> seen;
  for (const Candidate& c : s.candidates)
    if (c.pruned()) seen.insert(c.verdict.violation);
  EXPECT_TRUE(seen.count(Violation::smem));
  EXPECT_TRUE(seen.count(Violation::threads));
  EXPECT_LT(s.legal(), enumerate_simt(square(4096), DeviceLimits{}).legal());
}

TEST(Select, ExhaustiveIsEveryLegalCandidateInOrder) {
  Space s = enumerate_simt(square(2048), DeviceLimits{});
  auto all = select(s, Strategy::exhaustive, -1, 0);
  ASSERT_EQ(all.size(), s.legal());
  std::size_t j = 0;
  for (const Candidate& c : s.candidates)
    if (!c.pruned()) EXPECT_EQ(all[j++].name, c.name);
}

TEST(Select, RandomIsAFunctionOfTheSeed) {
  Space s = enumerate_simt(square(2048), DeviceLimits{});
  auto a = select(s, Strategy::random, 12, 7);
  auto b = select(s, Strategy::random, 12, 7);
  auto c = select(s, Strategy::random, 12, 8);
  ASSERT_EQ(a.size(), 12u);
  std::set<std::string> names_a, names_c;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].name, b[i].name);
    EXPECT_FALSE(a[i].pruned());
    names_a.insert(a[i].name);
    names_c.insert(c[i].name);
  }
  EXPECT_EQ(names_a.size(), 12u);  // drawn without replacement
  EXPECT_NE(names_a, names_c);
}

TEST(Select, RandomBudgetBeyondTheSpaceTakesEverything) {
  Space s = enumerate_simt(square(2048), DeviceLimits{});
  EXPECT_EQ(select(s, Strategy::random, 100000, 1).size(), s.legal());
  EXPECT_EQ(select(s, Strategy::random, 0, 1).size(), 0u);
}

// Split-K variants follow each legal unsplit config where the unsplit grid leaves SMs idle, and
// are counted, not listed, where it already fills them.
TEST(Space, SplitVariantsOnlyWhereTheyCanHelp) {
  Space big = enumerate_simt(square(4096), DeviceLimits{});
  for (const Candidate& c : big.candidates) EXPECT_EQ(split_slices(c.config), 1) << c.name;
  EXPECT_EQ(big.unsplittable, big.legal());

  Space skinny = enumerate_simt(Problem{32, 4096, 4096, Dtype::f32, Epilogue::bias_gelu}, DeviceLimits{});
  EXPECT_EQ(skinny.unsplittable, 0u);
  std::size_t whole = 0, split = 0;
  for (std::size_t i = 0; i < skinny.candidates.size(); ++i) {
    const Candidate& c = skinny.candidates[i];
    if (split_slices(c.config) == 1) {
      ++whole;
      continue;
    }
    ++split;
    // A variant comes after its unsplit config, which is legal.
    std::size_t j = i;
    while (split_slices(skinny.candidates[j].config) != 1) --j;
    EXPECT_EQ(simt_family().with(c.config, kSplitParam, 1), skinny.candidates[j].config);
    EXPECT_FALSE(skinny.candidates[j].pruned());
  }
  EXPECT_GT(split, whole);
}

// The wgmma family's split variants: at a skinny bf16 shape each legal unsplit config with the
// direct store, a one-block-per-tile grid and no cluster is followed by its factors (the rule
// refuses a split with tma_store, persistent or a cluster of two, so those list none); at 4096^3
// the tiles fill the SMs and none is listed.
TEST(Space, WgmmaSplitsOnlyDirectStoreGridConfigs) {
  const Target h200{9, 0, true, DeviceLimits{}, 132};
  Space big = enumerate(wgmma_family(), Problem{4096, 4096, 4096, Dtype::bf16, Epilogue::bias_gelu}, h200);
  std::size_t splittable = 0;  // legal, and a split is a config of the rule
  for (const Candidate& c : big.candidates) {
    EXPECT_EQ(split_slices(c.config), 1) << c.name;
    const WgmmaConfig w = to_wgmma(c.config);
    splittable += !c.pruned() && w.persistent == 0 && w.tma_store == 0 && w.cluster_size() == 1;
  }
  EXPECT_EQ(big.unsplittable, splittable);
  EXPECT_GT(splittable, 0u);

  const Problem skinny_problem{64, 4096, 4096, Dtype::bf16, Epilogue::bias_gelu};
  Space skinny = enumerate(wgmma_family(), skinny_problem, h200);
  std::size_t split = 0, in_kernel = 0, in_cluster = 0;
  for (std::size_t i = 0; i < skinny.candidates.size(); ++i) {
    const Candidate& c = skinny.candidates[i];
    const WgmmaConfig w = to_wgmma(c.config);
    if (w.split == 1) {
      // Followed by its variants exactly when it is legal, can take a split, and its grid leaves
      // SMs idle (the swapped 16-row tile's 256 blocks fill a wave at one block per SM).
      const bool next_is_split = i + 1 < skinny.candidates.size() &&
                                 split_slices(skinny.candidates[i + 1].config) > 1;
      const long long blocks = wgmma_family().geometry(c.config, skinny_problem, h200).blocks();
      const int per_sm = std::max(1, wgmma_family().predict(c.config, h200.limits, skinny_problem).blocks_per_sm);
      const bool fills = blocks >= 132LL * per_sm;
      EXPECT_EQ(next_is_split, !c.pruned() && w.persistent == 0 && w.tma_store == 0 && w.cluster_size() == 1 && !fills)
          << c.name;
      continue;
    }
    ++split;
    EXPECT_EQ(w.persistent, 0) << c.name;
    EXPECT_EQ(w.tma_store, 0) << c.name;
    EXPECT_NE(c.name.find("_sk" + std::to_string(w.split) + "_"), std::string::npos) << c.name;
    // Each factor with the separate reduce, then the same factor reduced in the kernel (1), then
    // in the cluster (2), where the rule takes them.
    if (w.reduce) {
      ++(w.reduce == 1 ? in_kernel : in_cluster);
      ASSERT_GT(i, 0u);
      std::size_t twin = i - 1;
      if (w.reduce == 2 && to_wgmma(skinny.candidates[twin].config).reduce == 1) --twin;
      WgmmaConfig before = to_wgmma(skinny.candidates[twin].config);
      EXPECT_EQ(before.reduce, 0) << c.name;
      before.reduce = w.reduce;
      EXPECT_EQ(from_wgmma(before), c.config) << c.name;
      if (w.reduce == 2) EXPECT_LE(w.split, WgmmaConfig::kMaxClusterSlices) << c.name;
    }
  }
  EXPECT_GT(split, 0u);
  // Every in-kernel variant follows its separate-reduce twin; the rule keeps reduce = 1 to tiles
  // of at most 64 accumulators per thread and reduce = 2 to clusters of at most 8 slices, so not
  // every twin has either.
  EXPECT_GT(in_kernel, 0u);
  EXPECT_GT(in_cluster, 0u);
  EXPECT_LT(2 * in_kernel, split);
}

// The same for a second family with a split (mma): no variant at 4096³, variants at 8 rows, and
// among them legal ones of every factor, the 16-bit partials' workspace counted in f32.
TEST(Space, MmaSplitVariantsOnlyWhereTheyCanHelp) {
  Space big = enumerate(mma_family(), Problem{4096, 4096, 4096, Dtype::bf16, Epilogue::bias_gelu}, h200_with({}));
  for (const Candidate& c : big.candidates) EXPECT_EQ(split_slices(c.config), 1) << c.name;
  EXPECT_EQ(big.unsplittable, big.legal());

  const Problem skinny{8, 4096, 4096, Dtype::bf16, Epilogue::bias_gelu};
  Space s = enumerate(mma_family(), skinny, h200_with({}));
  EXPECT_EQ(s.unsplittable, 0u);
  std::set<int> factors;
  for (const Candidate& c : s.candidates)
    if (split_slices(c.config) > 1 && !c.pruned()) {
      factors.insert(split_slices(c.config));
      EXPECT_EQ(workspace_bytes(c.config, skinny), 4LL * split_slices(c.config) * 8 * 4096) << c.name;
    }
  EXPECT_EQ(factors, std::set<int>(std::begin(kSplitFactors), std::end(kSplitFactors)));
}

}  // namespace
}  // namespace coalesce::tuner
