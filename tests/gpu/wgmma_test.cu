// The wgmma family on the GPU (nvcc, sm_90a only): configs in bf16, f16 and tf32 through the harness
// (kernel_method: tensor maps, geometry, launch) against the fp64 reference on normal and bend
// inputs, at 4096^3, at an edge shape and at shapes smaller than one tile; bit-identical reruns;
// shapes the family refuses are refused, not launched; the planted pipeline hazards (issue 11,
// item 5) fail the check on random inputs while the same config without them passes; and split-K configs (partials + the harness's reduce) at skinny, uneven-K and edge
// shapes, deterministic run to run; and stream-K configs, their planted bugs caught.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

struct Shape {
  int m, n, k;
};

std::string where(const Config& c, Dtype d, Epilogue e, const Shape& s) {
  return config_name(c, d, e) + " at " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}

/// One nvcc instantiation with the config it was built from.
struct Instance {
  Config config;
  Dtype dtype;
  Epilogue epilogue;
  const void* kernel;
};

template <class Tile, Dtype D, Epilogue E, int HAZARDS = kWgmmaHazardNone>
Instance instance() {
  return {from_wgmma(Tile::config), D, E,
          reinterpret_cast<const void*>(&wgmma_gemm_kernel<Tile, EpilogueFor<E>, D, HAZARDS>)};
}

/// The Method of an instance, after the family's rule has judged the compiled kernel's own
/// registers (as the tuner does with ptxas' figures): a two-consumer kernel launched with fewer
/// registers than its setmaxnreg split would hang, not fail.
Method method_of(const Instance& k, Workspace& ws) {
  cudaFuncAttributes attributes{};
  COALESCE_CUDA(cudaFuncGetAttributes(&attributes, k.kernel));
  const Verdict v = wgmma_family().check(k.config, current_target().limits, attributes.numRegs);
  if (!v.ok())
    throw std::runtime_error(config_name(k.config, k.dtype, k.epilogue) + " as compiled (" +
                             std::to_string(attributes.numRegs) + " registers): " + v.why);
  return kernel_method(k.config, k.epilogue, k.kernel, ws);
}

//                                 bm   bn  bk  s wg cm cn  p  g ts
using Persistent128x256 = WgmmaTile<128, 256, 64, 4, 2, 1, 1, 1, 8, 0>;  // built-in 0
using Grid128x256 = WgmmaTile<128, 256, 64, 4, 2, 1, 1, 0, 8, 0>;        // built-in 1
using TmaStore128x128 = WgmmaTile<128, 128, 64, 6, 2, 1, 1, 1, 8, 1>;    // built-in 2
using One64x128 = WgmmaTile<64, 128, 64, 6, 1, 1, 1, 0, 8, 0>;           // built-in 3
using Two128Rows = WgmmaTile<256, 128, 64, 4, 2, 1, 1, 0, 1, 0>;         // two m64 blocks per consumer, row order
using One128x192 = WgmmaTile<128, 192, 64, 4, 1, 1, 1, 1, 8, 1>;         // one consumer of 128 rows, TMA store
// One 64-column chunk of B: the B descriptor's leading byte offset (the distance between chunks)
// is never used, so this config passing while wider ones fail points at that offset.
using Narrow128x64 = WgmmaTile<128, 64, 64, 6, 2, 1, 1, 0, 8, 0>;
// Deep rings (listed for problems of few tiles): 12 stages, a ring whose slot count is not a
// power of two, carried from tile to tile by a persistent block and stored through TMA; and 8
// stages with two consumers in a 1x2 cluster that multicasts A.
using Deep64x64 = WgmmaTile<64, 64, 64, 12, 1, 1, 1, 1, 8, 1>;
using Deep128x64 = WgmmaTile<128, 64, 64, 8, 2, 1, 2, 0, 8, 0>;
// The narrow tile: B's slot one 32-column chunk in the 64-byte swizzle (its TMA box and the wgmma
// descriptor's layout), m64n32 wgmmas. cuBLAS's M = 64 tile (64 x 32, 16 stages, a 1x2 cluster
// multicasting A), and 128 x 32 with two consumers walking the tiles persistently.
using Narrow64x32 = WgmmaTile<64, 32, 64, 16, 1, 1, 2, 0, 8, 0>;
using Narrow128x32 = WgmmaTile<128, 32, 64, 8, 2, 1, 1, 1, 8, 0>;
// Two consumers taking alternate K slices of the whole tile (k_interleave), consumer 1 handing
// its sums to consumer 0: cuBLAS's M = 64 recipe (64 x 32, 16 stages, a 1x2 cluster); 64 x 64
// persistent through the TMA store, whose consumer 1 hands a tile over while consumer 0 may still
// read the tile before's (and at K = 8, a tile of one slice, gets none of every second tile);
// and 128 x 128 in a 2x1 cluster, two m64 blocks per consumer.
//                                     bm   bn  bk  s wg cm cn  p  g ts sk pp rd ew stk ki
using Interleave64x32 = WgmmaTile<64, 32, 64, 16, 2, 1, 2, 0, 8, 0, 1, 0, 0, 0, 0, 1>;
using Interleave64x64 = WgmmaTile<64, 64, 64, 12, 2, 1, 1, 1, 8, 1, 1, 0, 0, 0, 0, 1>;
using Interleave128x128 = WgmmaTile<128, 128, 64, 4, 2, 2, 1, 0, 8, 0, 1, 0, 0, 0, 0, 1>;
// The same three with k_interleave = 2: each consumer adds and finishes half the tile's rows
// (rows 8c.. of every warp's 16), the TMA store in 8-row boxes from the one staging tile.
using Halves64x32 = WgmmaTile<64, 32, 64, 16, 2, 1, 2, 0, 8, 0, 1, 0, 0, 0, 0, 2>;
using Halves64x64 = WgmmaTile<64, 64, 64, 12, 2, 1, 1, 1, 8, 1, 1, 0, 0, 0, 0, 2>;
using Halves128x128 = WgmmaTile<128, 128, 64, 4, 2, 2, 1, 0, 8, 0, 1, 0, 0, 0, 0, 2>;
// The swapped tile (C^T = B^T A^T from the same slots): 16 rows by 64 columns with 8 stages, 32
// by 64 with 16 (cuBLAS's M = 64 tile's shape), and 64 rows by 128 with two consumers walking
// the tiles persistently.
//                                  bm   bn  bk  s wg cm cn  p  g ts sk pp rd ew stk ki sab
using Swapped16x64 = WgmmaTile<16, 64, 64, 8, 1, 1, 1, 0, 8, 0, 1, 0, 0, 0, 0, 0, 1>;
using Swapped32x64 = WgmmaTile<32, 64, 64, 16, 1, 1, 1, 0, 8, 0, 1, 0, 0, 0, 0, 0, 1>;
using Swapped64x128 = WgmmaTile<64, 128, 64, 6, 2, 1, 1, 1, 8, 0, 1, 0, 0, 0, 0, 0, 1>;
// 48 rows (wgmma's n48; cuBLAS's bf16 512^3 tile is 64 columns by 48 rows on two consumers, run
// LC): whose last row of tiles at 4096 and 1024 is 16 rows past M (TMA zero-fills them, the
// store skips them); 64 by 48 on one consumer, 128 by 48 on two walking the tiles persistently,
// and 64 by 48 on two consumers taking alternate K slices, adding each other's half and storing
// half the columns each (k_interleave 2), or consumer 0 adding all and storing (1, persistent);
// and the 64-row tile so on two consumers, persistent.
using Swapped48x64 = WgmmaTile<48, 64, 64, 8, 1, 1, 1, 0, 8, 0, 1, 0, 0, 0, 0, 0, 1>;
using Swapped48x128 = WgmmaTile<48, 128, 64, 8, 2, 1, 1, 1, 8, 0, 1, 0, 0, 0, 0, 0, 1>;
using SwappedHalves48x64 = WgmmaTile<48, 64, 64, 8, 2, 1, 1, 0, 8, 0, 1, 0, 0, 0, 0, 2, 1>;
using SwappedInterleave48x64 = WgmmaTile<48, 64, 64, 12, 2, 1, 1, 1, 8, 0, 1, 0, 0, 0, 0, 1, 1>;
using SwappedHalves64x64 = WgmmaTile<64, 64, 64, 8, 2, 1, 1, 1, 8, 0, 1, 0, 0, 0, 0, 2, 1>;
// In a 2x1 cluster: two row tiles of one column sharing B's one 64-column chunk by K rows (each
// block loads 32 of a slice's 64 and multicasts them), on interleaved consumers (k_interleave
// 2): 32 by 64 with 8 stages, and 16 by 64 with 16 walking the pairs persistently (at the edge
// shape the last pair's second tile lies past M).
using SwappedPairHalves32x64 = WgmmaTile<32, 64, 64, 8, 2, 2, 1, 0, 8, 0, 1, 0, 0, 0, 0, 2, 1>;
using SwappedPairHalves16x64 = WgmmaTile<16, 64, 64, 16, 2, 2, 1, 1, 8, 0, 1, 0, 0, 0, 0, 2, 1>;
// Ping-pong: the consumers take whole tiles in turn (consumer 1 works only where a block walks two
// or more tiles: at 4096^3 each of the 132 blocks walks 7 or 8). The largest accumulators a
// ping-pong consumer holds (128 x 192), 128 x 128, and 64 x 256 through two staged C tiles.
//                                 bm   bn  bk  s wg cm cn  p  g ts sk pp
using PingPong128x192 = WgmmaTile<128, 192, 64, 4, 2, 1, 1, 1, 8, 0, 1, 1>;
using PingPong128x128 = WgmmaTile<128, 128, 64, 5, 2, 1, 1, 1, 8, 0, 1, 1>;
using PingPong64x256 = WgmmaTile<64, 256, 64, 4, 2, 1, 1, 1, 8, 1, 1, 1>;
// Epilogue warps (epilogue_slots): the consumers hand the f32 sums to the producer warpgroup's
// three other warps through 64-column slots. 128 x 256 through two slots (the 4096 winner's
// tile), 256 x 128 through one (two m64 blocks per consumer: 16 row groups over 3 warps), and a
// grid of one block per tile whose two slots hold the whole 128 x 128 tile.
//                                       bm   bn  bk  s wg cm cn  p  g ts sk pp rd ew
using EpilogueWarps128x256 = WgmmaTile<128, 256, 64, 3, 2, 1, 1, 1, 8, 1, 1, 0, 0, 2>;
using EpilogueWarps256x128 = WgmmaTile<256, 128, 64, 3, 2, 1, 1, 1, 8, 1, 1, 0, 0, 1>;
using EpilogueWarpsGrid128x128 = WgmmaTile<128, 128, 64, 4, 2, 1, 1, 0, 8, 1, 1, 0, 0, 2>;
// Clusters of two with TMA multicast: 2x1 (the pair's blocks share B, each loading every other
// chunk for both) persistent through the TMA store, and as a grid of pairs with direct stores;
// 1x2 (they share A, each loading half its rows for both) persistent, and with epilogue warps.
// The edge shapes leave pairs with one tile past M or N.
//                                   bm   bn  bk  s wg cm cn  p  g ts sk pp rd ew
using Cluster2x1 = WgmmaTile<128, 256, 64, 3, 2, 2, 1, 1, 8, 1>;
using Cluster2x1Grid = WgmmaTile<128, 128, 64, 4, 2, 2, 1, 0, 8, 0>;
using Cluster1x2 = WgmmaTile<128, 256, 64, 3, 2, 1, 2, 1, 8, 1>;
using Cluster1x2EpilogueWarps = WgmmaTile<128, 192, 64, 3, 2, 1, 2, 1, 8, 1, 1, 0, 0, 3>;

