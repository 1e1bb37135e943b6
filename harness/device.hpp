// The GPU in hand and the environment a measurement is stamped with.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>

#include "kernels/core/family.hpp"

namespace coalesce {

/// Thrown when a command needs a GPU and the machine has none; tools print its message
/// ("no CUDA device: ...") and exit with status 3 (docs/working.md, "Exit status").
class NoDeviceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  std::string uuid;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int l2_bytes = 0;
  long long global_mem_bytes = 0;
  int driver_version = 0;   ///< cudaDriverGetVersion, e.g. 13000
  int runtime_version = 0;  ///< cudaRuntimeGetVersion
  std::string driver_release;  ///< NVML's driver string (e.g. "580.159.04"), empty if unknown
  int max_sm_clock_mhz = 0;    ///< NVML, 0 if unknown
  DeviceLimits limits;
  std::string arch() const { return "sm_" + std::to_string(cc_major * 10 + cc_minor); }
  /// What kernel families are judged against on this device: the device itself, so its
  /// architecture-specific target (sm_90a) is usable where the compute capability has one.
  Target target() const { return {cc_major, cc_minor, cc_major >= 9, limits, sm_count}; }
};

/// What cudaGetDeviceCount said: how many devices, or why there is none.
struct DeviceCount {
  int count = 0;
  /// An NVIDIA driver is installed but the CUDA runtime cannot use it (too old, mismatched,
  /// failed to initialize): a broken GPU host, not a machine without a GPU.
  bool driver_error = false;
  /// Empty with devices; else one clause with the CUDA error's name and text, e.g.
  /// "cudaErrorNoDevice: no CUDA-capable device is detected".
  std::string why;
};

/// Counts the CUDA devices and, where there is none, says why. No driver library (libcuda.so.1)
/// and cudaErrorNoDevice (none visible, e.g. CUDA_VISIBLE_DEVICES="") mean "no GPU"; any other
/// error is a driver error.
DeviceCount count_devices();

/// The number of CUDA devices; 0 (not an error) where there is no driver or no GPU.
int device_count();

/// The CUDA runtime's version (cudaRuntimeGetVersion, e.g. 13000): the static runtime knows it
/// without a driver.
int cuda_runtime_version();

/// Queries device `ordinal`; throws NoDeviceError when there is none, saying why.
DeviceInfo query_device(int ordinal = 0);

/// The current device (cudaGetDevice), queried once per device and kept.
const DeviceInfo& current_device();

/// The target of the current device (current_device().target()).
Target current_target();

/// The current SM clock in MHz read through NVML (loaded at run time), or nullopt when NVML is
/// not available; never an error.
std::optional<int> sm_clock_mhz(int ordinal);

}  // namespace coalesce
