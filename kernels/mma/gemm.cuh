// The `mma` family: GEMM on the tensor cores through mma.sync (sm_80 and later) with a fused
// epilogue,
//   C[m][n] = Epi(sum_k A[m][k] * B[k][n], bias[n])      A: M×K, B: K×N, C: M×N, row-major,
// for bf16 and f16 (mma.m16n8k16, f32 accumulation) and tf32 (mma.m16n8k8 on f32 storage, the
// f32 operand bits handed to the tensor core as they are: it reads their top 19 bits, i.e.
// truncates them to TF32, as Triton's TF32 dot does), and f32 as 3xTF32 (tf32's instruction and
// layout three times per product on each value's TF32 part and remainder, f32's accuracy;
// MmaMath<Math::f32>).
//
// One block computes a BM×BN tile of C; each warp a WM×WN warp tile as (WM/16)×(WN/8) mma
// tiles whose accumulators stay in registers. K is walked in slices of BK_BYTES bytes per row of
// A through a STAGES-deep shared-memory ring filled with 16-byte (or narrower) cp.async, so the
// copy of slice k+STAGES-1 overlaps the arithmetic on slice k. Fragments are read from shared
// memory with ldmatrix (A for every dtype, B with .trans for bf16/f16; tf32 B with 8-byte
// loads, below) one 32-byte k-step ahead of the mma that uses them. A ([BM][BK]) and B ([BK][BN]) keep
// their global row-major layout in shared memory, either XOR-swizzled or padded (the `swizzle`
// knob) so that no fragment read or copy has a bank conflict. Edges are predicated: a copy past
// the matrix reads nothing and zero-fills (cp.async src-size 0), and stores are guarded, so any
// M, N, K that MmaConfig::check_problem() accepts works.
//
// Layered as CUTLASS 3's GemmUniversal: the tile scheduler picks the block's output tile
// (kernels/core/tile_scheduler.cuh), MmaMainloop accumulates it in registers, mma_store_tile
// applies the fused epilogue (kernels/core/epilogue.cuh) and stores C once, rounding once.
// Split-K (split > 1): block z of the grid walks only its share of the K slices and stores its
// raw f32 sums into the partials workspace; the harness's reduce applies the epilogue.
//
// Fragment layouts (PTX ISA, "Matrix Fragments for mma.m16n8k16" / "mma.m16n8k8"), with lane =
// 4·g + t (g = groupID, t = threadID_in_group):
//   bf16/f16 A (16×16): reg0 (g, 2t..2t+1), reg1 (g+8, 2t..), reg2 (g, 2t+8..), reg3 (g+8, 2t+8..)
//   bf16/f16 B (16×8):  reg0 (k = 2t..2t+1, n = g), reg1 (k = 2t+8.., n = g)
//   tf32 A (16×8):      reg0 (g, t), reg1 (g+8, t), reg2 (g, t+4), reg3 (g+8, t+4)
//   tf32 B (8×8):       reg0 (k = t, n = g), reg1 (k = t+4, n = g)
//   C (16×8, f32):      c0, c1 (g, 2t..2t+1), c2, c3 (g+8, 2t..2t+1)
// ldmatrix.x4 hands lane l row l/4, bytes 4·(l%4)..+3 of each of four 8-row × 16-byte matrices,
// whose row addresses lanes 8i..8i+7 supply: for bf16/f16 A that is exactly reg0..reg3 above;
// .trans hands lane l the 16-bit elements (2·(l%4), l/4) and (2·(l%4)+1, l/4), exactly a B
// register of bf16/f16.
//
// tf32 swaps the operands, because ldmatrix cannot transpose 32-bit elements and B is K×N with N
// contiguous: each mma computes D^T = B^T · A^T, a 16-column block of C's warp tile by an 8-row
// block. Its A operand is B^T with the block's 16 columns permuted (operand row g is column 2g,
// row g+8 column 2g+1), so a0a1 and a2a3 are two adjacent f32 of B each, one 8-byte load per
// pair; its B operand is A^T, which an ldmatrix of A hands over untransposed (a tf32 value is the
// 4 bytes ldmatrix moves as two b16). Unswapped, B took two 32-bit loads per 8 columns; swapped it
// takes two 8-byte loads per 16, and every loaded register pair is already the consecutive pair
// the mma instruction reads, so the main loop needs no register moves (mma_layout::Tf32ALanes,
// Tf32BLanes, Tf32SwappedTiles; the epilogue stages D^T back to C, StagedEpilogue).
//
// Device-safe: compiles under nvcc and NVRTC (no standard headers).
#pragma once

#include "kernels/core/epilogue.cuh"
#include "kernels/core/numeric.cuh"
#include "kernels/core/tile_scheduler.cuh"
#include "kernels/mma/config.hpp"
#include "kernels/mma/layout.hpp"

