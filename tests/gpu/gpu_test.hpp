// Shared by the GPU tests: what a test does where it finds no usable device. On a development
// machine it skips with the reason; on the GPU host scripts/gpu-test.sh sets
// COALESCE_REQUIRE_GPU=1, and there a missing device fails the test, so a hidden device or a broken
// driver cannot turn the whole suite into skips that read as a pass. A driver that is installed
// but fails always fails the test.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "harness/device.hpp"

namespace coalesce::gpu_test {

/// What a GPU test does after counting the devices.
enum class Action { run, skip, fail };

struct Gate {
  Action action = Action::run;
  std::string message;  ///< why it skips or fails, with the CUDA error; empty when it runs
};

/// The rule: run with a device; fail on a driver error, or with no device when `require_gpu`
/// (the value of COALESCE_REQUIRE_GPU; set, non-empty and not "0" means required); else skip.
inline Gate gate(const DeviceCount& devices, const char* require_gpu) {
  if (devices.count > 0) return {};
  if (devices.driver_error) return {Action::fail, "CUDA driver error: " + devices.why};
  const bool required = require_gpu && *require_gpu && std::string(require_gpu) != "0";
  if (required)
    return {Action::fail, "no CUDA device: " + devices.why + "; COALESCE_REQUIRE_GPU=" +
                              require_gpu + " says this machine must have one"};
  return {Action::skip, "no CUDA device: " + devices.why + "; GPU test not run"};
}

}  // namespace coalesce::gpu_test

/// Skips or fails the current test (see gate()) unless a CUDA device is there.
#define COALESCE_REQUIRE_GPU()                                                       \
  do {                                                                               \
    const ::coalesce::gpu_test::Gate coalesce_gate_ = ::coalesce::gpu_test::gate(    \
        ::coalesce::count_devices(), std::getenv("COALESCE_REQUIRE_GPU"));           \
    if (coalesce_gate_.action == ::coalesce::gpu_test::Action::fail)                 \
      FAIL() << coalesce_gate_.message;                                              \
    if (coalesce_gate_.action == ::coalesce::gpu_test::Action::skip)                 \
      GTEST_SKIP() << coalesce_gate_.message;                                        \
  } while (0)
