// The rule of COALESCE_REQUIRE_GPU() (gpu_test.hpp) on every kind of device count: it runs with a
// device, skips without one on a development machine, and fails where a GPU is required or the
// driver is broken, naming the CUDA error. Needs no GPU.
#include <gtest/gtest.h>

#include "gpu_test.hpp"

namespace coalesce::gpu_test {
namespace {

DeviceCount devices(int count) { return {count, false, ""}; }
DeviceCount no_gpu() { return {0, false, "cudaErrorNoDevice: no CUDA-capable device is detected"}; }
DeviceCount broken_driver() {
  return {0, true,
          "the NVIDIA driver is installed but the CUDA runtime cannot use it "
          "(cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version)"};
}

TEST(GpuGate, ADeviceRuns) {
  for (const char* required : {static_cast<const char*>(nullptr), "", "0", "1"}) {
    Gate g = gate(devices(1), required);
    EXPECT_EQ(g.action, Action::run);
    EXPECT_EQ(g.message, "");
  }
}

TEST(GpuGate, NoDeviceSkipsWithTheReasonUnlessRequired) {
  for (const char* required : {static_cast<const char*>(nullptr), "", "0"}) {
    Gate g = gate(no_gpu(), required);
    EXPECT_EQ(g.action, Action::skip) << (required ? required : "unset");
    EXPECT_EQ(g.message, "no CUDA device: cudaErrorNoDevice: no CUDA-capable device is detected; "
                         "GPU test not run");
  }
}

TEST(GpuGate, NoDeviceFailsWhereAGpuIsRequired) {
  for (const char* required : {"1", "yes"}) {
    Gate g = gate(no_gpu(), required);
    EXPECT_EQ(g.action, Action::fail) << required;
    EXPECT_EQ(g.message, "no CUDA device: cudaErrorNoDevice: no CUDA-capable device is detected; "
                         "COALESCE_REQUIRE_GPU=" + std::string(required) +
                         " says this machine must have one");
  }
}

TEST(GpuGate, ABrokenDriverAlwaysFailsWithItsError) {
  for (const char* required : {static_cast<const char*>(nullptr), "1"}) {
    Gate g = gate(broken_driver(), required);
    EXPECT_EQ(g.action, Action::fail);
    EXPECT_NE(g.message.find("CUDA driver error: the NVIDIA driver is installed"), std::string::npos)
        << g.message;
    EXPECT_NE(g.message.find("cudaErrorInsufficientDriver"), std::string::npos) << g.message;
  }
}

}  // namespace
}  // namespace coalesce::gpu_test
