// Split-K (kernels/core/family.hpp, kSplitParam), as the harness runs it: a family's kernel in
// split mode (here simt's, compiled by nvcc) stores each K slice's f32 partial sums into the
// workspace kernel_method() allocates, and the reduce adds them in slice order, applies the
// epilogue and stores C once. Checked against the fp64 reference at skinny, edge and uneven-K
// shapes for several factors; run twice for the same bits; and the two bugs a split schedule
// invites — a lost partial sum and an epilogue applied twice — planted and caught by the check,
// as is an output that changes from run to run (run_method's determinism comparison).
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gpu_test.hpp"
#include "harness/cuda_check.hpp"
#include "harness/cuda_raii.hpp"
#include "harness/kernel_method.hpp"
#include "harness/method.hpp"
#include "harness/splitk.hpp"
#include "harness/timing.hpp"
#include "harness/workspace.hpp"
#include "kernels/elementwise.cuh"
#include "kernels/simt/family.hpp"
#include "kernels/simt/gemm.cuh"

namespace {

using namespace coalesce;

//                         BM  BN  BK  WM  WN TM TN S  V  G  O  SPLIT
using Split = SimtTile<    64, 64, 16, 32, 32, 4, 8, 3, 4, 8, 2, 2>;
using Whole = SimtTile<    64, 64, 16, 32, 32, 4, 8, 3, 4, 8, 2, 1>;

template <class Tile, class Epi>
const void* kernel_fn() {
  return reinterpret_cast<const void*>(&simt_gemm_kernel<Tile, Epi>);
}

const void* split_kernel(Epilogue e) {
  switch (e) {
    case Epilogue::none: return kernel_fn<Split, EpilogueNone>();
    case Epilogue::bias: return kernel_fn<Split, EpilogueBias>();
    case Epilogue::bias_relu: return kernel_fn<Split, EpilogueFor<Epilogue::bias_relu>>();
    case Epilogue::bias_gelu: return kernel_fn<Split, EpilogueFor<Epilogue::bias_gelu>>();
  }
  return nullptr;
}

Config split_config(int slices) {
  SimtConfig c = Split::config;
  c.split = slices;
  return from_simt(c);
}

struct Shape {
  int m, n, k;
};
std::string str(const Shape& s) { return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k); }

// One row; a few rows past a tile edge; K not a multiple of BK nor of the slices; K of exactly
// one BK step per slice; a larger M with uneven tiles.
constexpr Shape kShapes[] = {{1, 4096, 4096}, {7, 1000, 1000}, {33, 512, 1030}, {64, 256, 128}, {130, 520, 777}};

TEST(SplitK, EveryFactorMatchesTheReferenceAndIsDeterministic) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  ColdTimer timer(0, TimingSettings{}, stream.get());
  int checked = 0;
  for (const Shape& s : kShapes)
    for (Epilogue e : {Epilogue::none, Epilogue::bias, Epilogue::bias_relu, Epilogue::bias_gelu}) {
      Workspace ws({s.m, s.n, s.k, Dtype::f32, e}, 500 + s.m + static_cast<int>(e), stream.get());
      for (int slices : {2, 3, 5, 8, 12}) {
        const Config config = split_config(slices);
        if (!simt_family().check_problem(config, ws.problem()).ok()) continue;
        const std::string where = config_name(config, Dtype::f32, e) + " at " + str(s);
        const Method m = kernel_method(config, e, split_kernel(e), ws);
        EXPECT_EQ(m.workspace_bytes, 4LL * slices * s.m * s.n) << where;
        EXPECT_TRUE(m.deterministic) << where;
        for (Inputs inputs : {Inputs::normal, Inputs::bend}) {
          const CheckResult c = check_method(m, ws, inputs);
          EXPECT_TRUE(c.passed) << where << ": " << c.why;
          ++checked;
        }
        // Two runs on the same inputs give the same bits.
        ws.snapshot_output();
        ws.poison_output();
        m.launch(ws.stream());
        EXPECT_EQ(ws.output_differs(), 0) << where;
      }
    }
  EXPECT_GE(checked, 100);
  // The whole path, as the sweep runs it (check on bend and normal inputs, timing, the check
  // after the timed runs and the bit comparison with the first run).
  Workspace ws({8, 4096, 4096, Dtype::f32, Epilogue::bias_gelu}, 77, stream.get());
  const MethodResult r = run_method(kernel_method(split_config(8), Epilogue::bias_gelu, split_kernel(Epilogue::bias_gelu), ws), ws, timer);
  EXPECT_EQ(r.status, Status::ok) << r.detail;
}