// tf32 (BK = 32): the transposed tile, whose consumers split BN. The four built-ins; 64 x 64 with
// one consumer (wgmma N = 64); 192 x 128 (wgmma N = 192, not in the sweep's lists but legal); 64 x
// 256 with two consumers of two m64 blocks each.
//                                  bm   bn  bk  s wg cm cn  p  g ts
using Tf32Persistent128x256 = WgmmaTile<128, 256, 32, 4, 2, 1, 1, 1, 8, 0>;  // tf32 built-in 0
using Tf32Grid128x256 = WgmmaTile<128, 256, 32, 4, 2, 1, 1, 0, 8, 0>;        // tf32 built-in 1
using Tf32Persistent256x128 = WgmmaTile<256, 128, 32, 4, 2, 1, 1, 1, 8, 0>;  // tf32 built-in 2
using Tf32One128x128 = WgmmaTile<128, 128, 32, 6, 1, 1, 1, 0, 8, 0>;         // tf32 built-in 3
using Tf32One64x64 = WgmmaTile<64, 64, 32, 4, 1, 1, 1, 0, 1, 0>;
using Tf32Two192x128 = WgmmaTile<192, 128, 32, 4, 2, 1, 1, 1, 8, 0>;
using Tf32Two64x256 = WgmmaTile<64, 256, 32, 5, 2, 1, 1, 0, 8, 0>;

std::vector<Instance> tf32_instances(Epilogue e) {
  constexpr Dtype T = Dtype::tf32;
  switch (e) {
    case Epilogue::none: return {instance<Tf32Persistent128x256, T, Epilogue::none>(), instance<Tf32One64x64, T, Epilogue::none>()};
    case Epilogue::bias: return {instance<Tf32Persistent128x256, T, Epilogue::bias>(), instance<Tf32One64x64, T, Epilogue::bias>()};
    case Epilogue::bias_relu:
      return {instance<Tf32Persistent128x256, T, Epilogue::bias_relu>(), instance<Tf32One64x64, T, Epilogue::bias_relu>()};
    case Epilogue::bias_gelu: break;
  }
  return {instance<Tf32Persistent128x256, T, Epilogue::bias_gelu>(), instance<Tf32Grid128x256, T, Epilogue::bias_gelu>(),
          instance<Tf32Persistent256x128, T, Epilogue::bias_gelu>(), instance<Tf32One128x128, T, Epilogue::bias_gelu>(),
          instance<Tf32One64x64, T, Epilogue::bias_gelu>(),          instance<Tf32Two192x128, T, Epilogue::bias_gelu>(),
          instance<Tf32Two64x256, T, Epilogue::bias_gelu>()};
}

