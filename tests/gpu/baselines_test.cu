// The four baselines against the fp64 reference for every epilogue, at shapes that take the
// vectorized and the scalar elementwise paths.
#include <string>

#include "gpu_test.hpp"
#include "harness/baselines.hpp"
#include "harness/method.hpp"
#include "harness/workspace.hpp"

namespace {

using namespace coalesce;

struct Shape {
  int m, n, k;
};
// N % 4 == 0 (float4 elementwise), odd N (scalar path), and a rectangular one.
constexpr Shape kShapes[] = {{512, 512, 512}, {1000, 1001, 999}, {257, 4096, 129}};

TEST(Baselines, AllFourMatchTheirReferences) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  Baselines baselines;
  for (const Shape& s : kShapes) {
    for (Epilogue e : {Epilogue::none, Epilogue::bias, Epilogue::bias_relu, Epilogue::bias_gelu}) {
      Workspace ws({s.m, s.n, s.k, Dtype::f32, e}, 300 + s.n, stream.get());
      std::string why_not;
      const std::vector<Method> methods = baselines.all(ws, &why_not);
      EXPECT_EQ(methods.size(), 4u) << "cuBLASLt unavailable: " << why_not;
      for (const Method& m : methods) {
        const CheckResult c = check_method(m, ws);
        EXPECT_TRUE(c.passed) << describe(m) << " at " << s.m << "x" << s.n << "x" << s.k << ": " << c.why;
      }
    }
  }
}

TEST(Baselines, ReferenceKindsAreTheDocumentedOnes) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  Baselines baselines;
  Workspace ws({256, 256, 256, Dtype::f32, Epilogue::bias_gelu}, 4, stream.get());
  EXPECT_EQ(baselines.cublas_gemm(ws).reference_epilogue, Epilogue::none);
  EXPECT_EQ(baselines.eager(ws).kernels, 3);
  EXPECT_EQ(baselines.unfused(ws).kernels, 2);
  std::string why_not;
  auto lt = baselines.cublaslt_fused(ws, &why_not);
  ASSERT_TRUE(lt) << why_not;
  EXPECT_TRUE(lt->tanh_reference);
  EXPECT_EQ(lt->reference_epilogue, Epilogue::bias_gelu);
}

}  // namespace