namespace coalesce {

/// An mma config as a type, so the kernel is specialized on every tile parameter. Offers the
/// launch contract every family's tile type offers (threads, shared memory, grid, rules), which
/// the runtime's host entries use (compiler/runtime/fused_entry.cuh).
template <int BM, int BN, int BK_BYTES, int WM, int WN, int STAGES, int VEC_BYTES, int SWIZZLE, int GROUP_M,
          int MIN_BLOCKS, int SPLIT = 1>
struct MmaTile {
  static constexpr MmaConfig config{BM, BN, BK_BYTES, WM, WN, STAGES, VEC_BYTES, SWIZZLE, GROUP_M, MIN_BLOCKS, SPLIT};
  static constexpr int kThreads = config.threads();
  static constexpr int kSmemBytes = config.smem_bytes();
  /// Blocks of the grid's x dimension (the kernel rasterizes them itself; a split config has
  /// gridDim.z of them). Host-side, like the rules below.
  static constexpr long long grid_blocks(int m, int n) {
    return static_cast<long long>((m + BM - 1) / BM) * ((n + BN - 1) / BN);
  }
  static constexpr Verdict check_problem(int m, int n, int k, Dtype dtype) {
    return config.check_problem(m, n, k, dtype);
  }
  /// The launch contract's form: the runtime's host entries take f32 memrefs, a problem the
  /// family refuses (Violation::dtype), so an mma tile is never launched through them.
  static constexpr Verdict check_problem(int m, int n, int k) { return config.check_problem(m, n, k, Dtype::f32); }
  static constexpr Verdict check_device(const DeviceLimits& limits) { return config.check(limits); }
};

namespace mma_detail {

__device__ __forceinline__ unsigned smem_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

/// cp.async of BYTES (4, 8 or 16) from global to shared memory; when `pred` is false nothing is
/// read and the destination is zero-filled (src-size 0), which is how edges are predicated.
/// BYTES == 2 is one 16-bit element, for rows of an odd number of bf16/f16 (issue 39): cp.async
/// copies only 4, 8 or 16 bytes from addresses aligned to the size, which such rows do not give,
/// so the element is read with a plain load (zero when `pred` is false) and stored to shared
/// memory at once. The ring's order still holds: the store lands before the barrier that
/// precedes the stage's first read, and the stage it overwrites was last read before the barrier
/// that precedes the copy (MmaMainloop::run); the cp.async waits then wait on empty groups.
template <int BYTES>
__device__ __forceinline__ void cp_async(unsigned dst, const void* src, bool pred) {
  if constexpr (BYTES == 2) {
    unsigned short v = 0;
    if (pred) v = __ldg(reinterpret_cast<const unsigned short*>(src));
    asm volatile("st.shared.u16 [%0], %1;\n" ::"r"(dst), "h"(v) : "memory");
  } else if constexpr (BYTES == 16) {
    // .cg: bypass L1, a tile is read once per block from L2.
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(pred ? 16 : 0));
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(dst), "l"(src), "n"(BYTES),
                 "r"(pred ? BYTES : 0));
  }
}
/// p + bytes through an add the compiler cannot see into, so it cannot rewrite a chain of them
/// as loop-invariant offsets to hoist (MmaMainloop::run's copies).
__device__ __forceinline__ const char* advance(const char* p, long long bytes) {
  const char* r;
  asm("add.s64 %0, %1, %2;\n" : "=l"(r) : "l"(p), "l"(bytes));
  return r;
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

// The shared-memory reads are volatile: the compiler must not move them across the cp.async
// waits and barriers that order them, nor merge two reads of one address in different slices.
__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
__device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&r)[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
__device__ __forceinline__ void ld_shared_v2_b32(unsigned (&r)[2], unsigned addr) {
  asm volatile("ld.shared.v2.b32 {%0, %1}, [%2];\n" : "=r"(r[0]), "=r"(r[1]) : "r"(addr));
}

/// The tensor-core instruction of a math mode, how its fragments are read and which of them an
/// accumulator tile's mma takes. Dispatch tag: a math mode without a specialization fails to
/// compile with a sentence.
template <Math M>
struct MmaMath {
  static_assert(M == Math::bf16 || M == Math::f16 || M == Math::tf32 || M == Math::f32,
                "the mma family computes bf16, f16, tf32 and f32 (as 3xTF32) on tensor cores");
};

/// bf16/f16: mma.m16n8k16; B (k-rows of 16-bit elements) read with ldmatrix.trans, two 8-column
/// tiles per instruction.
template <Math M>
struct MmaMath16 {
  /// Fragment parts per operand value: 1 (the value itself); 2 for 3xTF32's hi and lo.
  static constexpr int kParts = 1;
  static constexpr int kBSpread = 1;
  static constexpr bool kSwapped = false;
  using ALanes = mma_layout::LdmatrixLanes;
  using BLanes = mma_layout::LdmatrixLanes;
  /// Reads the B fragments of one k-step (16 k-rows, ks·16 rows into the slice) for NI 8-column
  /// tiles, two per ldmatrix; `lane_off` is BTile's offset of the lane's BLanes position.
  template <class BTile, int NI>
  __device__ __forceinline__ static void load_b(unsigned (&b)[NI][2], unsigned b_stage, int ks, int lane_off) {
#pragma unroll
    for (int p = 0; p < NI / 2; ++p) {
      unsigned r[4];
      ldmatrix_x4_trans(r, b_stage + BTile::shifted(lane_off, ks * 16, p * 32));
      b[2 * p][0] = r[0];      // k 0..7 of columns 0..7
      b[2 * p][1] = r[1];      // k 8..15 of columns 0..7
      b[2 * p + 1][0] = r[2];  // k 0..7 of columns 8..15
      b[2 * p + 1][1] = r[3];  // k 8..15 of columns 8..15
    }
  }
  __device__ __forceinline__ static unsigned a_value(unsigned r) { return r; }
  /// The j-th accumulator tile of tile row mi in issue order: serpentine, so that consecutive
  /// mma share an A or a B fragment.
  template <int NI>
  __device__ __forceinline__ static constexpr int tile_at(int mi, int j) { return mi % 2 ? NI - 1 - j : j; }
  template <int MI, int NI>
  __device__ __forceinline__ static void mma_tile(float (&d)[4], const unsigned (&a)[1][MI][4],
                                                  const unsigned (&b)[1][NI][2], int mi, int ni) {
    mma(d, a[0][mi], b[0][ni]);
  }
  __device__ __forceinline__ static void mma(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]);
};
template <>
__device__ __forceinline__ void MmaMath16<Math::bf16>::mma(float (&d)[4], const unsigned (&a)[4],
                                                           const unsigned (&b)[2]) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
