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
/// chunks (the unit of a 16-byte cp.async and of an ldmatrix row). A fragment read's wavefront
/// touches 8 rows at one chunk position (an ldmatrix phase: SPREAD 1) or 4 rows at two adjacent
/// chunk positions, the first even (a half-warp's 8-byte loads of tf32 B: SPREAD 2); either
/// layout puts those 8 chunks in the 8 different 16-byte bank groups of a 128-byte line, so
/// each wavefront is conflict-free:
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
/// ldmatrix.x4 (A of bf16/f16; B of bf16/f16 with .trans): lanes 8i..8i+7 address the 8 rows
/// of matrix i. A k-step of A is 16 rows × 32 bytes: matrices 0..3 are (rows 0-7, bytes 0-15),
/// (rows 8-15, bytes 0-15), (rows 0-7, bytes 16-31), (rows 8-15, bytes 16-31): lane l addresses
/// row l % 16, byte (l / 16)·16. A k-step of B (16-bit) for two 8-column tiles is 16 k-rows ×
/// 32 bytes, the same pattern: matrices (k 0-7, cols 0-7), (k 8-15, cols 0-7), (k 0-7, cols
/// 8-15), (k 8-15, cols 8-15).
struct LdmatrixLanes {
  COALESCE_HD static constexpr int row(int lane) { return lane % 16; }
  COALESCE_HD static constexpr int col(int lane) { return (lane / 16) * 16; }
};

/// tf32 swaps the mma's operands (kernels/mma/gemm.cuh, MmaMath<Math::tf32>): each mma computes
/// D^T = B^T · A^T, a 16-column block of the warp tile by an 8-row block, so that B, whose 32-bit
/// elements ldmatrix cannot transpose, becomes the operand with the wide fragment.
///
/// The mma's B operand is A^T over 8 rows: b0 = A[g][t], b1 = A[g][t+4]. One ldmatrix.x4 over
/// 16 rows × 32 bytes hands a lane these pairs for both 8-row halves when its matrices are (rows
/// 0-7, bytes 0-15), (rows 0-7, bytes 16-31), (rows 8-15, bytes 0-15), (rows 8-15, bytes
/// 16-31): registers {0, 1} are the rows 0-7 pair and {2, 3} the rows 8-15 pair, each already
/// the consecutive register pair mma.sync takes. Lane l addresses row l % 8 + 8·(l / 16), byte
/// ((l / 8) % 2)·16; the phases read the same 8-row × 16-byte pieces as LdmatrixLanes.
struct Tf32ALanes {
  COALESCE_HD static constexpr int row(int lane) { return lane % 8 + 8 * (lane / 16); }
  COALESCE_HD static constexpr int col(int lane) { return ((lane / 8) % 2) * 16; }
};
/// The mma's A operand is B^T over a block of 16 columns whose order the operand permutes: its
/// row g is column 2g of the block and its row g+8 column 2g+1. Lane (g = lane/4, t = lane%4)
/// then finds a0, a1 (rows g, g+8 at k = t) side by side at column 2g of k-row t, and a2, a3 at
/// k-row t+4: two 8-byte loads per block and k-step, where the unswapped B operand took two
/// 32-bit loads per 8 columns.
struct Tf32BLanes {
  COALESCE_HD static constexpr int row(int lane) { return lane % 4; }
  COALESCE_HD static constexpr int col(int lane) { return (lane / 4) * 8; }
};
/// Which fragments an accumulator tile's mma takes under the swap. The accumulators keep the
/// shape [WM/16][WN/8] of the unswapped tiles so that the epilogue's 16-row pass mi finds all its
/// values in tile row mi: tile (mi, ni) is D^T of column block ni / 2 (its A operand: the
/// 8-byte loads b[ni / 2 * 2] of k-row t and b[ni / 2 * 2 + 1] of k-row t+4) by rows
/// 16·mi + 8·(ni % 2) (its B operand: registers 2·(ni % 2) and 2·(ni % 2) + 1 of a[mi]).
struct Tf32SwappedTiles {
  COALESCE_HD static constexpr int column_block(int ni) { return ni / 2; }
  COALESCE_HD static constexpr int row_half(int ni) { return ni % 2; }
};

