// Where a block of the small wgmma tiles spends its time (issue 12, bf16 512^3): the kernel built
// with kWgmmaStampPhases stamps each block's phases (WgmmaPhase: entry, set-up, last copy issued,
// each consumer's first and last slot landed, wgmmas complete, sums exchanged, C stored) with
// the SM's clock, and its entry and end with the global timer. The test checks that the stamped
// kernel still matches the fp64 reference, that every block of every launch stamps every phase
// in order, and prints the median of each phase over blocks and launches (cycles after the
// block's entry) with the grid's spread of entries, L2 flushed before each launch as the timing
// harness flushes it (and once left warm, and once without an epilogue, to split the tail). The
// figures are a diagnostic, printed, not asserted: speed is measured by
// coalesce-tune sweeps, never by a test.
#define COALESCE_WGMMA_STAMPS 1

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu_test.hpp"
#include "harness/device.hpp"
#include "harness/kernel_method.hpp"
#include "harness/method.hpp"
#include "harness/timing.hpp"
#include "harness/workspace.hpp"
#include "kernels/wgmma/family.hpp"
#include "kernels/wgmma/gemm.cuh"

namespace {

using namespace coalesce;

struct Stamped {
  const char* what;
  Config config;
  Epilogue epilogue;
  const void* kernel;
  long long blocks;  ///< the grid at the test's shape (one tile a block)
  bool exchanges;    ///< k_interleave = 2: the consumers stamp kPhaseExchanged
  bool flush = true;  ///< L2 flushed before each launch (as timed); else warm from the launch before
};

constexpr int kM = 512, kN = 512, kK = 512;

template <class Tile, Epilogue E = Epilogue::bias_gelu>
Stamped stamped(const char* what, bool flush = true) {
  static_assert(!Tile::config.persistent && Tile::config.split == 1, "one tile a block, grid in x");
  return {what,
          from_wgmma(Tile::config),
          E,
          reinterpret_cast<const void*>(&wgmma_gemm_kernel<Tile, EpilogueFor<E>, Dtype::bf16, kWgmmaStampPhases>),
          Tile::grid_blocks(kM, kN),
          Tile::config.k_interleave == 2,
          flush};
}

//                                   bm  bn  bk s wg cm cn p  g ts sp pp rd ew sk ki sab
using Swapped32x64 = WgmmaTile<32, 64, 64, 8, 2, 1, 1, 0, 8, 0, 1, 0, 0, 0, 0, 2, 1>;      // run LW's fastest
using SwappedPair32x64 = WgmmaTile<32, 64, 64, 8, 2, 2, 1, 0, 8, 0, 1, 0, 0, 0, 0, 2, 1>;  // B shared by K rows
using Swapped48x64 = WgmmaTile<48, 64, 64, 8, 2, 1, 1, 0, 8, 0, 1, 0, 0, 0, 0, 2, 1>;      // cuBLAS's tile

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

TEST(WgmmaPhases, EveryBlockStampsItsPhasesInOrder) {
  COALESCE_REQUIRE_GPU();
  constexpr int kLaunches = 20;
  Stream stream;
  Workspace ws({kM, kN, kK, Dtype::bf16, Epilogue::bias_gelu}, 512, stream.get());
  const TimingSettings timing;  // the harness's flush: its factor and mode
  L2Flush flush(0, timing.l2_flush_factor, timing.l2_flush);
  // The epilogue's share: the same tile storing the bare sums; the code's and data's cold start:
  // the same tile with L2 left warm by the launch before.
  for (const Stamped& k : {stamped<Swapped32x64>("swapped 32x64 ki2"),
                           stamped<Swapped32x64, Epilogue::none>("swapped 32x64 ki2, no epilogue"),
                           stamped<Swapped32x64>("swapped 32x64 ki2, L2 not flushed", false),
                           stamped<SwappedPair32x64>("swapped 32x64 ki2, 2x1 cluster sharing B"),
                           stamped<Swapped48x64>("swapped 48x64 ki2")}) {
    SCOPED_TRACE(k.what);
    const Method m = kernel_method(k.config, k.epilogue, k.kernel, ws);
    DeviceBuffer<unsigned long long> stamps(static_cast<std::size_t>(k.blocks) * kPhaseSlots);
    unsigned long long* where = stamps.get();
    COALESCE_CUDA(cudaMemcpyToSymbol(g_wgmma_stamps, &where, sizeof(where)));
    // Stamping changes nothing the kernel computes.
    const CheckResult c = check_method(m, ws);
    ASSERT_TRUE(c.passed) << c.why;

    std::vector<unsigned long long> h(static_cast<std::size_t>(k.blocks) * kPhaseSlots);
    std::vector<std::vector<double>> cycles(kPhaseSlots);
    std::vector<double> spread_ns, span_ns, block_ns;
    for (int launch = 0; launch < kLaunches; ++launch) {
      COALESCE_CUDA(cudaMemsetAsync(where, 0, stamps.bytes(), ws.stream()));
      if (k.flush) flush.flush(ws.stream());
      m.launch(ws.stream());
      COALESCE_CUDA(cudaStreamSynchronize(ws.stream()));
      COALESCE_CUDA(cudaMemcpy(h.data(), where, stamps.bytes(), cudaMemcpyDeviceToHost));
      unsigned long long first_entry = ~0ull, last_entry = 0, last_end = 0;
      for (long long b = 0; b < k.blocks; ++b) {
        const unsigned long long* s = &h[static_cast<std::size_t>(b) * kPhaseSlots];
        // Every block stamped its entry and end, and its steps in order.
        ASSERT_NE(s[kPhaseEntryNs], 0u) << "block " << b << " of launch " << launch;
        ASSERT_GE(s[kPhaseEndNs], s[kPhaseEntryNs]) << "block " << b;
        ASSERT_LE(s[kPhaseEntry], s[kPhaseSetUp]) << "block " << b;
        ASSERT_LE(s[kPhaseSetUp], s[kPhaseIssued]) << "block " << b;
        for (int c2 = 0; c2 < 2; ++c2) {
          const int base = c2 * kPhaseConsumerSteps;
          unsigned long long before = s[kPhaseEntry];
          for (int p = kPhaseFirstData; p <= kPhaseStored; ++p) {
            if (p == kPhaseExchanged && !k.exchanges) continue;
            ASSERT_LE(before, s[base + p]) << "block " << b << ", consumer " << c2 << ", phase " << p;
            before = s[base + p];
            cycles[base + p].push_back(static_cast<double>(s[base + p] - s[kPhaseEntry]));
          }
        }
        cycles[kPhaseSetUp].push_back(static_cast<double>(s[kPhaseSetUp] - s[kPhaseEntry]));
        cycles[kPhaseIssued].push_back(static_cast<double>(s[kPhaseIssued] - s[kPhaseEntry]));
        first_entry = std::min(first_entry, s[kPhaseEntryNs]);
        last_entry = std::max(last_entry, s[kPhaseEntryNs]);
        last_end = std::max(last_end, s[kPhaseEndNs]);
        block_ns.push_back(static_cast<double>(s[kPhaseEndNs] - s[kPhaseEntryNs]));
      }
      spread_ns.push_back(static_cast<double>(last_entry - first_entry));
      span_ns.push_back(static_cast<double>(last_end - first_entry));
    }
    const char* names[] = {"", "", "set-up done", "last copy issued", "first slot landed", "last slot landed",
                           "wgmmas complete", "sums exchanged", "C stored"};
    std::printf("\n%s, bf16 %dx%dx%d, %lld blocks, %d launches (median over blocks and launches, SM cycles after "
                "the block's entry)\n",
                k.what, kM, kN, kK, k.blocks, kLaunches);
    for (int p = kPhaseSetUp; p <= kPhaseStored; ++p) {
      if (p == kPhaseExchanged && !k.exchanges) continue;
      if (p < kPhaseFirstData)
        std::printf("  %-20s %8.0f\n", names[p], median(cycles[p]));
      else
        std::printf("  %-20s %8.0f (consumer 0) %8.0f (consumer 1)\n", names[p], median(cycles[p]),
                    median(cycles[p + kPhaseConsumerSteps]));
    }
    std::printf("  block entry to consumer 0's end: %.0f ns; entries spread over %.0f ns; first entry to last end "
                "%.0f ns (global timer)\n",
                median(block_ns), median(spread_ns), median(span_ns));
  }
}

}  // namespace