template <>
__device__ __forceinline__ void MmaMath16<Math::f16>::mma(float (&d)[4], const unsigned (&a)[4],
                                                          const unsigned (&b)[2]) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
template <> struct MmaMath<Math::bf16> : MmaMath16<Math::bf16> {};
template <> struct MmaMath<Math::f16> : MmaMath16<Math::f16> {};

/// tf32: mma.m16n8k8 on f32 storage, operands swapped (the top-of-file comment): accumulator
/// tile (mi, ni) is D^T of B's 16-column block ni / 2 by A's rows 16·mi + 8·(ni % 2)
/// (mma_layout::Tf32SwappedTiles). Per k-step and 16 columns a lane loads two 8-byte pairs of B,
/// each pair half of the mma's A operand; the ldmatrix of A hands it the B operands of two 8-row
/// blocks. Since the four registers of an A operand and the two of a B operand are each one
/// load's consecutive destinations, ptxas needs no moves to assemble them (a first try with
/// 16-byte loads of one k-row across four 8-column tiles put the values in the wrong registers
/// and was 6% slower for the moves: run BD, docs/results.md).
/// Operands go to the tensor core as f32 bits, which it truncates to TF32 (the low 13 bits are
/// ignored). Rounding each one with cvt.rna.tf32.f32 first was measured on the H200 (run B,
/// 24 random configs at 4096³): 0.806 ms at best, 46% of cuBLAS TF32, with three issue slots per
/// cvt in a loop of 314 instructions per 64 HMMA. Truncation's error (up to 2 units of TF32's
/// roundoff per operand, against 1 for rounding) is within the tf32 tolerance
/// (harness/check.hpp), which allows for it.
template <>
struct MmaMath<Math::tf32> {
  static constexpr int kParts = 1;
  static constexpr int kBSpread = 2;
  static constexpr bool kSwapped = true;
  using ALanes = mma_layout::Tf32ALanes;
  using BLanes = mma_layout::Tf32BLanes;
  using Tiles = mma_layout::Tf32SwappedTiles;
  /// Reads the B fragments of one k-step (8 k-rows, ks·8 rows into the slice) for NI/2 16-column
  /// blocks: b[2p] is k-row t, b[2p+1] k-row t+4 of block p; `lane_off` is BTile's offset of the
  /// lane's BLanes position.
  template <class BTile, int NI>
  __device__ __forceinline__ static void load_b(unsigned (&b)[NI][2], unsigned b_stage, int ks, int lane_off) {
#pragma unroll
    for (int p = 0; p < NI / 2; ++p) {
      ld_shared_v2_b32(b[2 * p], b_stage + BTile::shifted(lane_off, ks * 8, p * 64));
      ld_shared_v2_b32(b[2 * p + 1], b_stage + BTile::shifted(lane_off, ks * 8 + 4, p * 64));
    }
  }
  __device__ __forceinline__ static unsigned a_value(unsigned r) { return r; }
  /// Issue order: tiles 2p and 2p+1 share B's block p, so each pair is issued together, in
  /// alternating order (0, 1, 3, 2, 4, 5, ...) so that the step from one pair to the next shares
  /// A's rows; odd tile rows run backwards, so the step between rows shares B's block.
  template <int NI>
  __device__ __forceinline__ static constexpr int tile_at(int mi, int j) {
    const int s = mi % 2 ? NI - 1 - j : j;
    return s ^ ((s / 2) % 2);
  }
  /// The operands in PTX order: a0a1 = B^T pair of k-row t, a2a3 of k-row t+4, b0b1 = A^T pair
  /// of the tile's 8 rows (layout_test's product replay passes the same registers).
  template <int MI, int NI>
  __device__ __forceinline__ static void mma_tile(float (&d)[4], const unsigned (&a)[1][MI][4],
                                                  const unsigned (&b)[1][NI][2], int mi, int ni) {
    const int p = 2 * Tiles::column_block(ni), h = 2 * Tiles::row_half(ni);
    mma(d, b[0][p], b[0][p + 1], a[0][mi][h], a[0][mi][h + 1]);
  }
  /// One mma.m16n8k8: PTX's A operand the B^T pairs of k-rows t and t+4, its B operand the A^T pair.
  __device__ __forceinline__ static void mma(float (&d)[4], const unsigned (&bt_lo)[2], const unsigned (&bt_hi)[2],
                                             unsigned at0, unsigned at1) {
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(bt_lo[0]), "r"(bt_lo[1]), "r"(bt_hi[0]), "r"(bt_hi[1]), "r"(at0), "r"(at1));
  }
};