template <Dtype D>
std::vector<Instance> gelu_instances() {
  return {instance<Persistent128x256, D, Epilogue::bias_gelu>(), instance<Grid128x256, D, Epilogue::bias_gelu>(),
          instance<TmaStore128x128, D, Epilogue::bias_gelu>(),   instance<One64x128, D, Epilogue::bias_gelu>(),
          instance<Two128Rows, D, Epilogue::bias_gelu>(),        instance<One128x192, D, Epilogue::bias_gelu>(),
          instance<Narrow128x64, D, Epilogue::bias_gelu>(),      instance<PingPong128x192, D, Epilogue::bias_gelu>(),
          instance<PingPong128x128, D, Epilogue::bias_gelu>(),   instance<PingPong64x256, D, Epilogue::bias_gelu>(),
          instance<EpilogueWarps128x256, D, Epilogue::bias_gelu>(), instance<EpilogueWarps256x128, D, Epilogue::bias_gelu>(),
          instance<EpilogueWarpsGrid128x128, D, Epilogue::bias_gelu>(), instance<Cluster2x1, D, Epilogue::bias_gelu>(),
          instance<Cluster2x1Grid, D, Epilogue::bias_gelu>(),   instance<Cluster1x2, D, Epilogue::bias_gelu>(),
          instance<Cluster1x2EpilogueWarps, D, Epilogue::bias_gelu>(), instance<Deep64x64, D, Epilogue::bias_gelu>(),
          instance<Deep128x64, D, Epilogue::bias_gelu>(),  instance<Narrow64x32, D, Epilogue::bias_gelu>(),
          instance<Narrow128x32, D, Epilogue::bias_gelu>(), instance<Interleave64x32, D, Epilogue::bias_gelu>(),
          instance<Interleave64x64, D, Epilogue::bias_gelu>(), instance<Interleave128x128, D, Epilogue::bias_gelu>(),
          instance<Halves64x32, D, Epilogue::bias_gelu>(), instance<Halves64x64, D, Epilogue::bias_gelu>(),
          instance<Halves128x128, D, Epilogue::bias_gelu>(),
          instance<Swapped16x64, D, Epilogue::bias_gelu>(),     instance<Swapped32x64, D, Epilogue::bias_gelu>(),
          instance<Swapped64x128, D, Epilogue::bias_gelu>(),    instance<Swapped48x64, D, Epilogue::bias_gelu>(),
          instance<Swapped48x128, D, Epilogue::bias_gelu>(),    instance<SwappedHalves48x64, D, Epilogue::bias_gelu>(),
          instance<SwappedInterleave48x64, D, Epilogue::bias_gelu>(),
          instance<SwappedHalves64x64, D, Epilogue::bias_gelu>(),
          instance<SwappedPairHalves32x64, D, Epilogue::bias_gelu>(),
          instance<SwappedPairHalves16x64, D, Epilogue::bias_gelu>()};
}

// 4096^3; an edge shape (no side a multiple of a tile; K not a multiple of 64); smaller than one
// tile in every direction (N = 40 loads one partial B chunk, K = 24 one partial K slice); and
// the smallest problem the family takes.
constexpr Shape kShapes[] = {{4096, 4096, 4096}, {1024, 1000, 1032}, {100, 40, 24}, {1, 8, 8}};

void check_all(const std::vector<Instance>& instances, const Shape* shapes, int shape_count, int* checked) {
  Stream stream;
  for (int i = 0; i < shape_count; ++i) {
    const Shape& s = shapes[i];
    for (Epilogue e : all_epilogues()) {
      bool any = false;
      for (const Instance& k : instances) any = any || k.epilogue == e;
      if (!any) continue;
      Workspace ws({s.m, s.n, s.k, instances.front().dtype, e}, 300 + s.n, stream.get());
      for (const Instance& k : instances) {
        if (k.epilogue != e) continue;
        const Method m = method_of(k, ws);
        const bool activation = e == Epilogue::bias_relu || e == Epilogue::bias_gelu;
        for (Inputs in : {Inputs::normal, Inputs::bend}) {
          if (in == Inputs::bend && !activation) continue;
          const CheckResult c = check_method(m, ws, in);
          EXPECT_TRUE(c.passed) << where(k.config, k.dtype, e, s) << (in == Inputs::bend ? " (bend inputs)" : "")
                                << ": " << c.why;
          ++*checked;
        }
      }
    }
  }
}

TEST(Wgmma, EveryConfigMatchesTheReferenceInBf16) {
  COALESCE_REQUIRE_GPU();
  int checked = 0;
  check_all(gelu_instances<Dtype::bf16>(), kShapes, 4, &checked);
  EXPECT_EQ(checked, 37 * 4 * 2);
}

TEST(Wgmma, EveryConfigMatchesTheReferenceInF16) {
  COALESCE_REQUIRE_GPU();
  int checked = 0;
  check_all(gelu_instances<Dtype::f16>(), kShapes, 4, &checked);
  EXPECT_EQ(checked, 37 * 4 * 2);
}

// tf32's shapes: N and K need only be multiples of 4 (16-byte rows of f32), so the edge shape's
// N and K are not multiples of 8; below one tile, N = 36 loads one partial 32-column B chunk
// and a second with 4 columns, K = 20 one partial K slice.
constexpr Shape kTf32Shapes[] = {{4096, 4096, 4096}, {1024, 1004, 1028}, {100, 36, 20}, {1, 4, 4}};

TEST(Wgmma, EveryConfigMatchesTheReferenceInTf32) {
  COALESCE_REQUIRE_GPU();
  int checked = 0;
  check_all(tf32_instances(Epilogue::bias_gelu), kTf32Shapes, 4, &checked);
  EXPECT_EQ(checked, 7 * 4 * 2);
  checked = 0;
  for (Epilogue e : {Epilogue::none, Epilogue::bias, Epilogue::bias_relu})
    check_all(tf32_instances(e), kTf32Shapes, 2, &checked);
  EXPECT_EQ(checked, 2 * 2 * (1 + 1 + 2));
}

// The cluster and epilogue-warp tiles alone at the shapes below one 4096 tile: the edge shape,
// one smaller than a tile, the smallest (a separate test so that compute-sanitizer can run just
// these; results/logs/runCL).
TEST(Wgmma, ClustersAndEpilogueWarpsAtTheEdges) {
  COALESCE_REQUIRE_GPU();
  const std::vector<Instance> instances = {
      instance<Cluster2x1, Dtype::bf16, Epilogue::bias_gelu>(),     instance<Cluster2x1Grid, Dtype::bf16, Epilogue::bias_gelu>(),
      instance<Cluster1x2, Dtype::bf16, Epilogue::bias_gelu>(),     instance<Cluster1x2EpilogueWarps, Dtype::bf16, Epilogue::bias_gelu>(),
      instance<EpilogueWarps128x256, Dtype::bf16, Epilogue::bias_gelu>(), instance<EpilogueWarps256x128, Dtype::bf16, Epilogue::bias_gelu>(),
      instance<EpilogueWarpsGrid128x128, Dtype::bf16, Epilogue::bias_gelu>()};
  int checked = 0;
  check_all(instances, kShapes + 1, 3, &checked);
  EXPECT_EQ(checked, 7 * 3 * 2);
}

