// What every reported number is stamped with, since a number is reported only with the run that
// produced it: device, driver, CUDA, libraries, clock, Coalesce's git revision, and the harness
// settings.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "device.hpp"
#include "timing.hpp"

namespace coalesce {

struct Environment {
  DeviceInfo device;
  std::optional<int> sm_clock_mhz;  ///< when captured; nullopt without NVML
  std::string cublas_version;       ///< e.g. "13.0.2"
  std::string cublaslt_version;
  std::string coalesce_version;
  std::string git_revision;  ///< with "-dirty" when the build had uncommitted changes
  TimingSettings timing;
};

/// Captures the environment of device `ordinal`; throws NoDeviceError where there is none.
Environment capture_environment(int ordinal, const TimingSettings& timing);

void to_json(nlohmann::json& j, const Environment& e);

/// The environment as aligned "key  value" lines, for the head of a printed table.
std::string format_environment(const Environment& e);

}  // namespace coalesce
