// Capturing and printing the environment of a run (see environment.hpp).
#include "environment.hpp"

#include <cublasLt.h>
#include <cublas_v2.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "coalesce/version.h"

namespace coalesce {

namespace {

std::string cublas_version() {
  int major = 0, minor = 0, patch = 0;
  if (cublasGetProperty(MAJOR_VERSION, &major) != CUBLAS_STATUS_SUCCESS ||
      cublasGetProperty(MINOR_VERSION, &minor) != CUBLAS_STATUS_SUCCESS ||
      cublasGetProperty(PATCH_LEVEL, &patch) != CUBLAS_STATUS_SUCCESS)
    return "unknown";
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

/// cublasLtGetVersion() encodes major·10000 + minor·100 + patch.
std::string cublaslt_version() {
  const std::size_t v = cublasLtGetVersion();
  return std::to_string(v / 10000) + "." + std::to_string((v / 100) % 100) + "." + std::to_string(v % 100);
}

std::string cuda_version(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

}  // namespace

Environment capture_environment(int ordinal, const TimingSettings& timing) {
  Environment e;
  e.device = query_device(ordinal);
  e.sm_clock_mhz = sm_clock_mhz(ordinal);
  e.cublas_version = cublas_version();
  e.cublaslt_version = cublaslt_version();
  e.coalesce_version = COALESCE_VERSION;
  e.git_revision = COALESCE_GIT_REVISION;
  e.timing = timing;
  return e;
}

void to_json(nlohmann::json& j, const Environment& e) {
  const DeviceInfo& d = e.device;
  j = nlohmann::json{
      {"device", {{"name", d.name}, {"uuid", d.uuid}, {"arch", d.arch()}, {"sm_count", d.sm_count},
                  {"l2_bytes", d.l2_bytes}, {"global_mem_bytes", d.global_mem_bytes},
                  {"max_sm_clock_mhz", d.max_sm_clock_mhz}}},
      {"driver_version", cuda_version(d.driver_version)},
      {"driver_release", d.driver_release},
      {"runtime_version", cuda_version(d.runtime_version)},
      {"cublas_version", e.cublas_version},
      {"cublaslt_version", e.cublaslt_version},
      {"sm_clock_mhz", e.sm_clock_mhz ? nlohmann::json(*e.sm_clock_mhz) : nlohmann::json(nullptr)},
      {"coalesce_version", e.coalesce_version},
      {"git_revision", e.git_revision},
      {"harness", e.timing}};
}

std::string format_environment(const Environment& e) {
  const DeviceInfo& d = e.device;
  char buf[1024];
  std::string clock = e.sm_clock_mhz ? std::to_string(*e.sm_clock_mhz) + " MHz now, " +
                                           std::to_string(d.max_sm_clock_mhz) + " MHz max"
                                     : "unknown (NVML not available)";
  std::snprintf(buf, sizeof buf,
                "device    %s (%s), %s, %d SMs, L2 %d KiB\n"
                "driver    CUDA %s%s%s, runtime CUDA %s, cuBLAS %s, cuBLASLt %s\n"
                "sm clock  %s\n"
                "coalesce  %s (git %s)\n",
                d.name.c_str(), d.uuid.c_str(), d.arch().c_str(), d.sm_count, d.l2_bytes / 1024,
                cuda_version(d.driver_version).c_str(), d.driver_release.empty() ? "" : ", release ",
                d.driver_release.c_str(), cuda_version(d.runtime_version).c_str(),
                e.cublas_version.c_str(), e.cublaslt_version.c_str(), clock.c_str(),
                e.coalesce_version.c_str(), e.git_revision.c_str());
  return std::string(buf) + "harness   " + nlohmann::json(e.timing).dump() + "\n";
}

}  // namespace coalesce