/// The epilogue's staging of one warp's accumulators, 16 rows (one row of mma tiles) at a time,
/// in rows of kStride floats; then lane l reads 4 adjacent floats at column 4·(l % (WN/4)) of
/// rows l / (WN/4), + 32/(WN/4), ..., and a quarter-warp's 16-byte reads cover one contiguous
/// 128-byte row piece (WN >= 32). The writes are 8 bytes per lane, so a half-warp's must fall in
/// 16 different bank pairs:
///   unswapped (bf16/f16): lane (g = lane/4, t = lane%4) writes c0c1 of tile ni at
///     (g, 8·ni + 2t) and c2c3 at (g + 8, 8·ni + 2t), the C fragment layout of mma.m16n8k16.
///     Rows g = 0..3 of a half-warp must start 8 words apart mod 32: kStride = WN + 8.
///   SWAPPED (tf32, Tf32SwappedTiles): tile ni holds D^T, so c0 is C[8s + 2t][16p + 2g] (s =
///     ni % 2, p = ni / 2), c2 the next column and c1, c3 the row below; the lane writes c0c2 at
///     (8s + 2t, 16p + 2g) and c1c3 at (8s + 2t + 1, 16p + 2g). Rows 2t = 0, 2, 4, 6 of a
///     half-warp must start 8 words apart mod 32: kStride = WN + 4 (within the WN + 8 floats a
///     row that MmaConfig::epilogue_bytes() sizes).
template <int WN, bool SWAPPED = false>
struct StagedEpilogue {
  static constexpr int kStride = WN + (SWAPPED ? 4 : 8);
  static constexpr int kLanesPerRow = WN / 4;
  static constexpr int kRowsPerPass = 32 / kLanesPerRow;
  static_assert(WN % 16 == 0 && WN <= 128, "a warp tile row is read by at most 32 lanes, 4 floats each");
  /// Float offset of the pair `h` (0 or 1) of tile ni's accumulators in the 16-row stage.
  COALESCE_HD static constexpr int fragment_offset(int lane, int ni, int h) {
    if (SWAPPED)
      return (8 * Tf32SwappedTiles::row_half(ni) + 2 * (lane % 4) + h) * kStride + 16 * Tf32SwappedTiles::column_block(ni) +
             2 * (lane / 4);
    return (lane / 4 + 8 * h) * kStride + ni * 8 + 2 * (lane % 4);
  }
  /// Which accumulator (0..3) of the tile is element v (0 or 1) of pair h.
  COALESCE_HD static constexpr int value(int h, int v) { return SWAPPED ? h + 2 * v : 2 * h + v; }
  COALESCE_HD static constexpr int read_row(int lane) { return lane / kLanesPerRow; }
  COALESCE_HD static constexpr int read_col(int lane) { return (lane % kLanesPerRow) * 4; }
};

/// 3xTF32 (f32 on the mma family): one f32 operand, given as its bits `x`, split into `hi`, the
/// TF32 value nearest x (the 13 low mantissa bits rounded off, ties away from zero, as
/// cvt.rna.tf32.f32 rounds, in two integer instructions where the cvt takes three issue slots),
/// and `lo` = x - hi, which f32 holds exactly (|lo| <= 2^-11·|x| for a normal x, a multiple of
/// x's last bit).
/// hi has no bits below TF32's, so the tensor core reads it whole; it reads lo truncated to TF32,
/// an error of at most 2^-10·|lo| <= 2^-21·|x|. a·b is then hi_a·hi_b + hi_a·lo_b + lo_a·hi_b
/// up to that truncation and the dropped lo_a·lo_b (at most 2^-22·|a·b|): about 2^-20 of each
/// product at worst, below what f32 accumulation over K >= 16 adds (docs/kernels.md, "f32 as
/// 3xTF32").
/// A NaN stays NaN in lo (so in the sum); an infinity gives lo = NaN.
COALESCE_HD inline void split_tf32(unsigned x, unsigned& hi, unsigned& lo) {
  const unsigned h = (x + 0x1000u) & 0xFFFFE000u;
#ifdef __CUDA_ARCH__
  const float l = __uint_as_float(x) - __uint_as_float(h);
  lo = __float_as_uint(l);
#else
  float fx, fh;
  __builtin_memcpy(&fx, &x, 4);
  __builtin_memcpy(&fh, &h, 4);
  const float l = fx - fh;
  __builtin_memcpy(&lo, &l, 4);
#endif
  hi = h;
}

}  // namespace coalesce::mma_layout