// The reduce's sums must be the bits of adding the slices one at a time in slice order (the
// deterministic order docs/families.md promises), for slice counts from 3 (two slices add the
// same either way) to 21. Partials of mixed magnitudes make the order matter: the test first
// shows that adding them in reverse order changes some sums, so a reduce that added in another
// order could not pass it.
TEST(SplitK, TheReduceAddsTheSlicesInSliceOrder) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  const int m = 37, n = 264;  // rows of 66 16-byte vectors of f32; 2,442 in all, a partial last block
  for (int slices : {3, 7, 8, 9, 16, 21}) {
    const long long mn = static_cast<long long>(m) * n;
    std::vector<float> host(static_cast<std::size_t>(slices * mn));
    std::mt19937 rng(1000 + slices);
    std::uniform_real_distribution<float> mantissa(-1.0f, 1.0f);
    std::uniform_int_distribution<int> exponent(-12, 12);
    for (float& x : host) x = std::ldexp(mantissa(rng), exponent(rng));
    std::vector<float> in_order(static_cast<std::size_t>(mn)), reversed(static_cast<std::size_t>(mn));
    for (long long i = 0; i < mn; ++i) {
      float a = host[i], r = host[(slices - 1) * mn + i];
      for (int z = 1; z < slices; ++z) {
        a += host[z * mn + i];
        r += host[(slices - 1 - z) * mn + i];
      }
      in_order[i] = a;
      reversed[i] = r;
    }
    int order_matters = 0;
    for (long long i = 0; i < mn; ++i) order_matters += std::memcmp(&in_order[i], &reversed[i], 4) != 0;
    ASSERT_GT(order_matters, 0) << slices << " slices: the partials do not tell the orders apart";

    DeviceBuffer<float> partials(host.size()), c(static_cast<std::size_t>(mn));
    // On the reduce's stream: the stream is non-blocking, and a cudaMemcpy from pageable memory
    // may return before its DMA lands, so a reduce on another stream could read the partials
    // before they arrive (it did once, at 21 slices, in run JH).
    COALESCE_CUDA(cudaMemcpyAsync(partials.get(), host.data(), partials.bytes(), cudaMemcpyHostToDevice, stream.get()));
    launch_splitk_reduce({m, n, 64, Dtype::f32, Epilogue::none}, partials.get(), slices, nullptr, c.get(),
                         elementwise_grid_cap(), stream.get());
    COALESCE_CUDA(cudaStreamSynchronize(stream.get()));
    std::vector<float> got(static_cast<std::size_t>(mn));
    COALESCE_CUDA(cudaMemcpy(got.data(), c.get(), c.bytes(), cudaMemcpyDeviceToHost));
    int differing = 0;
    for (long long i = 0; i < mn; ++i) differing += std::memcmp(&got[i], &in_order[i], 4) != 0;
    EXPECT_EQ(differing, 0) << slices << " slices: sums not in slice order";
  }
}