/// f32 as 3xTF32 (CUTLASS's name for it): f32 storage and f32 accuracy on the TF32 tensor
/// cores. Every operand value x is split once, as it is loaded, into hi = TF32(x) and lo = x - hi
/// (mma_layout::split_tf32), and every product is three mma.m16n8k8 into the K slice's own sums,
/// the two small ones first: lo_b·hi_a, hi_b·lo_a, then hi_b·hi_a (mma_tile). tf32's layout
/// (swapped operands, the same loads) throughout; the lo parts and the slice's sums take
/// registers of their own (MmaConfig::model_registers_3xtf32, check_problem's f32 rule), and
/// each k-step 3 integer or FP instructions an operand value beside three times tf32's mma, each
/// slice 4 FADDs a tile.
template <>
struct MmaMath<Math::f32> : MmaMath<Math::tf32> {
  static constexpr int kParts = 2;
  /// Splits the freshly loaded values of part 0 into hi (left in part 0) and lo (part 1).
  template <int MI, int NI>
  __device__ __forceinline__ static void split(unsigned (&a)[2][MI][4], unsigned (&b)[2][NI][2]) {
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
      for (int r = 0; r < 4; ++r) mma_layout::split_tf32(a[0][mi][r], a[0][mi][r], a[1][mi][r]);
#pragma unroll
    for (int ni = 0; ni < NI; ++ni)
#pragma unroll
      for (int r = 0; r < 2; ++r) mma_layout::split_tf32(b[0][ni][r], b[0][ni][r], b[1][ni][r]);
  }
  /// The three products of one k-step added into the slice's own sum t (FROM_ZERO: t is the
  /// first k-step's, and the first mma adds to zero); the mainloop adds t into the accumulators
  /// with FADDs once per K slice. Accumulating all of K in the tensor core instead (d += each
  /// product, as tf32 does) lost f32's accuracy to the tensor core's own additions: 2.7e-5
  /// normwise at K = 4096 against f32's tolerance of 1.45e-5 (run LP, docs/kernels.md
  /// "f32 as 3xTF32"); a slice's sum is a few k-steps long, and the FADDs round to nearest.
  template <int MI, int NI, bool FROM_ZERO>
  __device__ __forceinline__ static void products(float (&t)[4], const unsigned (&a)[2][MI][4],
                                                  const unsigned (&b)[2][NI][2], int mi, int ni) {
    const int p = 2 * Tiles::column_block(ni), h = 2 * Tiles::row_half(ni);
    if constexpr (FROM_ZERO)
      mma_from_zero(t, b[1][p], b[1][p + 1], a[0][mi][h], a[0][mi][h + 1]);  // lo_b · hi_a
    else
      mma(t, b[1][p], b[1][p + 1], a[0][mi][h], a[0][mi][h + 1]);
    mma(t, b[0][p], b[0][p + 1], a[1][mi][h], a[1][mi][h + 1]);  // + hi_b · lo_a
    mma(t, b[0][p], b[0][p + 1], a[0][mi][h], a[0][mi][h + 1]);  // + hi_b · hi_a
  }
  /// t = the product alone (the accumulator operand is zero).
  __device__ __forceinline__ static void mma_from_zero(float (&t)[4], const unsigned (&bt_lo)[2],
                                                       const unsigned (&bt_hi)[2], unsigned at0, unsigned at1) {
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%10, %10, %10, %10};\n"
        : "=f"(t[0]), "=f"(t[1]), "=f"(t[2]), "=f"(t[3])
        : "r"(bt_lo[0]), "r"(bt_lo[1]), "r"(bt_hi[0]), "r"(bt_hi[1]), "r"(at0), "r"(at1), "f"(0.0f));
  }
};

/// Four adjacent values of C stored at once: 8 bytes of bf16/f16 or 16 bytes of f32 (`p` is
/// aligned: its column and N are multiples of 4).
__device__ __forceinline__ unsigned pack(bf16_t lo, bf16_t hi) {
  return static_cast<unsigned>(lo.bits) | (static_cast<unsigned>(hi.bits) << 16);
}
__device__ __forceinline__ unsigned pack(f16_t lo, f16_t hi) {
  return static_cast<unsigned>(lo.bits) | (static_cast<unsigned>(hi.bits) << 16);
}
template <class T>
__device__ __forceinline__ void store4(T* p, const float (&v)[4]) {
  *reinterpret_cast<uint2*>(p) = make_uint2(pack(from_float<T>(v[0]), from_float<T>(v[1])),
                                            pack(from_float<T>(v[2]), from_float<T>(v[3])));
}
__device__ __forceinline__ void store4(float* p, const float (&v)[4]) {
  *reinterpret_cast<float4*>(p) = make_float4(v[0], v[1], v[2], v[3]);
}
template <class T>
__device__ __forceinline__ void store2(T* p, float v0, float v1) {
  *reinterpret_cast<unsigned*>(p) = pack(from_float<T>(v0), from_float<T>(v1));
}
__device__ __forceinline__ void store2(float* p, float v0, float v1) {
  *reinterpret_cast<float2*>(p) = make_float2(v0, v1);
}

/// The messaged compile-time guard: every category of MmaConfig::check() gets its sentence.
template <class Tile>
struct MmaGuard {
  static constexpr Violation kViolation = Tile::config.check().violation;
  static_assert(kViolation != Violation::shape,
                "mma config: tile sides must be powers of two with BN >= 64, bk_bytes 64/128/256, stages 2..8, "
                "vec_bytes 2/4/8/16, swizzle 0/1, group_m >= 1, min_blocks 1..8, split 1..32");
  static_assert(kViolation != Violation::divisibility,
                "mma config: WM and WN must be multiples of 16 and the warp tile must divide the block tile");
  static_assert(kViolation != Violation::threads,
                "mma config: at most 32 warps, and the threads must split the A and B tiles into equal copies");
  static constexpr bool ok = kViolation == Violation::none;
};

/// A kernel's types: the tile, the GEMM's storage and math types (GemmOf<Dtype>), the epilogue.
template <class Tile, class Gemm, class Epi>
struct MmaKernelOf {
  static_assert(MmaGuard<Tile>::ok, "invalid mma config");
  using A = typename Gemm::A;
  using B = typename Gemm::B;
  using Bias = typename Gemm::Bias;
  using C = typename Gemm::C;
  static constexpr int kThreads = Tile::config.threads();
  static constexpr int kMinBlocks = Tile::config.min_blocks;
};

}  // namespace mma_detail

