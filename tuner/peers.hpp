// `coalesce-tune sweep --peers`: after each problem of a sweep, the PyTorch and Triton peers
// (scripts/torch_peers.py) are timed on the same GPU in the same sitting and by the same timing
// protocol as the sweep's own rows, and stored in its database (docs/tuner.md, "Peers in the
// same sitting").
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "harness/timing_settings.hpp"
#include "kernels/core/problem.hpp"

namespace coalesce::tuner {

/// The peers `--peers-modes` chooses from, in the order they are measured: PyTorch eager,
/// torch.compile's default mode, torch.compile's max-autotune (without CUDA graphs, which would
/// time a replay rather than the kernels), and the Triton matmul with the fused epilogue.
inline const std::vector<std::string>& peer_modes() {
  static const std::vector<std::string> modes = {"torch_eager", "torch_compile", "torch_compile_max_autotune",
                                                 "triton"};
  return modes;
}

struct PeersOptions {
  bool enabled = false;
  /// Of peer_modes(); empty: every one.
  std::vector<std::string> modes;
  /// scripts/torch_peers.py; empty: found from the executable (find_peers_script).
  std::filesystem::path script;
  /// The interpreter the script runs under, and whose `import torch` decides whether it runs.
  std::string python = "python3";
};

/// The script of a checkout (program_checkout(), checkout.hpp): <checkout>/scripts/torch_peers.py,
/// if it exists.
std::optional<std::filesystem::path> find_peers_script(const std::filesystem::path& checkout);

/// What one invocation of the script is given: the database it records into, the tool it records
/// through, the problem, the device and the sweep's timing settings (so that its rows fall in the
/// sweep's protocol).
struct PeersCall {
  std::filesystem::path db, tune;
  Problem problem;
  int device = 0;
  TimingSettings timing;
};

/// The command lines (argv, interpreter first) that measure `modes` (empty: all) for `call`: one
/// for eager, torch.compile's default mode and Triton, one more for max-autotune (the script
/// takes one compile mode per run).
std::vector<std::vector<std::string>> peers_commands(const PeersOptions& options, const PeersCall& call);

/// Why `python` cannot import torch ("No module named 'torch'", the last line it said), or
/// nullopt when it can.
std::optional<std::string> torch_unavailable(const std::string& python);

/// Runs `argv` with this process's stdout and stderr; returns its exit status (128 + signal when
/// killed, 127 when it could not start).
int run_and_wait(const std::vector<std::string>& argv);

}  // namespace coalesce::tuner
