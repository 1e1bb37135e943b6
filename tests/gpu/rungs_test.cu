// The teaching rungs against the fp64 reference at square, non-multiple and rectangular shapes,
// with every epilogue.
#include <string>

#include "gpu_test.hpp"
#include "harness/method.hpp"
#include "harness/rungs.hpp"
#include "harness/workspace.hpp"

namespace {

using namespace coalesce;

struct Shape {
  int m, n, k;
};

// Square; multiples of nothing (1000 is not a multiple of 64, 1001/999/1003 are odd);
// rectangular both ways, one with M just past a power of two (4097) and K not a multiple of
// any tile (129).
constexpr Shape kShapes[] = {{512, 512, 512},   {1000, 1000, 1000}, {1001, 999, 1003},
                             {128, 2048, 320},  {4097, 96, 129},    {1, 1, 1}};

TEST(Rungs, MatchReferenceAtEveryShapeAndEpilogue) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  for (const Shape& s : kShapes) {
    for (Epilogue e : {Epilogue::none, Epilogue::bias, Epilogue::bias_relu, Epilogue::bias_gelu}) {
      Workspace ws({s.m, s.n, s.k, Dtype::f32, e}, 100 + s.m, stream.get());
      for (Rung r : kRungs) {
        const Method m = rung_method(r, ws);
        const CheckResult c = check_method(m, ws);
        EXPECT_TRUE(c.passed) << m.config << " at " << s.m << "x" << s.n << "x" << s.k << ": " << c.why;
      }
    }
  }
}

}  // namespace
