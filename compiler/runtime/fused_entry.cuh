// The host entry point of a tiled fused matmul, as coalesce-translate --mlir-to-cuda-host emits
// it beside the kernel: the extern "C" function coalesce-lower-to-library calls, launching the
// kernel its family defined with the geometry of the family's tile type, whatever the family:
// every tile type offers kThreads, kSmemBytes, grid_blocks(M, N), check_problem(M, N, K) and
// check_device(limits) (e.g. coalesce::SimtTile), and a split-K tile kSplit (absent: 1). nvcc only.
#pragma once

#include <type_traits>

#include "compiler/runtime/coalesce_runtime.h"
#include "kernels/core/limits.hpp"
#include "kernels/core/types.hpp"

namespace coalesce::runtime {

/// The K slices a tile type runs as (split-K, kernels/core/family.hpp kSplitParam): its kSplit,
/// or 1 for a tile type without one (a family that does not split K).
template <class Tile, class = void>
inline constexpr int split_of = 1;
template <class Tile>
inline constexpr int split_of<Tile, std::void_t<decltype(Tile::kSplit)>> = Tile::kSplit;

/// What the runtime needs to launch a kernel of a tile type: its geometry and rules.
struct LaunchContract {
  int threads;
  int smem_bytes;
  /// K slices, the grid's z extent. Above 1 the kernel stores f32 partial sums into a workspace
  /// passed as its C and a reduce applies the epilogue (launch_tiled_split_k).
  int split;
  long long (*grid_blocks)(int m, int n);
  Verdict (*check_problem)(int m, int n, int k);
  Verdict (*check_device)(const DeviceLimits& limits);
};

/// The contract of a tile type.
template <class Tile>
constexpr LaunchContract contract_of() {
  return {Tile::kThreads, Tile::kSmemBytes, split_of<Tile>, &Tile::grid_blocks, &Tile::check_problem,
          &Tile::check_device};
}

/// Checks the operands of C = epilogue(A B [+ bias]) (shapes, layout, alignment, the tile's
/// check_problem(M, N, K) and check_device on this GPU), then launches `kernel` with the tile's
/// geometry on the legacy default stream. `bias` is null for the empty epilogue. `entry` names
/// the entry point in error messages. The tile must not split K (launch_tiled_split_k does).
void launch_tiled(const void* kernel, const LaunchContract& tile, const char* entry,
                  const CoalesceMemRef2DF32* a, const CoalesceMemRef2DF32* b,
                  const CoalesceMemRef1DF32* bias, const CoalesceMemRef2DF32* c);

/// launch_tiled for a split-K tile (tile.split = S > 1), all on the legacy default stream:
/// allocates the S·M·N floats of partial sums stream-ordered (cudaMallocAsync from the device's
/// default pool, which keeps freed memory, so repeated calls recycle it), launches `kernel` with
/// grid z = S and the partials as its C, then the reduce that adds them in slice order, applies
/// `epilogue` (erf GELU) with `bias` and stores C once, then frees the partials (cudaFreeAsync).
void launch_tiled_split_k(const void* kernel, const LaunchContract& tile, Epilogue epilogue,
                          const char* entry, const CoalesceMemRef2DF32* a,
                          const CoalesceMemRef2DF32* b, const CoalesceMemRef1DF32* bias,
                          const CoalesceMemRef2DF32* c);

}  // namespace coalesce::runtime

/// `_mlir_ciface_ENTRY(A, B, bias, C)` launching the kernel KERNEL of tile type `...`.
#define COALESCE_DEFINE_FUSED_ENTRY(ENTRY, KERNEL, ...)                                          \
  extern "C" void _mlir_ciface_##ENTRY(const CoalesceMemRef2DF32* a, const CoalesceMemRef2DF32* b, \
                                       const CoalesceMemRef1DF32* bias,                          \
                                       const CoalesceMemRef2DF32* c) {                           \
    static_assert(::coalesce::runtime::split_of<__VA_ARGS__> == 1,                                \
                  "a split-K tile's entry is COALESCE_DEFINE_FUSED_SPLIT_K_ENTRY");               \
    ::coalesce::runtime::launch_tiled(reinterpret_cast<const void*>(&KERNEL),                     \
                                      ::coalesce::runtime::contract_of<__VA_ARGS__>(), #ENTRY, a, b, \
                                      bias, c);                                                    \
  }

/// `_mlir_ciface_ENTRY(A, B, C)` for the empty epilogue, which takes no bias.
#define COALESCE_DEFINE_FUSED_ENTRY_NO_BIAS(ENTRY, KERNEL, ...)                                  \
  extern "C" void _mlir_ciface_##ENTRY(const CoalesceMemRef2DF32* a, const CoalesceMemRef2DF32* b, \
                                       const CoalesceMemRef2DF32* c) {                           \
    static_assert(::coalesce::runtime::split_of<__VA_ARGS__> == 1,                                \
                  "a split-K tile's entry is COALESCE_DEFINE_FUSED_SPLIT_K_ENTRY_NO_BIAS");       \
    ::coalesce::runtime::launch_tiled(reinterpret_cast<const void*>(&KERNEL),                     \
                                      ::coalesce::runtime::contract_of<__VA_ARGS__>(), #ENTRY, a, b, \
                                      nullptr, c);                                                 \
  }

/// `_mlir_ciface_ENTRY(A, B, bias, C)` of a split-K tile (kSplit > 1): the kernel KERNEL writes
/// partial sums and the runtime's reduce applies EPILOGUE (a coalesce::Epilogue with a bias).
#define COALESCE_DEFINE_FUSED_SPLIT_K_ENTRY(ENTRY, KERNEL, EPILOGUE, ...)                        \
  extern "C" void _mlir_ciface_##ENTRY(const CoalesceMemRef2DF32* a, const CoalesceMemRef2DF32* b, \
                                       const CoalesceMemRef1DF32* bias,                          \
                                       const CoalesceMemRef2DF32* c) {                           \
    static_assert(::coalesce::runtime::split_of<__VA_ARGS__> > 1,                                 \
                  "an unsplit tile's entry is COALESCE_DEFINE_FUSED_ENTRY");                      \
    ::coalesce::runtime::launch_tiled_split_k(reinterpret_cast<const void*>(&KERNEL),             \
                                              ::coalesce::runtime::contract_of<__VA_ARGS__>(),    \
                                              EPILOGUE, #ENTRY, a, b, bias, c);                   \
  }

/// `_mlir_ciface_ENTRY(A, B, C)` of a split-K tile with the empty epilogue.
#define COALESCE_DEFINE_FUSED_SPLIT_K_ENTRY_NO_BIAS(ENTRY, KERNEL, ...)                          \
  extern "C" void _mlir_ciface_##ENTRY(const CoalesceMemRef2DF32* a, const CoalesceMemRef2DF32* b, \
                                       const CoalesceMemRef2DF32* c) {                           \
    static_assert(::coalesce::runtime::split_of<__VA_ARGS__> > 1,                                 \
                  "an unsplit tile's entry is COALESCE_DEFINE_FUSED_ENTRY_NO_BIAS");              \
    ::coalesce::runtime::launch_tiled_split_k(reinterpret_cast<const void*>(&KERNEL),             \
                                              ::coalesce::runtime::contract_of<__VA_ARGS__>(),    \
                                              ::coalesce::Epilogue::none, #ENTRY, a, b, nullptr, c); \
  }