/// The mainloop: acc += A[m0.., k] · B[k, n0..] for one warp's WM×WN tile, walking the BK_BYTES
/// slices kt_begin <= kt < kt_end of K (all of K, or split-K's share) through a STAGES-deep
/// cp.async ring at `smem`.
template <class Tile, class Gemm>
struct MmaMainloop {
  static constexpr MmaConfig cfg = Tile::config;
  using Math = mma_detail::MmaMath<Gemm::math>;
  static constexpr int kElem = element_bytes(Gemm::types.a);  // 2 (bf16/f16) or 4 (tf32 on f32)
  static constexpr int BM = cfg.bm, BN = cfg.bn, BK = cfg.bk_bytes, WM = cfg.wm, WN = cfg.wn;
  static constexpr int STAGES = cfg.stages, VEC = cfg.vec_bytes, THREADS = cfg.threads();
  static constexpr int MI = WM / 16, NI = WN / 8, KS = cfg.k_steps();
  static constexpr int B_ROWS = BK / kElem;  // k-rows of B per slice
  static constexpr int B_STEP_ROWS = MmaConfig::kStepBytes / kElem;  // k-rows of B per k-step
  using ATile = mma_layout::SmemTile<BM, BK, cfg.swizzle != 0, 1>;
  using BTile = mma_layout::SmemTile<B_ROWS, BN * kElem, cfg.swizzle != 0, Math::kBSpread>;
  using ACopy = mma_layout::CopyPlan<BM, BK, VEC, THREADS>;
  using BCopy = mma_layout::CopyPlan<B_ROWS, BN * kElem, VEC, THREADS>;
  static constexpr int kStageBytes = ATile::kBytes + BTile::kBytes;
  static_assert(kStageBytes == cfg.stage_bytes(), "the layout's stage size is MmaConfig::stage_bytes()");
  static_assert(KS >= 2 && KS % 2 == 0,
                "the pipeline waits for the next slice during the last k-step of the current one, and the two "
                "fragment sets alternate so that every slice starts on the first");
  static_assert(16 % ATile::kKeyPeriod == 0 && B_STEP_ROWS % BTile::kKeyPeriod == 0,
                "fragment reads 16 rows of A or one k-step of B apart see the same swizzle");

  /// One k-step's fragments: part 0 the loaded values, part 1 3xTF32's lo parts (Math::kParts).
  static constexpr int kParts = Math::kParts;
  using Frags = unsigned[kParts][MI][4];
  using BFrags = unsigned[kParts][NI][2];

  __device__ __forceinline__ static void run(const typename Gemm::A* __restrict__ A,
                                             const typename Gemm::B* __restrict__ B, int M, int N, int K, int m0,
                                             int n0, int kt_begin, int kt_end, unsigned char* smem,
                                             float (&acc)[MI][NI][4]) {
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int warp_m = warp / (BN / WN), warp_n = warp % (BN / WN);
    const unsigned smem_base = mma_detail::smem_address(smem);

    // Copies. A thread's copies start from bases and predicates computed here (the simt kernel
    // lost ~10% of its issue slots recomputing them per copy). Row offsets in global memory are
    // 64-bit (a slice of B can sit past 2^31 bytes into B); a copy outside the matrix has
    // src-size 0 (a 2-byte copy: no load), so its address is never read. vec_bytes divides
    // every row (check_problem), so a copy is wholly inside or wholly past a row's end. The first slice copied is kt_begin:
    // its bytes of a row of A and its k-rows of B start k_bytes and k_rows in.
    const int a_row_bytes = K * kElem, b_row_bytes = N * kElem;
    const int k_bytes = kt_begin * BK, k_rows = kt_begin * B_ROWS;
    const int a_r0 = ACopy::row0(tid), a_c0 = ACopy::col0(tid);
    const int b_r0 = BCopy::row0(tid), b_c0 = BCopy::col0(tid);
    const char* a_src =
        reinterpret_cast<const char*>(A) + static_cast<long long>(m0 + a_r0) * a_row_bytes + k_bytes + a_c0;
    const char* b_src = reinterpret_cast<const char*>(B) + static_cast<long long>(k_rows + b_r0) * b_row_bytes +
                        static_cast<long long>(n0) * kElem + b_c0;
    const int a_rows_left = M - m0 - a_r0;
    const int b_cols_left = b_row_bytes - n0 * kElem - b_c0;
    int a_cols_left = a_row_bytes - k_bytes - a_c0;  // of the next slice to copy
    int b_rows_left = K - k_rows - b_r0;
    const int a_dst = ATile::offset(a_r0, a_c0);
    const int b_dst = BTile::offset(b_r0, b_c0);

    // A thread walks its copies of a slice with one pointer per operand, stepping from copy to
    // copy through an opaque add (mma_detail::advance): written as base + i*step, the compiler
    // hoisted one 64-bit address per copy out of the K loop, and ptxas spilled every config
    // with more than about 16 copies per thread. A copy's shared-memory shift is a multiple of
    // 128 bytes along the row (col_of), so it keeps the swizzle whenever its row shift does;
    // otherwise its offset is computed afresh (both fold to constants once unrolled).
    auto load_slice = [&](unsigned stage) {
      const char* a_ptr = a_src;
#pragma unroll
      for (int i = 0; i < ACopy::kCopies; ++i) {
        const int dr = ACopy::row_of(i), dc = ACopy::col_of(i);
        if (i > 0)
          a_ptr = mma_detail::advance(a_ptr, static_cast<long long>(dr - ACopy::row_of(i - 1)) * a_row_bytes +
                                                 (dc - ACopy::col_of(i - 1)));
        const int dst = dr % ATile::kKeyPeriod == 0 ? ATile::shifted(a_dst, dr, dc) : ATile::offset(a_r0 + dr, a_c0 + dc);
        mma_detail::cp_async<VEC>(stage + dst, a_ptr, dr < a_rows_left && dc < a_cols_left);
      }
      const char* b_ptr = b_src;
#pragma unroll
      for (int i = 0; i < BCopy::kCopies; ++i) {
        const int dr = BCopy::row_of(i), dc = BCopy::col_of(i);
        if (i > 0)
          b_ptr = mma_detail::advance(b_ptr, static_cast<long long>(dr - BCopy::row_of(i - 1)) * b_row_bytes +
                                                 (dc - BCopy::col_of(i - 1)));
        const int dst = dr % BTile::kKeyPeriod == 0 ? BTile::shifted(b_dst, dr, dc) : BTile::offset(b_r0 + dr, b_c0 + dc);
        mma_detail::cp_async<VEC>(stage + ATile::kBytes + dst, b_ptr, dr < b_rows_left && dc < b_cols_left);
      }
      a_src += BK;
      a_cols_left -= BK;
      b_src += static_cast<long long>(B_ROWS) * b_row_bytes;
      b_rows_left -= B_ROWS;
    };

    // Fragment reads (mma_layout::LdmatrixLanes; tf32: Tf32ALanes, Tf32BLanes): each lane's
    // offset in the warp's tiles is computed once; every read is a shift of it (SmemTile::shifted).
    const int a_lane_off = ATile::offset(warp_m * WM + Math::ALanes::row(lane), Math::ALanes::col(lane));
    const int b_lane_off =
        BTile::offset(Math::BLanes::row(lane), warp_n * WN * kElem + Math::BLanes::col(lane));

    auto load_fragments = [&](Frags& a, BFrags& b, unsigned stage, int ks) {
#pragma unroll
      for (int mi = 0; mi < MI; ++mi) {
        mma_detail::ldmatrix_x4(a[0][mi], stage + ATile::shifted(a_lane_off, mi * 16, ks * MmaConfig::kStepBytes));
#pragma unroll
        for (int r = 0; r < 4; ++r) a[0][mi][r] = Math::a_value(a[0][mi][r]);
      }
      Math::template load_b<BTile, NI>(b[0], stage + ATile::kBytes, ks, b_lane_off);
      if constexpr (kParts == 2) Math::template split<MI, NI>(a, b);
    };

    // kt counts the block's slices from 0 (load_slice walks on from kt_begin).
    const int k_slices = kt_end - kt_begin;
    // Prologue: STAGES-1 slices in flight. Every slice step commits exactly one group (possibly
    // empty), so "at most STAGES-2 groups pending" always means "the next slice has landed".
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
      if (s < k_slices) load_slice(smem_base + s * kStageBytes);
      mma_detail::cp_async_commit();
    }
    mma_detail::cp_async_wait<STAGES - 2>();
    __syncthreads();

