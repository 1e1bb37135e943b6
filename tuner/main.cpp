// coalesce-tune: enumerates, compiles, checks and times tile configs of the fused kernel and
// stores every row in the results database.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>

#include "coalesce/version.h"
#include "harness/device.hpp"

namespace {

int print_env(int ordinal) {
  coalesce::DeviceInfo d = coalesce::query_device(ordinal);
  std::printf("device          %s (%s)\n", d.name.c_str(), d.uuid.c_str());
  std::printf("arch            %s, %d SMs, L2 %d KiB, %.1f GiB\n", d.arch().c_str(), d.sm_count,
              d.l2_bytes / 1024, d.global_mem_bytes / double(1 << 30));
  std::printf("limits          smem/block (opt-in) %d B, smem/SM %d B, threads/block %d, regs/SM %d\n",
              d.limits.smem_per_block_optin, d.limits.smem_per_sm, d.limits.max_threads_per_block,
              d.limits.regs_per_sm);
  std::printf("driver          CUDA %d.%d%s%s\n", d.driver_version / 1000, (d.driver_version % 1000) / 10,
              d.driver_release.empty() ? "" : ", release ", d.driver_release.c_str());
  std::printf("runtime         CUDA %d.%d\n", d.runtime_version / 1000, (d.runtime_version % 1000) / 10);
  auto clock = coalesce::sm_clock_mhz(ordinal);
  if (clock)
    std::printf("sm clock        %d MHz now, %d MHz max\n", *clock, d.max_sm_clock_mhz);
  else
    std::printf("sm clock        unknown (NVML not available)\n");
  std::printf("coalesce        %s (git %s)\n", COALESCE_VERSION, COALESCE_GIT_REVISION);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"coalesce-tune: tune the fused GEMM+bias+activation kernel for the GPU in hand"};
  app.set_version_flag("--version", std::string("coalesce-tune ") + COALESCE_VERSION + " (git " +
                                        COALESCE_GIT_REVISION + ")");
  app.require_subcommand(1);
  int ordinal = 0;
  auto* env = app.add_subcommand("env", "Print the device, its limits and the environment");
  env->add_option("--device", ordinal, "CUDA device ordinal")->default_val(0);
  CLI11_PARSE(app, argc, argv);
  try {
    if (*env) return print_env(ordinal);
  } catch (const coalesce::NoDeviceError& e) {
    std::fprintf(stderr, "coalesce-tune: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "coalesce-tune: %s\n", e.what());
    return 1;
  }
  return 0;
}