// Every epilogue through both stores (registers -> C, and registers -> shared -> TMA store).
TEST(Wgmma, EveryEpilogueMatchesTheReference) {
  COALESCE_REQUIRE_GPU();
  const std::vector<Instance> instances = {
      instance<Persistent128x256, Dtype::bf16, Epilogue::none>(),
      instance<Persistent128x256, Dtype::bf16, Epilogue::bias>(),
      instance<Persistent128x256, Dtype::bf16, Epilogue::bias_relu>(),
      instance<TmaStore128x128, Dtype::bf16, Epilogue::none>(),
      instance<TmaStore128x128, Dtype::bf16, Epilogue::bias>(),
      instance<TmaStore128x128, Dtype::bf16, Epilogue::bias_relu>(),
      instance<EpilogueWarps128x256, Dtype::bf16, Epilogue::none>(),
      instance<EpilogueWarps128x256, Dtype::bf16, Epilogue::bias>(),
      instance<EpilogueWarps128x256, Dtype::bf16, Epilogue::bias_relu>(),
  };
  int checked = 0;
  check_all(instances, kShapes, 2, &checked);
  EXPECT_EQ(checked, 2 * (3 * 1 + 3 * 1 + 3 * 2));
}

// A race shows as an output that changes between runs on the same inputs.
TEST(Wgmma, RepeatedRunsAreBitIdentical) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  for (const Shape& s : {Shape{4096, 4096, 4096}, Shape{1024, 1000, 1032}}) {
    for (Dtype d : {Dtype::bf16, Dtype::tf32}) {
      Workspace ws({s.m, s.n, s.k, d, Epilogue::bias_gelu}, 17, stream.get());
      const std::size_t bytes = static_cast<std::size_t>(s.m) * s.n * element_bytes(gemm_types(d).c);
      std::vector<unsigned char> first(bytes), again(bytes);
      for (const Instance& k : d == Dtype::tf32 ? tf32_instances(Epilogue::bias_gelu) : gelu_instances<Dtype::bf16>()) {
        const Method m = method_of(k, ws);
        for (int run = 0; run < 5; ++run) {
          ws.poison_output();
          m.launch(ws.stream());
          COALESCE_CUDA(cudaStreamSynchronize(ws.stream()));
          COALESCE_CUDA(cudaMemcpy(run == 0 ? first.data() : again.data(), ws.c(), bytes, cudaMemcpyDeviceToHost));
          if (run > 0) {
            ASSERT_EQ(std::memcmp(first.data(), again.data(), bytes), 0)
                << where(k.config, k.dtype, k.epilogue, s) << ", run " << run;
          }
        }
      }
    }
  }
}

// A shape or dtype the family cannot take is refused by its rule, with the reason, before any
// tensor map is encoded or kernel launched. An unaligned 16-bit shape is no longer among them: the
// launch runs it on padded copies (Family::row_multiple, kernels/core/family.hpp; shapes_test
// checks the results against fp64), so it is planned without an error here.
TEST(Wgmma, RefusesWhatItCannotTake) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  const Instance k = instance<Persistent128x256, Dtype::bf16, Epilogue::bias_gelu>();
  for (const Shape& s : {Shape{1024, 1001, 1024}, Shape{1024, 1024, 1030}}) {
    Workspace ws({s.m, s.n, s.k, Dtype::bf16, Epilogue::bias_gelu}, 5, stream.get());
    EXPECT_NO_THROW(kernel_method(k.config, k.epilogue, k.kernel, ws)) << where(k.config, k.dtype, k.epilogue, s);
  }
  // A 16-bit kernel does not take tf32, nor the tf32 kernel bf16; tf32 rows must be 16-byte multiples.
  Workspace tf32({256, 256, 256, Dtype::tf32, Epilogue::bias_gelu}, 5, stream.get());
  EXPECT_THROW(kernel_method(k.config, k.epilogue, k.kernel, tf32), std::invalid_argument);
  const Instance t = instance<Tf32Persistent128x256, Dtype::tf32, Epilogue::bias_gelu>();
  Workspace bf16({256, 256, 256, Dtype::bf16, Epilogue::bias_gelu}, 5, stream.get());
  EXPECT_THROW(kernel_method(t.config, t.epilogue, t.kernel, bf16), std::invalid_argument);
  Workspace odd({256, 258, 256, Dtype::tf32, Epilogue::bias_gelu}, 5, stream.get());
  try {
    kernel_method(t.config, t.epilogue, t.kernel, odd);
    ADD_FAILURE() << "tf32 at N = 258 was not refused";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("multiple of 4"), std::string::npos) << e.what();
  }
}

// The planted hazards, each on the config whose pipeline it breaks: 128x256 tiles (the longest
// MMAs per slot, so the widest window for a slot reused while it is read), persistent, C through
// the TMA store (the path the missing fence is on). Races are probabilistic: each variant runs
// COALESCE_HAZARD_RUNS times (10 unless set) on fresh random inputs, and its row of kHazards says
// what the count must be: a control (the same config without the hazard) is never wrong; an
// asserted hazard is caught in at least 9 runs of 10 (kAssertedShare); a reported one is counted
// and recorded (RecordProperty) but not asserted, for the reason written in its row.
using HazardTile = WgmmaTile<128, 256, 64, 3, 2, 1, 1, 1, 8, 1>;
using PingPongHazardTile = WgmmaTile<128, 128, 64, 4, 2, 1, 1, 1, 8, 0, 1, 1>;
// One slot, so every chunk of a tile goes through the slot the early release hands back.
using EpilogueWarpsHazardTile = WgmmaTile<128, 256, 64, 3, 2, 1, 1, 1, 8, 1, 1, 0, 0, 1>;

/// What a hazard's count of wrong runs must be.
enum class Expect { control, asserted, reported };

/// The share of runs an asserted hazard must be caught in. Every asserted row below was caught in
/// 10 of 10 runs in each of runs LW, LY, LZ, MA and MB (50 of 50); 9 of 10 leaves one miss.
constexpr double kAssertedShare = 0.9;

/// The runs per hazard: COALESCE_HAZARD_RUNS, 10 unless set (0 when it is not a positive number).
int hazard_runs() {
  const char* v = std::getenv("COALESCE_HAZARD_RUNS");
  if (!v || !*v) return 10;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  return (*end == '\0' && n > 0 && n <= 1000) ? static_cast<int>(n) : 0;
}

/// One row of the table: the kernel (a hazard planted, or none), what its count must be, and for
/// a reported row why it is not asserted (the measured counts).
struct Hazard {
  const char* property;  ///< its RecordProperty key
  const char* what;
  Instance kernel;
  Expect expect;
  const char* why_reported;
};

