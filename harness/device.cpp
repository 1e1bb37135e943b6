// Device queries; NVML is opened with dlopen so the tools start where it is absent.
#include "device.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <map>
#include <mutex>

#include "cuda_check.hpp"

namespace coalesce {

namespace {

// The few NVML entry points used, declared here because nvml.h is absent on the CPU machines.
using nvmlDevice_t = void*;
struct Nvml {
  int (*init)() = nullptr;
  int (*by_index)(unsigned, nvmlDevice_t*) = nullptr;
  int (*clock)(nvmlDevice_t, int, unsigned*) = nullptr;
  int (*max_clock)(nvmlDevice_t, int, unsigned*) = nullptr;
  int (*driver)(char*, unsigned) = nullptr;
  bool ok = false;
};
constexpr int kNvmlClockSm = 1;  // NVML_CLOCK_SM

const Nvml& nvml() {
  static Nvml n = [] {
    Nvml n;
    void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return n;
    n.init = reinterpret_cast<int (*)()>(dlsym(lib, "nvmlInit_v2"));
    n.by_index = reinterpret_cast<int (*)(unsigned, nvmlDevice_t*)>(dlsym(lib, "nvmlDeviceGetHandleByIndex_v2"));
    n.clock = reinterpret_cast<int (*)(nvmlDevice_t, int, unsigned*)>(dlsym(lib, "nvmlDeviceGetClockInfo"));
    n.max_clock = reinterpret_cast<int (*)(nvmlDevice_t, int, unsigned*)>(dlsym(lib, "nvmlDeviceGetMaxClockInfo"));
    n.driver = reinterpret_cast<int (*)(char*, unsigned)>(dlsym(lib, "nvmlSystemGetDriverVersion"));
    n.ok = n.init && n.by_index && n.clock && n.max_clock && n.driver && n.init() == 0;
    return n;
  }();
  return n;
}

// Without libcuda.so.1 the static CUDA runtime reports cudaErrorInsufficientDriver, the same
// error as a driver too old for it: only the library's absence tells "no driver" from "old driver".
bool driver_library_installed() {
  void* lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!lib) return false;
  dlclose(lib);
  return true;
}

}  // namespace

DeviceCount count_devices() {
  DeviceCount out;
  int n = 0;
  const cudaError_t status = cudaGetDeviceCount(&n);
  if (status == cudaSuccess) {
    out.count = n;
    if (n == 0) out.why = "the CUDA runtime counts 0 devices";
    return out;
  }
  cudaGetLastError();  // clear the error so later calls start clean
  const std::string error = std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
  if (status == cudaErrorNoDevice) {
    out.why = error;
  } else if (status == cudaErrorInsufficientDriver && !driver_library_installed()) {
    out.why = "this machine has no NVIDIA driver (libcuda.so.1 not found)";
  } else {
    out.driver_error = true;
    out.why = "the NVIDIA driver is installed but the CUDA runtime cannot use it (" + error + ")";
  }
  return out;
}

int device_count() { return count_devices().count; }

int cuda_runtime_version() {
  int v = 0;
  if (cudaRuntimeGetVersion(&v) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return v;
}

std::optional<int> sm_clock_mhz(int ordinal) {
  const Nvml& n = nvml();
  if (!n.ok) return std::nullopt;
  nvmlDevice_t dev = nullptr;
  unsigned mhz = 0;
  if (n.by_index(ordinal, &dev) != 0 || n.clock(dev, kNvmlClockSm, &mhz) != 0) return std::nullopt;
  return static_cast<int>(mhz);
}

DeviceInfo query_device(int ordinal) {
  const DeviceCount devices = count_devices();
  const int count = devices.count;
  if (count == 0) throw NoDeviceError("no CUDA device: " + devices.why);
  if (ordinal < 0 || ordinal >= count)
    throw NoDeviceError("no CUDA device " + std::to_string(ordinal) + ": this machine has " +
                        std::to_string(count));
  cudaDeviceProp p{};
  COALESCE_CUDA(cudaGetDeviceProperties(&p, ordinal));
  DeviceInfo d;
  d.ordinal = ordinal;
  d.name = p.name;
  char uuid[48];  // "GPU-" + 32 hex digits + 4 dashes + NUL = 41
  const unsigned char* u = reinterpret_cast<const unsigned char*>(p.uuid.bytes);
  std::snprintf(uuid, sizeof uuid, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
  d.uuid = uuid;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  d.l2_bytes = p.l2CacheSize;
  d.global_mem_bytes = static_cast<long long>(p.totalGlobalMem);
  COALESCE_CUDA(cudaDriverGetVersion(&d.driver_version));
  COALESCE_CUDA(cudaRuntimeGetVersion(&d.runtime_version));
  d.limits.smem_per_block_optin = static_cast<int>(p.sharedMemPerBlockOptin);
  d.limits.smem_per_sm = static_cast<int>(p.sharedMemPerMultiprocessor);
  d.limits.max_threads_per_block = p.maxThreadsPerBlock;
  d.limits.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  d.limits.regs_per_sm = p.regsPerMultiprocessor;
  d.limits.max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
  const Nvml& n = nvml();
  if (n.ok) {
    char buf[96] = {};
    if (n.driver(buf, sizeof buf) == 0) d.driver_release = buf;
    nvmlDevice_t dev = nullptr;
    unsigned mhz = 0;
    if (n.by_index(ordinal, &dev) == 0 && n.max_clock(dev, kNvmlClockSm, &mhz) == 0)
      d.max_sm_clock_mhz = static_cast<int>(mhz);
  }
  return d;
}

const DeviceInfo& current_device() {
  static std::mutex mutex;
  static std::map<int, DeviceInfo> known;  // a map's elements stay where they are
  int ordinal = 0;
  COALESCE_CUDA(cudaGetDevice(&ordinal));
  std::lock_guard lock(mutex);
  auto it = known.find(ordinal);
  if (it == known.end()) it = known.emplace(ordinal, query_device(ordinal)).first;
  return it->second;
}

Target current_target() { return current_device().target(); }

}  // namespace coalesce
