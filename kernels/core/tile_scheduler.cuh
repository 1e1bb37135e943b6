// Tile schedulers: which output tile a block computes (CUTLASS 3's TileScheduler layer). Shared
// by every family; device-safe under nvcc and NVRTC.
#pragma once

namespace coalesce {

/// An output tile's coordinates in tiles (row, column).
struct TileCoord {
  int m, n;
};

/// Grouped rasterization (Triton's "grouped ordering") of a 1-D grid over a tiles_m × tiles_n
/// grid of tiles: GROUP_M tile rows are walked column by column, so blocks resident together
/// share rows of A and columns of B in L2. Block `pid` gets the returned tile.
template <int GROUP_M>
__device__ __forceinline__ TileCoord grouped_tile(int pid, int tiles_m, int tiles_n) {
  const int group_size = GROUP_M * tiles_n;
  const int first_m = (pid / group_size) * GROUP_M;
  const int rows_in_group = min(tiles_m - first_m, GROUP_M);
  return {first_m + (pid % group_size) % rows_in_group, (pid % group_size) / rows_in_group};
}

}  // namespace coalesce