int failures(const Instance& k, Workspace& ws, const char* what, int runs) {
  const Method m = method_of(k, ws);
  int failed = 0;
  std::string first_why;
  for (int run = 0; run < runs; ++run) {
    const CheckResult c = check_method(m, ws);
    if (!c.passed && failed++ == 0) first_why = c.why;
  }
  std::printf("  %-58s wrong in %2d of %d runs%s%s\n", what, failed, runs, failed ? ": " : "", first_why.c_str());
  return failed;
}

TEST(Wgmma, TheCheckCatchesEachPlantedHazard) {
  COALESCE_REQUIRE_GPU();
  const int runs = hazard_runs();
  ASSERT_GT(runs, 0) << "COALESCE_HAZARD_RUNS='" << std::getenv("COALESCE_HAZARD_RUNS")
                     << "': give a whole number of runs from 1 to 1000";
  constexpr Dtype D = Dtype::bf16;
  constexpr Dtype T = Dtype::tf32;
  constexpr Epilogue E = Epilogue::bias;
  // Two memory-model violations the H200 has never exposed: slot kb-1 released with no wait at
  // all (its wgmmas have always read it by the time the refill lands) and C staged without
  // fence.proxy.async (the rows have always landed before the TMA engine reads them). The NVRTC
  // test (tests/unit/kernels/wgmma/nvrtc_test.cpp) proves each changes the instruction it should.
  // (Two more cannot be planted: the accumulators read before the last wait_group, where ptxas
  // inserts the wait itself, warning C7518; and the tf32 A fragments loaded without the
  // wgmma.fence before their wgmmas, where ptxas inserts the WARPGROUP.ARRIVE itself.)
  constexpr const char* kNoWait =
      "never caught: 0 of 10 in each of runs LW, LY, LZ, MA and MB (0 of 40 in run HA): the slot has "
      "always been read before the refill lands";
  constexpr const char* kNoFence =
      "never caught: 0 of 10 in each of runs LW, LY, LZ, MA and MB (0 of 40 in run HA): the staged "
      "rows have always landed before the TMA engine reads them";
  // A group short enough that the slot has been read before the refill lands.
  constexpr const char* kShortGroup =
      "never caught: 0 of 10 in each of runs LW, LY, LZ, MA and MB (0 of 40 in run HA): one "
      "warpgroup's short group has read the slot before the refill lands";
  const std::vector<Hazard> kHazards = {
      {"control", "no hazard (control)", instance<HazardTile, D, E>(), Expect::control, nullptr},
      {"early_release", "slot released before the MMAs reading it are issued",
       instance<HazardTile, D, E, kWgmmaHazardEarlyRelease>(), Expect::asserted, nullptr},
      // A wait one group short for the slot it releases: the group just committed may still be
      // queued behind the one before it, or reading the slot, when the refill lands.
      {"release_in_flight", "wait_group 1 taken for the slot of the group just committed",
       instance<HazardTile, D, E, kWgmmaHazardReleaseInFlight>(), Expect::asserted, nullptr},
      {"shallow_wait", "no wait before slot kb-1 is released",
       instance<HazardTile, D, E, kWgmmaHazardShallowWait>(), Expect::reported, kNoWait},
      // Ping-pong gives each slot one consumer: a slot released early there is refilled with the
      // other consumer's tile while it is read.
      {"pingpong_control", "ping-pong, no hazard (control)", instance<PingPongHazardTile, D, E>(), Expect::control,
       nullptr},
      {"pingpong_early_release", "ping-pong: slot released before the MMAs reading it are issued",
       instance<PingPongHazardTile, D, E, kWgmmaHazardEarlyRelease>(), Expect::asserted, nullptr},
      {"pingpong_release_in_flight", "ping-pong: wait_group 1 taken for the group just committed",
       instance<PingPongHazardTile, D, E, kWgmmaHazardReleaseInFlight>(), Expect::reported, kShortGroup},
      {"no_proxy_fence", "C staged without fence.proxy.async before the TMA store",
       instance<HazardTile, D, E, kWgmmaHazardNoProxyFence>(), Expect::reported, kNoFence},
      // Epilogue warps: a slot handed back to the consumers before the TMA engine has read the
      // rounded C out of it is overwritten by the next chunk's sums while it is stored.
      {"epilogue_warps_control", "epilogue warps, no hazard (control)", instance<EpilogueWarpsHazardTile, D, E>(),
       Expect::control, nullptr},
      {"epilogue_warps_early_slot_release", "epilogue warps: slot released before its TMA stores read it",
       instance<EpilogueWarpsHazardTile, D, E, kWgmmaHazardEarlySlotRelease>(), Expect::asserted, nullptr},
      // A cluster of two: a slot released early by one block's consumers is refilled by the other
      // block's producer too.
      {"cluster_control", "2x1 cluster, no hazard (control)", instance<Cluster2x1, D, E>(), Expect::control, nullptr},
      {"cluster_early_release", "2x1 cluster: slot released before the MMAs reading it are issued",
       instance<Cluster2x1, D, E, kWgmmaHazardEarlyRelease>(), Expect::asserted, nullptr},
      {"cluster_release_in_flight", "2x1 cluster: wait_group 1 taken for the group just committed",
       instance<Cluster2x1, D, E, kWgmmaHazardReleaseInFlight>(), Expect::asserted, nullptr},
      {"one_consumer_64x128_release_in_flight", "one 64-row consumer: wait_group 1 taken for the group just committed",
       instance<One64x128, D, E, kWgmmaHazardReleaseInFlight>(), Expect::reported, kShortGroup},
      // tf32: its fragment loads and wgmmas read the slot, so an early release shows there too.
      {"tf32_control", "tf32, no hazard (control)", instance<Tf32Persistent128x256, T, E>(), Expect::control, nullptr},
      {"tf32_early_release", "tf32: slot released before the MMAs reading it are issued",
       instance<Tf32Persistent128x256, T, E, kWgmmaHazardEarlyRelease>(), Expect::asserted, nullptr},
      {"tf32_release_in_flight", "tf32: wait_group 1 taken for the group just committed",
       instance<Tf32Persistent128x256, T, E, kWgmmaHazardReleaseInFlight>(), Expect::asserted, nullptr},
      {"tf32_shallow_wait", "tf32: no wait before slot kb-1 is released",
       instance<Tf32Persistent128x256, T, E, kWgmmaHazardShallowWait>(), Expect::reported, kNoWait},
      {"tma_store_128x128_no_proxy_fence", "128x128: C staged without fence.proxy.async before the TMA store",
       instance<TmaStore128x128, D, E, kWgmmaHazardNoProxyFence>(), Expect::reported,
       "caught once in 50 runs (1 of 10 in run MA; 0 of 10 in runs LW, LY, LZ and MB): far from 9 of 10"},
      {"epilogue_warps_no_proxy_fence", "epilogue warps: C rounded without fence.proxy.async before the TMA store",
       instance<EpilogueWarpsHazardTile, D, E, kWgmmaHazardNoProxyFence>(), Expect::reported, kNoFence},
  };
  const int needed = static_cast<int>(std::ceil(kAssertedShare * runs));
  Stream stream;
  Workspace bf16({4096, 4096, 4096, D, E}, 77, stream.get());
  Workspace tf32({4096, 4096, 4096, T, E}, 78, stream.get());
  for (const Hazard& h : kHazards) {
    SCOPED_TRACE(h.what);
    const int wrong = failures(h.kernel, h.kernel.dtype == T ? tf32 : bf16, h.what, runs);
    switch (h.expect) {
      case Expect::control:
        EXPECT_EQ(wrong, 0) << "the config without a hazard was wrong";
        break;
      case Expect::asserted:
        EXPECT_GE(wrong, needed) << "caught in " << wrong << " of " << runs << " runs; needs " << needed;
        break;
      case Expect::reported:
        RecordProperty(std::string(h.property) + "_failures", wrong);
        std::printf("    (reported, not asserted: %s)\n", h.why_reported);
        break;
    }
  }
}

}  // namespace