    Frags a_frag[2];
    BFrags b_frag[2];
    unsigned read_stage = smem_base, write_stage = smem_base + (STAGES - 1) * kStageBytes;
    const unsigned ring_end = smem_base + STAGES * kStageBytes;
    load_fragments(a_frag[0], b_frag[0], read_stage, 0);

    // 3xTF32 (kParts == 2): the K slice's own sums, added into acc at its last k-step.
    float slice_sum[kParts == 2 ? MI : 1][kParts == 2 ? NI : 1][4];
    for (int kt = 0; kt < k_slices; ++kt) {
#pragma unroll
      for (int ks = 0; ks < KS; ++ks) {
        if (ks == KS - 1) {
          // Slice kt+1 has landed (committed: STAGES-1 + kt+1 groups), and after the barrier
          // every warp has read slice kt-1's stage, which the copy issued at the next ks == 0
          // overwrites.
          mma_detail::cp_async_wait<STAGES - 2>();
          __syncthreads();
          read_stage = read_stage + kStageBytes == ring_end ? smem_base : read_stage + kStageBytes;
        }
        // The next k-step's fragments (the next slice's first one at the last k-step) load while
        // this k-step's mma run.
        load_fragments(a_frag[(ks + 1) % 2], b_frag[(ks + 1) % 2], read_stage, (ks + 1) % KS);
        if (ks == 0) {
          if (kt + STAGES - 1 < k_slices) load_slice(write_stage);
          mma_detail::cp_async_commit();
          write_stage = write_stage + kStageBytes == ring_end ? smem_base : write_stage + kStageBytes;
        }
#pragma unroll
        for (int mi = 0; mi < MI; ++mi)
#pragma unroll
          for (int j = 0; j < NI; ++j) {
            const int ni = Math::template tile_at<NI>(mi, j);
            if constexpr (kParts == 2) {
              if (ks == 0)
                Math::template products<MI, NI, true>(slice_sum[mi][ni], a_frag[ks % 2], b_frag[ks % 2], mi, ni);
              else
                Math::template products<MI, NI, false>(slice_sum[mi][ni], a_frag[ks % 2], b_frag[ks % 2], mi, ni);
            } else {
              Math::template mma_tile<MI, NI>(acc[mi][ni], a_frag[ks % 2], b_frag[ks % 2], mi, ni);
            }
          }
        if constexpr (kParts == 2)
          if (ks == KS - 1)
#pragma unroll
            for (int mi = 0; mi < MI; ++mi)
#pragma unroll
              for (int ni = 0; ni < NI; ++ni)
#pragma unroll
                for (int r = 0; r < 4; ++r) acc[mi][ni][r] += slice_sum[mi][ni][r];
      }
    }
    // Drain: no copy may still target shared memory when the block exits.
    mma_detail::cp_async_wait<0>();
  }
};

