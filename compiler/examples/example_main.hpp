// What every example driver's main() does around its run: the device or status 3, and an
// exception as one line with status 1 (the tools' exit statuses, docs/working.md).
#pragma once

#include <cstdio>
#include <exception>
#include <optional>

#include "harness/device.hpp"

namespace coalesce::examples {

/// Device 0, or nullopt after saying on stderr why there is none (the caller exits with 3).
inline std::optional<DeviceInfo> example_device() {
  try {
    return query_device(0);
  } catch (const NoDeviceError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return std::nullopt;
  }
}

/// `run()`'s status, or 1 after printing `<name>: <what>` for an exception it throws.
template <class Run>
int example_main(const char* name, Run run) {
  try {
    return run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", name, e.what());
    return 1;
  }
}

}  // namespace coalesce::examples