namespace {

// Split-K (kernels/core/family.hpp, kSplitParam): the kernel of every factor is the split = 2
// instantiation (the factor is the grid's z extent), run through kernel_method, which allocates
// the partials and launches the reduce. Tiles: one consumer of 64 x 64 (the skinny shapes'
// tile), two consumers of 64 rows x 128, and two consumers of two m64 blocks each.
//                                  bm   bn  bk  s wg cm cn  p  g ts sk
using Split64x64 = WgmmaTile<64, 64, 64, 6, 1, 1, 1, 0, 8, 0, 2>;
using Split128x128 = WgmmaTile<128, 128, 64, 6, 2, 1, 1, 0, 8, 0, 2>;
using Split256x128 = WgmmaTile<256, 128, 64, 4, 2, 1, 1, 0, 1, 0, 2>;
using Split64x32 = WgmmaTile<64, 32, 64, 8, 1, 1, 1, 0, 8, 0, 2>;
// Two consumers taking alternate K slices of a slice (k_interleave): at K = 1032 and 8 slices
// the last slices are empty, and at 3 slices of 16 steps each slice has an odd number.
using SplitInterleave64x32 = WgmmaTile<64, 32, 64, 8, 2, 1, 1, 0, 8, 0, 2, 0, 0, 0, 0, 1>;
using SplitHalves64x32 = WgmmaTile<64, 32, 64, 8, 2, 1, 1, 0, 8, 0, 2, 0, 0, 0, 0, 2>;
// The swapped tile's partial sums, stored from C^T's fragments.
using SplitSwapped32x64 = WgmmaTile<32, 64, 64, 8, 1, 1, 1, 0, 8, 0, 2, 0, 0, 0, 0, 0, 1>;
// ... and 48 rows by 64 on two consumers, each storing its half of the columns' partial sums.
using SplitSwappedHalves48x64 = WgmmaTile<48, 64, 64, 8, 2, 1, 1, 0, 8, 0, 2, 0, 0, 0, 0, 2, 1>;
// The first two with the partial sums added in the kernel (kReduceParam): split, pingpong,
// reduce. (The third's 128 accumulators per thread are more than the rule lets reduce = 1 have.)
using Reduce64x64 = WgmmaTile<64, 64, 64, 6, 1, 1, 1, 0, 8, 0, 2, 0, 1>;
using Reduce128x128 = WgmmaTile<128, 128, 64, 6, 2, 1, 1, 0, 8, 0, 2, 0, 1>;
// Reduced in the tile's cluster (reduce = 2): the slices are the cluster, so the kernel is
// specialized on their number and each factor is an instantiation of its own.
template <int S>
using Cluster64x64 = WgmmaTile<64, 64, 64, 6, 1, 1, 1, 0, 8, 0, S, 0, 2>;
template <int S>
using Cluster128x128 = WgmmaTile<128, 128, 64, 4, 2, 1, 1, 0, 8, 0, S, 0, 2>;

template <class Tile, Dtype D, Epilogue E>
Instance split_instance(int slices) {
  Instance k = instance<Tile, D, E>();
  WgmmaConfig c = Tile::config;
  c.split = slices;
  k.config = from_wgmma(c);
  return k;
}

template <Dtype D>
std::vector<Instance> split_instances() {
  std::vector<Instance> out;
  for (int slices : {2, 3, 8}) {
    out.push_back(split_instance<Split64x64, D, Epilogue::bias_gelu>(slices));
    out.push_back(split_instance<Split128x128, D, Epilogue::bias_gelu>(slices));
    out.push_back(split_instance<Split256x128, D, Epilogue::bias_gelu>(slices));
    out.push_back(split_instance<Split64x32, D, Epilogue::bias_gelu>(slices));
    out.push_back(split_instance<SplitInterleave64x32, D, Epilogue::bias_gelu>(slices));
    out.push_back(split_instance<SplitHalves64x32, D, Epilogue::bias_gelu>(slices));
    out.push_back(split_instance<SplitSwapped32x64, D, Epilogue::bias_gelu>(slices));
    out.push_back(split_instance<SplitSwappedHalves48x64, D, Epilogue::bias_gelu>(slices));
    out.push_back(split_instance<Reduce64x64, D, Epilogue::bias_gelu>(slices));
    out.push_back(split_instance<Reduce128x128, D, Epilogue::bias_gelu>(slices));
  }
  for (const Instance& k : {instance<Cluster64x64<2>, D, Epilogue::bias_gelu>(),
                            instance<Cluster64x64<3>, D, Epilogue::bias_gelu>(),
                            instance<Cluster64x64<8>, D, Epilogue::bias_gelu>(),
                            instance<Cluster128x128<2>, D, Epilogue::bias_gelu>(),
                            instance<Cluster128x128<3>, D, Epilogue::bias_gelu>(),
                            instance<Cluster128x128<8>, D, Epilogue::bias_gelu>()})
    out.push_back(k);
  return out;
}

// One row, a few rows, one and two m64 blocks at N = K = 4096; K = 1000 (16 steps, the last
// partial, uneven across 3 slices); an M past a tile edge with K = 1032, whose 17 steps leave
// slices 6 and 7 of 8 empty (they store zeros).
constexpr Shape kSplitShapes[] = {{1, 4096, 4096},  {8, 4096, 4096},  {64, 4096, 4096},
                                  {128, 4096, 4096}, {8, 4096, 1000}, {130, 1000, 1032}};

long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

template <Dtype D>
void check_split(int* checked) {
  Stream stream;
  const Epilogue e = Epilogue::bias_gelu;
  for (const Shape& s : kSplitShapes) {
    Workspace ws({s.m, s.n, s.k, D, e}, 600 + s.m + s.k, stream.get());
    for (const Instance& k : split_instances<D>()) {
      if (!wgmma_family().check_problem(k.config, ws.problem()).ok()) continue;
      const std::string at = where(k.config, D, e, s);
      const Method m = method_of(k, ws);
      const int slices = split_slices(k.config);
      const long long counters = reduces_through_counters(k.config) ? 4LL * ceil_div(s.m, to_wgmma(k.config).bm) *
                                                                            ceil_div(s.n, to_wgmma(k.config).bn)
                                                                      : 0;
      // Reduced in the cluster, the sums never leave the chip: no workspace.
      EXPECT_EQ(m.workspace_bytes, reduces_in_cluster(k.config) ? 0 : 4LL * slices * s.m * s.n + counters) << at;
      EXPECT_TRUE(m.deterministic) << at;
      for (Inputs in : {Inputs::normal, Inputs::bend}) {
        const CheckResult c = check_method(m, ws, in);
        EXPECT_TRUE(c.passed) << at << (in == Inputs::bend ? " (bend inputs)" : "") << ": " << c.why;
        ++*checked;
      }
      // A second run on the same inputs gives the same bits.
      ws.snapshot_output();
      ws.poison_output();
      m.launch(ws.stream());
      EXPECT_EQ(ws.output_differs(), 0) << at;
    }
  }
}

TEST(Wgmma, SplitKMatchesTheReferenceAndIsDeterministicInBf16) {
  COALESCE_REQUIRE_GPU();
  int checked = 0;
  check_split<Dtype::bf16>(&checked);
  EXPECT_EQ(checked, 6 * 36 * 2);
}

TEST(Wgmma, SplitKMatchesTheReferenceAndIsDeterministicInF16) {
  COALESCE_REQUIRE_GPU();
  int checked = 0;
  check_split<Dtype::f16>(&checked);
  EXPECT_EQ(checked, 6 * 36 * 2);
  // The whole path as the sweep runs it: checks on bend and normal inputs, timing, the check
  // after the timed runs and the bit comparison with the first run.
  Stream stream;
  ColdTimer timer(0, TimingSettings{}, stream.get());
  Workspace ws({64, 4096, 4096, Dtype::f16, Epilogue::bias_gelu}, 91, stream.get());
  const MethodResult r =
      run_method(method_of(split_instance<Split64x64, Dtype::f16, Epilogue::bias_gelu>(8), ws), ws, timer);
  EXPECT_EQ(r.status, Status::ok) << r.detail;
  const MethodResult in_kernel =
      run_method(method_of(split_instance<Reduce64x64, Dtype::f16, Epilogue::bias_gelu>(8), ws), ws, timer);
  EXPECT_EQ(in_kernel.status, Status::ok) << in_kernel.detail;
  const MethodResult in_cluster =
      run_method(method_of(instance<Cluster64x64<8>, Dtype::f16, Epilogue::bias_gelu>(), ws), ws, timer);
  EXPECT_EQ(in_cluster.status, Status::ok) << in_cluster.detail;
}

// The check catches the in-kernel reduction's planted bugs: a lost partial sum and the epilogue
// applied twice, and k_interleave's consumer 1 sums left out; and the tiles' counters are left at zero, so a second method on the same
// workspace shape (its own buffer) and repeated launches stay right (checked above).
TEST(Wgmma, TheCheckCatchesInKernelReductionBugs) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  Workspace ws({64, 4096, 4096, Dtype::bf16, Epilogue::bias_gelu}, 93, stream.get());
  constexpr Dtype D = Dtype::bf16;
  constexpr Epilogue E = Epilogue::bias_gelu;
  auto with = [](Instance k, int slices) {
    WgmmaConfig c = to_wgmma(k.config);
    c.split = slices;
    k.config = from_wgmma(c);
    return k;
  };
  for (int slices : {2, 4}) {
    EXPECT_TRUE(check_method(method_of(with(instance<Reduce64x64, D, E>(), slices), ws), ws).passed) << slices;
    const CheckResult lost =
        check_method(method_of(with(instance<Reduce64x64, D, E, kWgmmaHazardLostPartial>(), slices), ws), ws);
    EXPECT_FALSE(lost.passed) << "a lost partial sum passed the check at split " << slices;
    const CheckResult twice =
        check_method(method_of(with(instance<Reduce64x64, D, E, kWgmmaHazardDoubleEpilogue>(), slices), ws), ws);
    EXPECT_FALSE(twice.passed) << "an epilogue applied twice passed the check at split " << slices;
  }
  // Reduced in the cluster: the same two bugs, planted in the blocks' adding up of their shares.
  EXPECT_TRUE(check_method(method_of(instance<Cluster64x64<2>, D, E>(), ws), ws).passed);
  EXPECT_TRUE(check_method(method_of(instance<Cluster64x64<4>, D, E>(), ws), ws).passed);
  EXPECT_FALSE(check_method(method_of(instance<Cluster64x64<2>, D, E, kWgmmaHazardLostPartial>(), ws), ws).passed)
      << "a lost partial sum passed the check in a cluster of 2";
  EXPECT_FALSE(check_method(method_of(instance<Cluster64x64<4>, D, E, kWgmmaHazardLostPartial>(), ws), ws).passed)
      << "a lost partial sum passed the check in a cluster of 4";
  EXPECT_FALSE(check_method(method_of(instance<Cluster64x64<2>, D, E, kWgmmaHazardDoubleEpilogue>(), ws), ws).passed)
      << "an epilogue applied twice passed the check in a cluster of 2";
  EXPECT_FALSE(check_method(method_of(instance<Cluster64x64<4>, D, E, kWgmmaHazardDoubleEpilogue>(), ws), ws).passed)
      << "an epilogue applied twice passed the check in a cluster of 4";
  // Two consumers taking alternate K slices: consumer 0 leaving consumer 1's sums out.
  EXPECT_TRUE(check_method(method_of(instance<Interleave64x32, D, E>(), ws), ws).passed);
  EXPECT_FALSE(check_method(method_of(instance<Interleave64x32, D, E, kWgmmaHazardLostPartial>(), ws), ws).passed)
      << "consumer 1's sums left out passed the check";
  // Each consumer finishing half the rows: consumer 0 leaving consumer 1's sums of its half out.
  EXPECT_TRUE(check_method(method_of(instance<Halves64x32, D, E>(), ws), ws).passed);
  EXPECT_FALSE(check_method(method_of(instance<Halves64x32, D, E, kWgmmaHazardLostPartial>(), ws), ws).passed)
      << "consumer 1's sums of consumer 0's half left out passed the check";
  EXPECT_TRUE(check_method(method_of(instance<Halves64x64, D, E>(), ws), ws).passed);
  EXPECT_FALSE(check_method(method_of(instance<Halves64x64, D, E, kWgmmaHazardLostPartial>(), ws), ws).passed)
      << "consumer 1's sums of consumer 0's half left out passed the check (TMA store)";
  // The swapped tile so: consumer 1's sums left out, and consumer 1's sums of consumer 0's half.
  EXPECT_TRUE(check_method(method_of(instance<SwappedInterleave48x64, D, E>(), ws), ws).passed);
  EXPECT_FALSE(check_method(method_of(instance<SwappedInterleave48x64, D, E, kWgmmaHazardLostPartial>(), ws), ws).passed)
      << "consumer 1's sums left out passed the check (swapped tile)";
  EXPECT_TRUE(check_method(method_of(instance<SwappedHalves48x64, D, E>(), ws), ws).passed);
  EXPECT_FALSE(check_method(method_of(instance<SwappedHalves48x64, D, E, kWgmmaHazardLostPartial>(), ws), ws).passed)
      << "consumer 1's sums of consumer 0's half left out passed the check (swapped tile)";
}

