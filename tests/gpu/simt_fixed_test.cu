// The hand-picked simt configs (nvcc instantiations of kernels/simt_gemm.cuh) against the fp64
// reference: every config × every epilogue at square, non-multiple and rectangular shapes.
#include <cstring>
#include <string>
#include <vector>

#include "gpu_test.hpp"
#include "harness/method.hpp"
#include "harness/simt_fixed.hpp"
#include "harness/kernel_method.hpp"
#include "kernels/simt/family.hpp"
#include "harness/workspace.hpp"

namespace {

using namespace coalesce;

struct Shape {
  int m, n, k;
};

// Square; 1000 (a multiple of no block tile); N = 1002 and odd K (only vec 1 and 2 configs
// take N % 4 != 0; every config must handle odd K); rectangular both ways with M past a
// power of two; and a single-element problem.
constexpr Shape kShapes[] = {{512, 512, 512},  {1000, 1000, 1000}, {1000, 1002, 999},
                             {256, 2048, 512}, {4097, 128, 257},   {1000, 1001, 1000}, {1, 4, 1}};

TEST(SimtFixed, EveryConfigAndEpilogueMatchesReference) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  int checked = 0;
  for (const Shape& s : kShapes) {
    for (Epilogue e : {Epilogue::none, Epilogue::bias, Epilogue::bias_relu, Epilogue::bias_gelu}) {
      Workspace ws({s.m, s.n, s.k, Dtype::f32, e}, 200 + s.n, stream.get());
      for (const FixedSimtKernel& k : fixed_simt_kernels()) {
        if (k.epilogue != e) continue;
        const std::string where = config_name(from_simt(k.config), Dtype::f32, e) + " at " + std::to_string(s.m) +
                                  "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
        if (!k.config.check_problem(s.m, s.n, s.k).ok()) {
          EXPECT_THROW(kernel_method(from_simt(k.config), e, k.kernel, ws), std::invalid_argument) << where;
          continue;
        }
        const CheckResult c = check_method(kernel_method(from_simt(k.config), e, k.kernel, ws), ws);
        EXPECT_TRUE(c.passed) << where << ": " << c.why;
        ++checked;
      }
    }
  }
  // Every config ran on the shapes all of them accept (5 of the 7), vec 1 on all 7.
  EXPECT_GE(checked, static_cast<int>(fixed_simt_kernels().size()) * 5);
}

// A race shows as an error that moves between runs on the same inputs: run the default config
// repeatedly at a shape with edge tiles and require the same bits every time.
TEST(SimtFixed, RepeatedRunsAreBitIdentical) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  Workspace ws({1000, 1000, 1000, Dtype::f32, Epilogue::bias_gelu}, 9, stream.get());
  const SimtConfig cfg{};
  const void* kernel = find_fixed_simt_kernel(cfg, Epilogue::bias_gelu);
  ASSERT_NE(kernel, nullptr);
  const Method m = kernel_method(from_simt(cfg), Epilogue::bias_gelu, kernel, ws);
  std::vector<float> first(1000 * 1000), again(1000 * 1000);
  for (int run = 0; run < 5; ++run) {
    ws.poison_output();
    m.launch(ws.stream());
    COALESCE_CUDA(cudaStreamSynchronize(ws.stream()));
    COALESCE_CUDA(cudaMemcpy(run == 0 ? first.data() : again.data(), ws.c(), first.size() * 4,
                             cudaMemcpyDeviceToHost));
    if (run > 0) {
      ASSERT_EQ(std::memcmp(first.data(), again.data(), first.size() * 4), 0) << "run " << run;
    }
  }
}

}  // namespace
