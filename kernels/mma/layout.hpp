// Where the mma kernel's bytes go: the shared-memory layout of an operand tile (swizzled or
// padded), how a block's threads split a tile's copies, and where each lane points its fragment
// reads. Plain constexpr arithmetic, device-safe and host-callable, so that
// tests/unit/kernels/mma/layout_test.cpp can replay every copy and every fragment read of a
// config on the CPU (coverage, bank conflicts, the values ldmatrix hands each lane) with the very
// functions kernels/mma/gemm.cuh calls.
#pragma once

#include "kernels/core/limits.hpp"

namespace coalesce::mma_layout {

/// An operand tile of ROWS rows of ROW_BYTES bytes in shared memory, addressed in 16-byte
/// chunks (the unit of a 16-byte cp.async and of an ldmatrix row). A warp's fragment read
/// touches 8 rows at one chunk position (ldmatrix: SPREAD 1) or 4 rows at two adjacent chunk
/// positions (tf32 B: SPREAD 2); either layout puts those 8 chunks in the 8 different 16-byte
/// bank groups of a 128-byte line, so each read is one shared-memory wavefront:
///   swizzled: 128-byte lines of 8 chunks (one row, or 128/ROW_BYTES rows), chunk position p of
///             line L stored at position p ^ ((L·SPREAD) % 8);
///   padded:   every row followed by 16·SPREAD bytes, so consecutive rows start 1 (SPREAD 2:
///             2) bank groups apart.
template <int ROWS, int ROW_BYTES, bool SWIZZLE, int SPREAD>
struct SmemTile {
  static constexpr int kChunks = ROW_BYTES / 16;
  static constexpr int kLineChunks = kChunks < 8 ? 8 : kChunks;
  static constexpr int kStride = ROW_BYTES + (SWIZZLE ? 0 : 16 * SPREAD);
  static constexpr int kBytes = ROWS * kStride;
  /// Rows after which the swizzle repeats (1 when padded): a shift by a multiple of it is a
  /// plain stride.
  static constexpr int kKeyPeriod = SWIZZLE ? (kLineChunks / kChunks) * 8 / SPREAD : 1;
  static_assert(ROW_BYTES % 16 == 0 && (kChunks >= 8 ? kChunks % 8 == 0 : 8 % kChunks == 0),
                "an operand row is a power-of-two number of 16-byte chunks");
  static_assert(SPREAD == 1 || SPREAD == 2, "a fragment read spans one or two chunk positions");