// Stream-K (kernels/core/family.hpp, kStreamKParam): the persistent grid shares the K steps of
// the tiles past its last whole wave among its blocks, and each shared tile's first block adds
// the others' sums from the workspace. The 4096 winner's tile through the TMA store, sharing a
// tile among up to 4 blocks; 128 x 128 with direct stores among up to 2; the skinny shapes'
// one-consumer 64 x 128 among up to 4; and 64 x 64, two blocks to an SM (a grid of 264 blocks).
//                                bm   bn  bk  s wg cm cn  p  g ts sk pp rd ew stk
using StreamK128x256 = WgmmaTile<128, 256, 64, 3, 2, 1, 1, 1, 8, 1, 1, 0, 0, 0, 4>;
using StreamK128x128 = WgmmaTile<128, 128, 64, 4, 2, 1, 1, 1, 8, 0, 1, 0, 0, 0, 2>;
using StreamK64x128 = WgmmaTile<64, 128, 64, 6, 1, 1, 1, 1, 8, 0, 1, 0, 0, 0, 4>;
using StreamK64x64 = WgmmaTile<64, 64, 64, 5, 1, 1, 1, 1, 8, 0, 1, 0, 0, 0, 4>;

template <Dtype D>
std::vector<Instance> stream_k_instances() {
  return {instance<StreamK128x256, D, Epilogue::bias_gelu>(), instance<StreamK128x128, D, Epilogue::bias_gelu>(),
          instance<StreamK64x128, D, Epilogue::bias_gelu>(), instance<StreamK64x64, D, Epilogue::bias_gelu>()};
}