/// The epilogue store. A warp stages its accumulators through shared memory 16 rows (one mma
/// tile row) at a time, then each lane reads back 4 adjacent columns, applies Epi(acc, bias[n])
/// and stores them rounded once to C's type (8 bytes of bf16/f16 or 16 of f32 where N allows),
/// predicated at the matrix edges; a gated Epi (Epi::kGated) turns the 4 columns' two (gate, up)
/// pairs into 2 columns of its C of N/2 columns. Split-K's partials (EpilogueNone) are raw sums
/// whatever the epilogue: the reduce applies the gate. Staging makes the stores row-contiguous and keeps the
/// epilogue's code small: the activation is written once per 16-row pass instead of once per
/// accumulator (an erf GELU on 128 accumulators, fully unrolled, tripled NVRTC's compile time).
/// `smem` is the mainloop's ring, free once every warp has passed the barrier below. `MATH` is the
/// GEMM's math, which decides the accumulators' fragment layout (tf32's tiles are swapped);
/// `BiasT` and `CT` are the GEMM's bias and C types, or (split-K's partial sums, EpilogueNone)
/// f32 for C whatever the math. `residual` (M×N, C's type, row-major as C) is read only where
/// Epi adds one (epilogue_value).
template <class Tile, Math MATH, class Epi, class BiasT, class CT>
__device__ __forceinline__ void mma_store_tile(const float (&acc)[Tile::config.wm / 16][Tile::config.wn / 8][4],
                                               const BiasT* __restrict__ bias, CT* __restrict__ C, int M, int N,
                                               int m0, int n0, unsigned char* smem,
                                               const CT* __restrict__ residual = nullptr) {
  constexpr MmaConfig cfg = Tile::config;
  constexpr int MI = cfg.wm / 16, NI = cfg.wn / 8;
  using Staged = mma_layout::StagedEpilogue<cfg.wn, mma_detail::MmaMath<MATH>::kSwapped>;
  static_assert(Staged::kStride <= MmaConfig::epilogue_row_floats(cfg.wn), "MmaConfig::epilogue_bytes() sizes the stage");
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int warp_m = warp / (cfg.bn / cfg.wn), warp_n = warp % (cfg.bn / cfg.wn);
  float* stage = reinterpret_cast<float*>(smem) + warp * 16 * Staged::kStride;
  const int my_row = Staged::read_row(lane), my_col = Staged::read_col(lane);
  const int col = n0 + warp_n * cfg.wn + my_col;

  float b[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) b[j] = (Epi::kUsesBias && col + j < N) ? to_float(bias[col + j]) : 0.0f;
  // With N a multiple of 4, 4 columns from a multiple of 4 are all inside or all outside C and
  // aligned for one store.
  const bool vectors = N % 4 == 0;
  __syncthreads();  // every warp has read its last fragments out of the ring

#pragma unroll
  for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
    for (int ni = 0; ni < NI; ++ni)
#pragma unroll
      for (int h = 0; h < 2; ++h)
        *reinterpret_cast<float2*>(stage + Staged::fragment_offset(lane, ni, h)) =
            make_float2(acc[mi][ni][Staged::value(h, 0)], acc[mi][ni][Staged::value(h, 1)]);
    __syncwarp();
    // The lane's rows ascend, so the first one past M ends the pass. Two rows per iteration
    // (unroll 2) halve the loop's own instructions, which were 5 per element against the GELU's 17.
    const int group_row = m0 + warp_m * cfg.wm + mi * 16;
    if constexpr (Epi::kGated) {
      // Columns col..col+3 are two (gate, up) pairs (col is a multiple of 4): C's columns col/2
      // and col/2 + 1 of its N/2 (N even, so col < N means col + 1 < N). With N/2 even they are
      // one aligned pair.
      const int ldc = N / 2;
      CT* c = C + static_cast<long long>(group_row + my_row) * ldc + col / 2;
      const long long c_step = static_cast<long long>(Staged::kRowsPerPass) * ldc;
#pragma unroll 2
      for (int r = my_row; r < 16; r += Staged::kRowsPerPass, c += c_step) {
        if (group_row + r >= M) break;
        const float4 v = *reinterpret_cast<const float4*>(stage + r * Staged::kStride + my_col);
        const float out0 = Epi::gate(v.x, v.y), out1 = Epi::gate(v.z, v.w);
        if (ldc % 2 == 0) {
          if (col < N) mma_detail::store2(c, out0, out1);
        } else {
          if (col < N) c[0] = from_float<CT>(out0);
          if (col + 2 < N) c[1] = from_float<CT>(out1);
        }
      }
      __syncwarp();  // the next 16 rows overwrite this stage
      continue;
    }
    CT* c = C + static_cast<long long>(group_row + my_row) * N + col;
    const long long c_step = static_cast<long long>(Staged::kRowsPerPass) * N;
#pragma unroll 2
    for (int r = my_row; r < 16; r += Staged::kRowsPerPass, c += c_step) {
      if (group_row + r >= M) break;
      const float4 v = *reinterpret_cast<const float4*>(stage + r * Staged::kStride + my_col);
      // C[at + j]'s value; a residual epilogue reads the residual only inside C (a column past N
      // is neither read nor stored), the others compute Epi::apply alone, as before it had one.
      const long long at = c - C;
      const auto value = [&](float acc, int j) -> float {
        if constexpr (Epi::kUsesResidual) return col + j < N ? epilogue_value<Epi>(acc, b[j], residual, at + j) : 0.0f;
        return epilogue_value<Epi>(acc, b[j], residual, at + j);
      };
      const float out[4] = {value(v.x, 0), value(v.y, 1), value(v.z, 2), value(v.w, 3)};
      if (vectors) {
        if (col < N) mma_detail::store4(c, out);
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j)
          if (col + j < N) c[j] = from_float<CT>(out[j]);
      }
    }
    __syncwarp();  // the next 16 rows overwrite this stage
  }
}