  /// Byte offset of byte `col` of row `row`.
  COALESCE_HD static constexpr int offset(int row, int col) {
    if (SWIZZLE) {
      const int chunk = row * kChunks + col / 16;
      return (chunk ^ (((chunk / kLineChunks) * SPREAD) & 7)) * 16 + col % 16;
    }
    return row * kStride + col;
  }
  /// offset(row + dr, col + dc) given base == offset(row, col). Preconditions (the kernel's
  /// shifts meet them; layout_test replays each one): dr is a multiple of kKeyPeriod, and the
  /// chunk position of `col` within its 128-byte line has no bit in common with (dc % 128) / 16,
  /// so that adding dc's chunks is XOR-ing them. The XOR comes first: base ^ (dc % 128) takes
  /// one register per distinct dc % 128 (at most 4 per operand, computed once), and the rest of
  /// the shift, a multiple of 128 bytes, is an instruction's immediate offset.
  COALESCE_HD static constexpr int shifted(int base, int dr, int dc) {
    if (SWIZZLE) return (base ^ (dc & 127)) + dr * kStride + (dc & ~127);
    return base + dr * kStride + dc;
  }
};

/// How a block's THREADS threads copy a ROWS × ROW_BYTES operand tile in VEC-byte pieces:
/// thread `tid` makes kCopies copies, copy i at (row0 + row_of(i), col0 + col_of(i)). With at
/// least as many threads as pieces per row, a thread keeps one column and steps down rows;
/// otherwise it takes every THREADS-th piece of a row (MmaConfig::splits() guarantees one of
/// the two divides the other).
template <int ROWS, int ROW_BYTES, int VEC, int THREADS>
struct CopyPlan {
  static constexpr int kPerRow = ROW_BYTES / VEC;
  static constexpr int kCopies = ROWS * kPerRow / THREADS;
  static constexpr bool kColumns = kPerRow <= THREADS;
  static_assert(kCopies * THREADS == ROWS * kPerRow && (kColumns ? THREADS % kPerRow : kPerRow % THREADS) == 0,
                "the copies split evenly over the threads (MmaConfig::splits)");
  COALESCE_HD static constexpr int row0(int tid) { return kColumns ? tid / kPerRow : 0; }
  COALESCE_HD static constexpr int col0(int tid) { return (kColumns ? tid % kPerRow : tid) * VEC; }
  COALESCE_HD static constexpr int row_of(int i) { return kColumns ? i * (THREADS / kPerRow) : i / (kPerRow / THREADS); }
  COALESCE_HD static constexpr int col_of(int i) { return kColumns ? 0 : (i % (kPerRow / THREADS)) * THREADS * VEC; }
};

/// Where lane `lane` points a fragment read, relative to its warp tile's first row and first
/// byte column in the operand tile, and how far each further read is shifted.
///
/// ldmatrix.x4 (A of every dtype; B of bf16/f16 with .trans): lanes 8i..8i+7 address the 8
/// rows of matrix i. A k-step of A is 16 rows × 32 bytes: matrices 0..3 are (rows 0-7, bytes
/// 0-15), (rows 8-15, bytes 0-15), (rows 0-7, bytes 16-31), (rows 8-15, bytes 16-31): lane l
/// addresses row l % 16, byte (l / 16)·16. A k-step of B (16-bit) for two 8-column tiles is
/// 16 k-rows × 32 bytes, the same pattern: matrices (k 0-7, cols 0-7), (k 8-15, cols 0-7),
/// (k 0-7, cols 8-15), (k 8-15, cols 8-15).
struct LdmatrixLanes {
  COALESCE_HD static constexpr int row(int lane) { return lane % 16; }
  COALESCE_HD static constexpr int col(int lane) { return (lane / 16) * 16; }
};
/// tf32 B, 32-bit loads: lane (g = lane/4, t = lane%4) reads k-rows t and t+4 of column g of an
/// 8-column tile.
struct Tf32BLanes {
  COALESCE_HD static constexpr int row(int lane) { return lane % 4; }
  COALESCE_HD static constexpr int col(int lane) { return (lane / 4) * 4; }
};

/// The epilogue's staging of one warp's accumulators, 16 rows (one row of mma tiles) at a time,
/// in rows of WN + 8 floats. Lane (g = lane/4, t = lane%4) writes accumulators c0c1 of 8-column
/// tile ni at (g, 8·ni + 2t) and c2c3 at (g + 8, 8·ni + 2t), 8 bytes each (the C fragment
/// layout of mma.m16n8k16 and m16n8k8); then lane l reads 4 adjacent floats at column
/// 4·(l % (WN/4)) of rows l / (WN/4), + 32/(WN/4), ... With the 8-float padding a half-warp's
/// 8-byte writes fall in 16 different bank pairs, and a quarter-warp's 16-byte reads cover one
/// contiguous 128-byte row piece (WN >= 32).
template <int WN>
struct StagedEpilogue {
  static constexpr int kStride = WN + 8;
  static constexpr int kLanesPerRow = WN / 4;
  static constexpr int kRowsPerPass = 32 / kLanesPerRow;
  static_assert(WN % 16 == 0 && WN <= 128, "a warp tile row is read by at most 32 lanes, 4 floats each");
  /// Float offset of accumulators 2h and 2h+1 of tile ni in the 16-row stage.
  COALESCE_HD static constexpr int fragment_offset(int lane, int ni, int h) {
    return (lane / 4 + 8 * h) * kStride + ni * 8 + 2 * (lane % 4);
  }
  COALESCE_HD static constexpr int read_row(int lane) { return lane / kLanesPerRow; }
  COALESCE_HD static constexpr int read_col(int lane) { return (lane % kLanesPerRow) * 4; }
};

}  // namespace coalesce::mma_layout
