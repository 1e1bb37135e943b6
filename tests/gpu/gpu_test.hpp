// Shared by the GPU tests: skip with the reason where there is no device.
#pragma once

#include <gtest/gtest.h>

#include "harness/device.hpp"

#define COALESCE_REQUIRE_GPU()                                                   \
  do {                                                                           \
    if (::coalesce::device_count() == 0)                                         \
      GTEST_SKIP() << "no CUDA device on this machine: GPU test not run";        \
  } while (0)
