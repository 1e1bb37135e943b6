// The read_b floor (harness/floors.hpp): it reads every word of B exactly once, run_method times
// it without a check, and on a skinny problem it is measured below cuBLAS GEMM's time, at a
// bandwidth a full read of HBM reaches.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu_test.hpp"
#include "harness/baselines.hpp"
#include "harness/cuda_check.hpp"
#include "harness/floors.hpp"
#include "harness/method.hpp"
#include "harness/timing.hpp"
#include "harness/workspace.hpp"

namespace {

using namespace coalesce;

/// The host's fold of B as read_b_fold documents it: the XOR of the 32-bit words of its whole
/// 16-byte vectors, then each byte of the tail.
unsigned host_fold(const Workspace& ws) {
  const std::size_t bytes = read_b_bytes(ws.problem());
  std::vector<unsigned char> b(bytes);
  COALESCE_CUDA(cudaMemcpy(b.data(), ws.b(), bytes, cudaMemcpyDeviceToHost));
  const std::size_t whole = bytes / 16 * 16;
  unsigned fold = 0;
  for (std::size_t i = 0; i < whole; i += 4) {
    unsigned word = 0;
    std::memcpy(&word, b.data() + i, 4);
    fold ^= word;
  }
  for (std::size_t i = whole; i < bytes; ++i) fold ^= b[i];
  return fold;
}

// Every word of B read once: the kernel's fold equals the host's, for a B of whole vectors in
// both storage widths, one too small to fill a wave, and one with a tail of 12 bytes (5 × 3 f32).
TEST(Floors, ReadBReadsEveryWordOfBOnce) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  const Problem problems[] = {{1, 4096, 4096, Dtype::f32, Epilogue::bias_gelu},
                              {8, 4096, 4096, Dtype::bf16, Epilogue::bias_gelu},
                              {4, 256, 64, Dtype::bf16, Epilogue::none},
                              {1, 3, 5, Dtype::f32, Epilogue::bias}};
  for (const Problem& p : problems) {
    Workspace ws(p, 41, stream.get());
    EXPECT_EQ(read_b_bytes(p), static_cast<std::size_t>(p.k) * p.n * (p.dtype == Dtype::f32 ? 4 : 2));
    EXPECT_EQ(read_b_fold(ws), host_fold(ws)) << p.m << "x" << p.n << "x" << p.k << " " << to_string(p.dtype);
  }
}

// The floor is timed cold like every method but never checked (MethodRole::floor), and it is
// below cuBLAS GEMM's time at M = 1 and 8, N = K = 4096: no GEMM that reads B beats reading B.
// On an H200 its bandwidth is that of a full HBM read (the report's copy-bandwidth model: 4.3 TB/s).
// The bandwidth bounds are the H200's: on another GPU the test fails unless
// COALESCE_FLOORS_ANY_GPU=1 says to run without them, so a pass never hides bounds left out.
TEST(Floors, ReadBIsTimedUncheckedAndBelowCublasOnASkinnyProblem) {
  COALESCE_REQUIRE_GPU();
  Stream stream;
  Baselines baselines;
  const DeviceInfo device = query_device(0);
  const bool h200 = device.name.find("H200") != std::string::npos;
  if (!h200) {
    const char* any = std::getenv("COALESCE_FLOORS_ANY_GPU");
    if (any && std::string(any) == "1")
      std::printf("%s is not an H200: the read_b bandwidth bounds are not checked (COALESCE_FLOORS_ANY_GPU=1)\n",
                  device.name.c_str());
    else
      ADD_FAILURE() << device.name << " is not an H200, whose HBM the read_b bandwidth bounds are for: "
                    << "set COALESCE_FLOORS_ANY_GPU=1 to run without them";
  }
  ColdTimer timer(0, TimingSettings{}, stream.get());
  for (Dtype d : {Dtype::f32, Dtype::bf16}) {
    for (int m : {1, 8}) {
      const Problem p{m, 4096, 4096, d, Epilogue::bias_gelu};
      const std::string what = std::to_string(m) + "x4096x4096 " + std::string(to_string(d));
      Workspace ws(p, 7, stream.get());
      const Method floor = read_b(ws);
      EXPECT_EQ(floor.method, "read_b");
      EXPECT_EQ(floor.role, MethodRole::floor);
      EXPECT_THROW(check_method(floor, ws), std::logic_error);
      const MethodResult f = run_method(floor, ws, timer);
      ASSERT_EQ(f.status, Status::ok) << what << ": " << f.detail;
      EXPECT_FALSE(f.check) << what << ": a floor is not checked";
      ASSERT_TRUE(f.timing);
      EXPECT_GE(f.timing->stats.count, TimingSettings{}.min_samples);
      const MethodResult c = run_method(baselines.cublas_gemm(ws), ws, timer);
      ASSERT_EQ(c.status, Status::ok) << what << ": " << c.detail;
      ASSERT_TRUE(c.check);
      EXPECT_LT(f.timing->stats.median, c.timing->stats.median) << what;
      const double bytes_per_s = static_cast<double>(read_b_bytes(p)) / (f.timing->stats.median * 1e-3);
      std::printf("read_b %s: %.2f us, %.2f TB/s; cuBLAS GEMM %.2f us\n", what.c_str(), f.timing->stats.median * 1e3,
                  bytes_per_s / 1e12, c.timing->stats.median * 1e3);
      if (h200) {
        // The H200's HBM3e peaks at 4.8 TB/s. A grid that does not fill the GPU, or too few loads
        // in flight, falls far below 2 TB/s (launch overhead included, 32 MiB take ~8 µs at full
        // speed); a read above the peak would mean part of B was skipped or came from L2.
        EXPECT_GT(bytes_per_s, 2.0e12) << what;
        EXPECT_LT(bytes_per_s, 5.0e12) << what;
      }
    }
  }
}

}  // namespace