/// The kernel body: scheduler, mainloop, epilogue store. Launch with grid =
/// Tile::grid_blocks(M, N) blocks in x, Tile::kThreads threads and Tile::kSmemBytes of dynamic
/// shared memory. Split-K (cfg.split > 1; kernels/core/family.hpp, kSplitParam): gridDim.z
/// slices of K, block z summing its even share of the K slices (none for a trailing block when
/// the share rounds up) and storing the raw f32 sums, unconverted, into (float*)C + z·M·N: C is
/// then the f32 partials workspace whatever the dtype, and the reduce applies the epilogue (a
/// residual epilogue is refused with a split: MmaFamily::check_problem). `residual` is the
/// kernel's last parameter, read only by an epilogue that adds one, so the other epilogues'
/// kernels keep their code.
template <class Tile, class Gemm, class Epi>
__device__ __forceinline__ void mma_gemm_device(const typename Gemm::A* __restrict__ A,
                                                const typename Gemm::B* __restrict__ B,
                                                const typename Gemm::Bias* __restrict__ bias,
                                                typename Gemm::C* __restrict__ C, int M, int N, int K,
                                                const typename Gemm::C* __restrict__ residual) {
  static_assert(mma_detail::MmaGuard<Tile>::ok, "invalid mma config");
  constexpr MmaConfig cfg = Tile::config;
  extern __shared__ __align__(128) unsigned char mma_smem[];

  const int tiles_m = (M + cfg.bm - 1) / cfg.bm;
  const int tiles_n = (N + cfg.bn - 1) / cfg.bn;
  const TileCoord tile = grouped_tile<cfg.group_m>(blockIdx.x, tiles_m, tiles_n);
  const int m0 = tile.m * cfg.bm;
  const int n0 = tile.n * cfg.bn;

  float acc[cfg.wm / 16][cfg.wn / 8][4];
#pragma unroll
  for (int mi = 0; mi < cfg.wm / 16; ++mi)
#pragma unroll
    for (int ni = 0; ni < cfg.wn / 8; ++ni)
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[mi][ni][r] = 0.0f;

  using Mainloop = MmaMainloop<Tile, Gemm>;
  const int k_slices = (K * Mainloop::kElem + cfg.bk_bytes - 1) / cfg.bk_bytes;
  if constexpr (cfg.split > 1) {
    const int per_slice = (k_slices + static_cast<int>(gridDim.z) - 1) / static_cast<int>(gridDim.z);
    const int kt_begin = min(k_slices, static_cast<int>(blockIdx.z) * per_slice);
    const int kt_end = min(k_slices, kt_begin + per_slice);
    Mainloop::run(A, B, M, N, K, m0, n0, kt_begin, kt_end, mma_smem, acc);
    float* partial = reinterpret_cast<float*>(C) + static_cast<long long>(blockIdx.z) * M * N;
    mma_store_tile<Tile, Gemm::math, EpilogueNone>(acc, bias, partial, M, N, m0, n0, mma_smem);
  } else {
    Mainloop::run(A, B, M, N, K, m0, n0, 0, k_slices, mma_smem, acc);
    mma_store_tile<Tile, Gemm::math, Epi>(acc, bias, C, M, N, m0, n0, mma_smem, residual);
  }
}

/// The kernel for nvcc-compiled instantiations (tests).
template <class Tile, class Gemm, class Epi>
__global__ void __launch_bounds__(mma_detail::MmaKernelOf<Tile, Gemm, Epi>::kThreads,
                                  mma_detail::MmaKernelOf<Tile, Gemm, Epi>::kMinBlocks)
    mma_gemm_kernel(const typename Gemm::A* __restrict__ A, const typename Gemm::B* __restrict__ B,
                    const typename Gemm::Bias* __restrict__ bias, typename Gemm::C* __restrict__ C, int M, int N,
                    int K, const typename Gemm::C* __restrict__ residual) {
  mma_gemm_device<Tile, Gemm, Epi>(A, B, bias, C, M, N, K, residual);
}

}  // namespace coalesce

/// Defines `extern "C" __global__ void SYMBOL(A, B, bias, C, M, N, K, residual)` for one tile, GEMM types
/// and epilogue, with the dtype's storage types in its signature:
/// COALESCE_DEFINE_MMA_KERNEL(symbol, coalesce::MmaTile<...>, coalesce::GemmOf<coalesce::Dtype::bf16>,
/// coalesce::EpilogueX). Variadic because the tile type's template arguments contain commas.
#define COALESCE_DEFINE_MMA_KERNEL(SYMBOL, ...)                                                              \
  extern "C" __global__ void __launch_bounds__(::coalesce::mma_detail::MmaKernelOf<__VA_ARGS__>::kThreads,   \
                                               ::coalesce::mma_detail::MmaKernelOf<__VA_ARGS__>::kMinBlocks) \
      SYMBOL(const ::coalesce::mma_detail::MmaKernelOf<__VA_ARGS__>::A* __restrict__ A,                      \
             const ::coalesce::mma_detail::MmaKernelOf<__VA_ARGS__>::B* __restrict__ B,                      \
             const ::coalesce::mma_detail::MmaKernelOf<__VA_ARGS__>::Bias* __restrict__ bias,                \
             ::coalesce::mma_detail::MmaKernelOf<__VA_ARGS__>::C* __restrict__ C, int M, int N, int K,       \
             const ::coalesce::mma_detail::MmaKernelOf<__VA_ARGS__>::C* __restrict__ residual) {             \
    ::coalesce::mma_gemm_device<__VA_ARGS__>(A, B, bias, C, M, N, K, residual);                             \
  }