// 4096^3 (512, 1024 and 2048 tiles: a partial last wave on 132 SMs for each); a skinny shape
// (fewer tiles than SMs: every tile shared); an edge shape whose 9 K steps end in a partial one,
// with 135, 75 and 270 tiles (a few tiles shared among few blocks, all shared, six shared); and a
// shape smaller than one tile with K of 17 steps.
constexpr Shape kStreamKShapes[] = {{4096, 4096, 4096}, {64, 4096, 4096}, {1920, 1152, 520}, {100, 40, 1032}};

template <Dtype D>
void check_stream_k(int* checked) {
  Stream stream;
  const Epilogue e = Epilogue::bias_gelu;
  const Target target = current_target();
  for (const Shape& s : kStreamKShapes) {
    Workspace ws({s.m, s.n, s.k, D, e}, 700 + s.m + s.k, stream.get());
    for (const Instance& k : stream_k_instances<D>()) {
      const std::string at = where(k.config, D, e, s);
      const WgmmaConfig c = to_wgmma(k.config);
      const Method m = method_of(k, ws);
      const long long grid = wgmma_family().geometry(k.config, ws.problem(), target).grid_x;
      EXPECT_LE(grid, 2LL * target.sm_count) << at;
      EXPECT_EQ(m.workspace_bytes, grid * (4LL * c.bm * c.bn + 4)) << at;
      for (Inputs in : {Inputs::normal, Inputs::bend}) {
        const CheckResult r = check_method(m, ws, in);
        EXPECT_TRUE(r.passed) << at << (in == Inputs::bend ? " (bend inputs)" : "") << ": " << r.why;
        ++*checked;
      }
      // The flags are left at zero and the sums added in block order: the same bits again.
      ws.snapshot_output();
      for (int run = 0; run < 3; ++run) {
        ws.poison_output();
        m.launch(ws.stream());
        EXPECT_EQ(ws.output_differs(), 0) << at << ", run " << run + 2;
      }
    }
  }
}

TEST(Wgmma, StreamKMatchesTheReferenceAndIsDeterministicInBf16) {
  COALESCE_REQUIRE_GPU();
  int checked = 0;
  check_stream_k<Dtype::bf16>(&checked);
  EXPECT_EQ(checked, 4 * 4 * 2);
}

TEST(Wgmma, StreamKMatchesTheReferenceAndIsDeterministicInF16) {
  COALESCE_REQUIRE_GPU();
  int checked = 0;
  check_stream_k<Dtype::f16>(&checked);
  EXPECT_EQ(checked, 4 * 4 * 2);
  // The whole path as the sweep runs it, at the skinny shape.
  Stream stream;
  ColdTimer timer(0, TimingSettings{}, stream.get());
  Workspace ws({64, 4096, 4096, Dtype::f16, Epilogue::bias_gelu}, 95, stream.get());
  const MethodResult r = run_method(method_of(instance<StreamK64x128, Dtype::f16, Epilogue::bias_gelu>(), ws), ws, timer);
  EXPECT_EQ(r.status, Status::ok) << r.detail;
}

// A stream-K grid the compiled kernel cannot hold at once is refused before launch, since its
// blocks would wait for blocks that never start: the 64 x 64 config's grid (256 blocks at
// M = 64, two per SM) with a kernel that fits one per SM (the 64 x 128 tile's).
TEST(Wgmma, StreamKRefusesAGridThatCannotBeResident) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  Workspace ws({64, 4096, 4096, Dtype::bf16, Epilogue::bias_gelu}, 99, stream.get());
  Instance k = instance<StreamK64x128, Dtype::bf16, Epilogue::bias_gelu>();
  k.config = from_wgmma(StreamK64x64::config);
  try {
    kernel_method(k.config, k.epilogue, k.kernel, ws);
    ADD_FAILURE() << "a grid of 256 blocks of a one-per-SM kernel was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("resident at once"), std::string::npos) << e.what();
  }
}

// The check catches stream-K's planted bugs: the first block of a shared tile leaving out the
// last other block's sums, and applying the activation to its own sums before adding the
// others'. At the skinny shape every tile is shared; at 4096^3, 116 of 512 tiles.
TEST(Wgmma, TheCheckCatchesStreamKBugs) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  constexpr Dtype D = Dtype::bf16;
  constexpr Epilogue E = Epilogue::bias_gelu;
  for (const Shape& s : {Shape{64, 4096, 4096}, Shape{4096, 4096, 4096}}) {
    Workspace ws({s.m, s.n, s.k, D, E}, 97, stream.get());
    const std::string at = " at " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
    EXPECT_TRUE(check_method(method_of(instance<StreamK128x256, D, E>(), ws), ws).passed) << "control" << at;
    EXPECT_FALSE(check_method(method_of(instance<StreamK128x256, D, E, kWgmmaHazardLostPartial>(), ws), ws).passed)
        << "a lost partial sum passed the check" << at;
    EXPECT_FALSE(check_method(method_of(instance<StreamK128x256, D, E, kWgmmaHazardDoubleEpilogue>(), ws), ws).passed)
        << "an activation applied to a partial sum passed the check" << at;
  }
}

}  // namespace
