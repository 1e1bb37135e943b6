// Where the project's files lie for a program of this checkout: the tools find the peers script
// and the published tuning data beside the build they were run from.
#pragma once

#include <filesystem>
#include <system_error>

namespace coalesce::tuner {

/// The directory this program was built or unpacked under: three levels above its executable
/// (<checkout>/build/bin/coalesce-tune, or dist/bin/ of a bundle unpacked in the checkout); empty
/// when /proc/self/exe cannot be read.
inline std::filesystem::path program_checkout() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return exe.empty() ? std::filesystem::path() : exe.parent_path().parent_path().parent_path();
}

}  // namespace coalesce::tuner
