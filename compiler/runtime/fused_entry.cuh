// The host entry point of a tiled fused matmul, as coalesce-translate --mlir-to-cuda-host emits
// it beside the kernel: the extern "C" function coalesce-lower-to-library calls, launching the
// kernel its family defined with the geometry of the family's tile type, whatever the family:
// every tile type offers kThreads, kSmemBytes, grid_blocks(M, N), check_problem(M, N, K) and
// check_device(limits) (e.g. coalesce::SimtTile). nvcc only.
#pragma once

#include "compiler/runtime/coalesce_runtime.h"
#include "kernels/core/limits.hpp"

namespace coalesce::runtime {

/// What the runtime needs to launch a kernel of a tile type: its geometry and rules.
struct LaunchContract {
  int threads;
  int smem_bytes;
  long long (*grid_blocks)(int m, int n);
  Verdict (*check_problem)(int m, int n, int k);
  Verdict (*check_device)(const DeviceLimits& limits);
};

/// The contract of a tile type.
template <class Tile>
constexpr LaunchContract contract_of() {
  return {Tile::kThreads, Tile::kSmemBytes, &Tile::grid_blocks, &Tile::check_problem, &Tile::check_device};
}

/// Checks the operands of C = epilogue(A B [+ bias]) (shapes, layout, alignment, the tile's
/// check_problem(M, N, K) and check_device on this GPU), then launches `kernel` with the tile's
/// geometry on the legacy default stream. `bias` is null for the empty epilogue. `entry` names
/// the entry point in error messages.
void launch_tiled(const void* kernel, const LaunchContract& tile, const char* entry,
                  const CoalesceMemRef2DF32* a, const CoalesceMemRef2DF32* b,
                  const CoalesceMemRef1DF32* bias, const CoalesceMemRef2DF32* c);

}  // namespace coalesce::runtime

/// `_mlir_ciface_ENTRY(A, B, bias, C)` launching the kernel KERNEL of tile type `...`.
#define COALESCE_DEFINE_FUSED_ENTRY(ENTRY, KERNEL, ...)                                          \
  extern "C" void _mlir_ciface_##ENTRY(const CoalesceMemRef2DF32* a, const CoalesceMemRef2DF32* b, \
                                       const CoalesceMemRef1DF32* bias,                          \
                                       const CoalesceMemRef2DF32* c) {                           \
    ::coalesce::runtime::launch_tiled(reinterpret_cast<const void*>(&KERNEL),                     \
                                      ::coalesce::runtime::contract_of<__VA_ARGS__>(), #ENTRY, a, b, \
                                      bias, c);                                                    \
  }

/// `_mlir_ciface_ENTRY(A, B, C)` for the empty epilogue, which takes no bias.
#define COALESCE_DEFINE_FUSED_ENTRY_NO_BIAS(ENTRY, KERNEL, ...)                                  \
  extern "C" void _mlir_ciface_##ENTRY(const CoalesceMemRef2DF32* a, const CoalesceMemRef2DF32* b, \
                                       const CoalesceMemRef2DF32* c) {                           \
    ::coalesce::runtime::launch_tiled(reinterpret_cast<const void*>(&KERNEL),                     \
                                      ::coalesce::runtime::contract_of<__VA_ARGS__>(), #ENTRY, a, b, \
                                      nullptr, c);                                                 \
  }