// The planted bugs: the reduce loses the last slice's partial sums, or the epilogue is applied
// twice (once more after the reduce); and a schedule whose output changes from run to run.
TEST(SplitK, TheCheckCatchesALostPartialSumADoubleEpilogueAndNondeterminism) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  ColdTimer timer(0, TimingSettings{}, stream.get());
  const int max_blocks = elementwise_grid_cap();
  for (const Shape& s : {Shape{1, 4096, 4096}, Shape{33, 512, 1030}}) {
    Workspace ws({s.m, s.n, s.k, Dtype::f32, Epilogue::bias_gelu}, 900 + s.m, stream.get());
    const Problem p = ws.problem();
    const int slices = 4;
    const std::string where = str(s);
    auto partials = std::make_shared<DeviceBuffer<float>>(static_cast<std::size_t>(slices) * s.m * s.n);
    const Geometry g = simt_family().geometry(split_config(slices), p, Target{});
    auto split_gemm = [&, partials, g](cudaStream_t st) {
      simt_gemm_kernel<Split, EpilogueNone><<<dim3(g.grid_x, g.grid_y, g.grid_z), g.block_x, g.smem_bytes, st>>>(
          static_cast<const float*>(ws.a()), static_cast<const float*>(ws.b()), nullptr, partials->get(), p.m, p.n,
          p.k);
      COALESCE_CUDA(cudaGetLastError());
    };
    COALESCE_CUDA(cudaFuncSetAttribute(kernel_fn<Split, EpilogueNone>(), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       g.smem_bytes));

    Method correct;
    correct.method = "coalesce";
    correct.family = "simt";
    correct.config = "split_control";
    correct.reference_epilogue = p.epilogue;
    correct.launch = [&, split_gemm, partials, max_blocks](cudaStream_t st) {
      split_gemm(st);
      launch_splitk_reduce(p, partials->get(), slices, ws.bias(), ws.c(), max_blocks, st);
    };
    EXPECT_TRUE(check_method(correct, ws).passed) << where << ": the hand-built split must pass (control)";

    Method lost = correct;
    lost.config = "split_lost_partial";
    lost.launch = [&, split_gemm, partials, max_blocks](cudaStream_t st) {
      split_gemm(st);
      launch_splitk_reduce(p, partials->get(), slices - 1, ws.bias(), ws.c(), max_blocks, st);
    };
    const CheckResult lost_result = check_method(lost, ws);
    EXPECT_FALSE(lost_result.passed) << where << ": a lost partial sum passed the check";

    Method twice = correct;
    twice.config = "split_double_epilogue";
    twice.launch = [&, split_gemm, partials, max_blocks](cudaStream_t st) {
      split_gemm(st);
      launch_splitk_reduce(p, partials->get(), slices, ws.bias(), ws.c(), max_blocks, st);
      launch_bias_epilogue_inplace<float, EpilogueFor<Epilogue::bias_gelu>>(static_cast<float*>(ws.c()),
                                                               static_cast<const float*>(ws.bias()), p.m, p.n,
                                                               max_blocks, st);
    };
    EXPECT_FALSE(check_method(twice, ws).passed) << where << ": a double epilogue passed the check";

    // Right to within the tolerance on every run, but not the same bits twice: after the two
    // checked runs (bend and normal inputs) the last element is one unit in the last place off.
    auto launches = std::make_shared<int>(0);
    Method drifting = correct;
    drifting.config = "split_nondeterministic";
    drifting.deterministic = true;
    drifting.launch = [&, correct_launch = correct.launch, launches](cudaStream_t st) {
      correct_launch(st);
      float* last = static_cast<float*>(ws.c()) + (static_cast<long long>(p.m) * p.n - 1);
      float value = 0;
      COALESCE_CUDA(cudaMemcpyAsync(&value, last, sizeof value, cudaMemcpyDeviceToHost, st));
      COALESCE_CUDA(cudaStreamSynchronize(st));
      unsigned bits;
      std::memcpy(&bits, &value, 4);
      bits += ++*launches > 2 ? 1u : 0u;
      std::memcpy(&value, &bits, 4);
      COALESCE_CUDA(cudaMemcpyAsync(last, &value, sizeof value, cudaMemcpyHostToDevice, st));
      COALESCE_CUDA(cudaStreamSynchronize(st));
    };
    const MethodResult r = run_method(drifting, ws, timer);
    EXPECT_EQ(r.status, Status::wrong_result) << where << ": " << r.detail;
    EXPECT_NE(r.detail.find("not deterministic"), std::string::npos) << r.detail;
  }
}

}  // namespace
