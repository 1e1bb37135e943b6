// CubinKernel: a kernel compiled by NVRTC at run time, loaded through the runtime's library
// API, launched through kernel_method's path (cudaLaunchKernel on the handle) and checked.
#include <nvrtc.h>

#include <string>
#include <vector>

#include "gpu_test.hpp"
#include "harness/cubin_kernel.hpp"
#include "harness/method.hpp"
#include "harness/workspace.hpp"

namespace {

using namespace coalesce;

// C = A·B + bias[n], one thread per output; the same signature as the simt kernels.
constexpr const char* kSource = R"(
extern "C" __global__ void rtc_gemm_bias(const float* A, const float* B, const float* bias,
                                         float* C, int M, int N, int K) {
  extern __shared__ float unused[];
  int n = blockIdx.x * blockDim.x + threadIdx.x, m = blockIdx.y;
  if (n >= N || m >= M) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += A[(long long)m * K + k] * B[(long long)k * N + n];
  C[(long long)m * N + n] = acc + bias[n];
}
)";

std::vector<char> compile_cubin(const std::string& arch) {
  nvrtcProgram prog;
  EXPECT_EQ(nvrtcCreateProgram(&prog, kSource, "rtc_gemm_bias.cu", 0, nullptr, nullptr), NVRTC_SUCCESS);
  const std::string arch_flag = "--gpu-architecture=" + arch;
  const char* opts[] = {arch_flag.c_str()};
  const nvrtcResult rc = nvrtcCompileProgram(prog, 1, opts);
  std::size_t log_size = 0;
  nvrtcGetProgramLogSize(prog, &log_size);
  std::string log(log_size, '\0');
  nvrtcGetProgramLog(prog, log.data());
  EXPECT_EQ(rc, NVRTC_SUCCESS) << log;
  std::size_t size = 0;
  EXPECT_EQ(nvrtcGetCUBINSize(prog, &size), NVRTC_SUCCESS);
  std::vector<char> cubin(size);
  EXPECT_EQ(nvrtcGetCUBIN(prog, cubin.data()), NVRTC_SUCCESS);
  nvrtcDestroyProgram(&prog);
  return cubin;
}

TEST(CubinKernel, LoadsLaunchesAndComputes) {
  COALESCE_REQUIRE_GPU();
  const DeviceInfo d = query_device(0);
  const std::vector<char> cubin = compile_cubin(d.arch());
  ASSERT_FALSE(cubin.empty());
  CubinKernel kernel(cubin.data(), cubin.size(), "rtc_gemm_bias");
  EXPECT_EQ(kernel.symbol(), "rtc_gemm_bias");
  EXPECT_GT(kernel.attributes().numRegs, 0);
  kernel.set_max_dynamic_smem(64 * 1024);  // above the 48 KiB default: needs the opt-in

  Stream stream;
  Workspace ws({300, 257, 190, Dtype::f32, Epilogue::bias}, 8, stream.get());
  Method m;
  m.method = "coalesce";
  m.family = "rtc";
  m.config = kernel.symbol();
  m.reference_epilogue = Epilogue::bias;
  m.launch = [&kernel, &ws](cudaStream_t s) {
    const float *a = static_cast<const float*>(ws.a()), *b = static_cast<const float*>(ws.b()),
                *bias = static_cast<const float*>(ws.bias());
    float* c = static_cast<float*>(ws.c());
    int mm = 300, nn = 257, kk = 190;
    void* args[] = {&a, &b, &bias, &c, &mm, &nn, &kk};
    kernel.launch(dim3((257 + 127) / 128, 300), dim3(128), 64 * 1024, s, args);
  };
  const CheckResult r = check_method(m, ws);
  EXPECT_TRUE(r.passed) << r.why;
}

TEST(CubinKernel, AMissingSymbolNamesIt) {
  COALESCE_REQUIRE_GPU();
  const std::vector<char> cubin = compile_cubin(query_device(0).arch());
  try {
    CubinKernel kernel(cubin.data(), cubin.size(), "no_such_kernel");
    FAIL() << "loading a missing symbol succeeded";
  } catch (const CudaError& e) {
    EXPECT_NE(std::string(e.what()).find("no_such_kernel"), std::string::npos) << e.what();
  }
}

}  // namespace
