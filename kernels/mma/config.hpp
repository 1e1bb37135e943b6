// The tile configuration of the `mma` family and its one validity rule. The tuner's pruning
// (through the family plug-in, kernels/mma/family.cpp), the kernel template's static_asserts,
// the compiler's verifier and the tests all call MmaConfig's check(); nothing else decides
// whether a config is legal.
//
// The K slice and the copy width are counted in bytes, not elements: one tensor-core k-step reads
// 32 bytes of a row of A whatever the dtype (k16 of bf16/f16, k8 of tf32), so a config's shared
// memory, its k-steps, its copies and its registers are the same for bf16, f16 and tf32, and the
// Family interface, which judges a config without a dtype, judges those completely. f32 (3xTF32)
// needs more registers than that judgement assumes: check_problem(), which knows the dtype, applies
// f32's register rule, and a prediction without a dtype (Family::predict, `coalesce-tune space`'s
// predicted registers) is tf32's. The problem's alignment depends on the dtype too.
//
// Device-safe: compiles under nvcc, NVRTC and a plain C++ compiler (no standard headers).
#pragma once

#include "kernels/core/limits.hpp"
#include "kernels/core/types.hpp"

namespace coalesce {

/// Tensor-core GEMM through mma.sync (sm_80+): a block computes BM×BN of C, each warp WM×WN of
/// it as (WM/16)×(WN/8) mma tiles, walking K in slices of BK_BYTES bytes per row of A through a
/// STAGES-deep cp.async shared-memory ring.
struct MmaConfig {
  int bm = 128, bn = 128;  ///< block tile (elements of C)
  int bk_bytes = 64;       ///< K slice, in bytes of a row of A: 64 = 32 bf16/f16 = 16 tf32
  int wm = 64, wn = 64;    ///< warp tile (elements of C)
  int stages = 4;          ///< shared-memory buffers in flight (cp.async)
  int vec_bytes = 16;      ///< bytes per global->shared copy: 16, 8 or 4 (cp.async), or 2 (a plain load)
  int swizzle = 1;         ///< shared-memory layout: 1 = XOR-swizzled rows, 0 = padded rows
  int group_m = 8;         ///< block rasterization: tile rows per group (1 = row order)
  int min_blocks = 1;      ///< blocks per SM asked of ptxas (__launch_bounds__), capping registers
  int split = 1;           ///< split-K: K slices, one per grid z (kernels/core/family.hpp kSplitParam)

  /// One mma k-step reads 32 bytes of a row of A (m16n8k16 bf16/f16, m16n8k8 tf32).
  static constexpr int kStepBytes = 32;
  /// The largest tile side check() reads before it forms products of the sides (far above any
  /// tile a block's registers hold).
  static constexpr int kMaxTileSide = 4096;
  /// A padded row (swizzle == 0) ends with one 16-byte chunk more: 8 rows read by one ldmatrix
  /// phase then start in 8 different bank groups. B carries the same 16 bytes per 16-bit row and
  /// 32 bytes per tf32 row (docs/kernels.md, "mma: shared memory"), i.e. 8 bytes of padding per
  /// byte of K slice for either dtype.
  static constexpr int kPadBytes = 16;

  COALESCE_HD constexpr int warps() const { return (bm / wm) * (bn / wn); }
  COALESCE_HD constexpr int threads() const { return warps() * 32; }
  COALESCE_HD constexpr int k_steps() const { return bk_bytes / kStepBytes; }
  /// Bytes of one stage: A is BM rows of bk_bytes; B is bk_bytes/size(element) rows of
  /// BN elements, bk_bytes·BN bytes whatever the element size; plus the padding.
  COALESCE_HD constexpr int a_stage_bytes() const { return bm * (bk_bytes + (swizzle ? 0 : kPadBytes)); }
  COALESCE_HD constexpr int b_stage_bytes() const { return bk_bytes * bn + (swizzle ? 0 : 8 * bk_bytes); }
  COALESCE_HD constexpr int stage_bytes() const { return a_stage_bytes() + b_stage_bytes(); }
  /// The epilogue stages a warp's accumulators 16 rows at a time, in rows of WN + 8 floats (the
  /// padding keeps the fragment writes free of bank conflicts; tf32's swapped tiles use WN + 4 of
  /// them, mma_layout::StagedEpilogue), in the ring's memory.
  COALESCE_HD static constexpr int epilogue_row_floats(int warp_n) { return warp_n + 8; }
  COALESCE_HD constexpr int epilogue_bytes() const { return warps() * 16 * epilogue_row_floats(wn) * 4; }
  /// Dynamic shared memory per block: the ring, or the epilogue's staging where that is larger
  /// (many warps of a wide warp tile on a shallow ring).
  COALESCE_HD constexpr int smem_bytes() const {
    return stages * stage_bytes() > epilogue_bytes() ? stages * stage_bytes() : epilogue_bytes();
  }

  /// Registers a thread's fragments take: WM·WN/32 f32 accumulators; per k-step 4 registers of
  /// A per 16 rows and 2 of B per 8 columns, loaded one k-step ahead (two sets).
  COALESCE_HD constexpr int accumulator_registers() const { return wm * wn / 32; }
  COALESCE_HD constexpr int fragment_registers() const { return (wm / 16) * 4 + (wn / 8) * 2; }

  /// Global-to-shared copies a thread issues per K slice (A and B together).
  COALESCE_HD constexpr int copies_per_thread() const {
    return threads() > 0 ? (bm * bk_bytes + bk_bytes * bn) / vec_bytes / threads() : 0;
  }
  /// Registers beyond the accumulators and fragments: addresses, predicates and loop state. The
  /// upper envelope of ptxas 13.0's figures (sm_90, bf16 and tf32, every epilogue; tf32 needs the
  /// most): at most 60 up to 20 copies per thread, then about 7/8 of a register per copy
  /// (docs/kernels.md, "mma: registers").
  COALESCE_HD constexpr int overhead_registers() const {
    return copies_per_thread() <= 20 ? 60 : 66 + copies_per_thread() * 7 / 8;
  }
  /// The register model: what the kernel needs unspilled, whatever the cap.
  COALESCE_HD constexpr int model_registers() const {
    return accumulator_registers() + 2 * fragment_registers() + overhead_registers();
  }
  /// The register model of f32 (3xTF32, MmaMath<Math::f32>): tf32's plus a second set of
  /// accumulators, the K slice's own sums (ptxas 13.0 at sm_90, bias + GELU: 204 to 211
  /// registers for 64x32 and 32x64 warp tiles with 64- to 256-byte slices, against 142 to 150 in
  /// tf32; 126 to 131 for 32x32; a 64x64 warp tile spills). Only check_problem() knows the dtype,
  /// so it applies this rule; the dtype-free rules above judge the config as tf32.
  COALESCE_HD constexpr int model_registers_3xtf32() const { return model_registers() + accumulator_registers(); }
  /// The registers the tuner expects ptxas to use before compiling: the model, capped by
  /// min_blocks (check() refuses caps below the model).
  COALESCE_HD constexpr int predicted_registers() const {
    return model_registers() < register_cap() ? model_registers() : register_cap();
  }

  /// The registers per thread ptxas may use under __launch_bounds__(threads, min_blocks).
  COALESCE_HD constexpr int register_cap(int regs_per_sm = 65536) const {
    return coalesce::register_cap(threads(), min_blocks, regs_per_sm);
  }

  /// Blocks of this config one SM can hold, by threads, shared memory and registers.
  COALESCE_HD constexpr int blocks_per_sm(const DeviceLimits& d, int registers_per_thread) const {
    return resident_blocks(d, threads(), smem_bytes(), registers_per_thread);
  }

  COALESCE_HD static constexpr bool power_of_two(int x) { return x > 0 && (x & (x - 1)) == 0; }

  /// Whether `copies` copies of one operand tile split evenly over the block's threads, each
  /// thread keeping one column of copies (threads a multiple of the copies per row) or one
  /// share of a row (copies per row a multiple of threads). Every count here is a power of two
  /// once check() has passed the shape rules.
  COALESCE_HD constexpr bool splits(int rows, int row_bytes) const {
    const int per_row = row_bytes / vec_bytes;
    const int copies = rows * per_row;
    return copies % threads() == 0 && (threads() % per_row == 0 || per_row % threads() == 0);
  }

  /// The config's own rules, independent of device, dtype and problem.
  COALESCE_HD constexpr Verdict check() const {
    if (bm <= 0 || bn <= 0 || wm <= 0 || wn <= 0 || bk_bytes <= 0)
      return {Violation::shape, "every tile side must be positive"};
    if (!power_of_two(bm) || !power_of_two(bn) || !power_of_two(wm) || !power_of_two(wn))
      return {Violation::shape, "BM, BN, WM and WN must be powers of two"};
    // Bounded before any rule forms a product of them: (2^30/16) x (2^30/16) warps wraps in int.
    if (bm > kMaxTileSide || bn > kMaxTileSide) return {Violation::shape, "BM and BN must be at most 4096"};
    if (bk_bytes != 64 && bk_bytes != 128 && bk_bytes != 256)
      return {Violation::shape,
              "bk_bytes must be 64, 128 or 256 (two to eight 32-byte mma k-steps; a row of at least 64 bytes "
              "keeps the swizzled layout conflict-free)"};
    if (stages < 2 || stages > 8)
      return {Violation::shape, "stages must be between 2 and 8 (the pipeline needs a buffer to fill while one is read)"};
    if (vec_bytes != 2 && vec_bytes != 4 && vec_bytes != 8 && vec_bytes != 16)
      return {Violation::shape,
              "vec_bytes must be 4, 8 or 16 (the sizes cp.async copies) or 2 (one 16-bit element per plain load, for "
              "rows of an odd number of bf16/f16)"};
    if (swizzle != 0 && swizzle != 1) return {Violation::shape, "swizzle must be 0 (padded rows) or 1 (XOR-swizzled rows)"};
    if (group_m < 1) return {Violation::shape, "group_m must be at least 1"};
    if (min_blocks < 1 || min_blocks > 8) return {Violation::shape, "min_blocks must be between 1 and 8"};
    if (split < 1 || split > kMaxSplitSlices) return {Violation::shape, "split must be between 1 and 32 K slices"};
    if (bn < 64) return {Violation::shape, "BN must be at least 64 (a B row of at least 128 bytes keeps its layout conflict-free)"};
    if (wm < 16 || wn < 16)
      return {Violation::divisibility, "WM and WN must be multiples of 16 (16-row mma tiles; B is loaded 16 columns at a time)"};
    if (bm % wm != 0 || bn % wn != 0)
      return {Violation::divisibility, "the warp tile must divide the block tile (BM % WM, BN % WN)"};
    if (warps() > 32) return {Violation::threads, "a block holds at most 32 warps (BM/WM * BN/WN)"};
    // B's rows are BN elements: BN*2 bytes for bf16/f16, BN*4 for tf32; both must split.
    if (!splits(bm, bk_bytes) || !splits(bk_bytes / 2, bn * 2) || !splits(bk_bytes / 4, bn * 4))
      return {Violation::threads,
              "the block's threads must split the A and B tiles into equal copies of vec_bytes "
              "(BM*bk_bytes/vec_bytes and bk_bytes*BN/vec_bytes at least the thread count)"};
    return {};
  }

  /// The rules above plus the device's limits, with `registers` per thread (predicted before
  /// compiling, ptxas' figure after).
  COALESCE_HD constexpr Verdict check(const DeviceLimits& d, int registers) const {
    Verdict v = check();
    if (!v.ok()) return v;
    if (threads() > d.max_threads_per_block)
      return {Violation::threads, "the block has more threads than the device allows per block"};
    if (smem_bytes() > d.smem_per_block_optin)
      return {Violation::smem, "the pipeline's shared memory exceeds the device's per-block limit"};
    if (registers > d.max_regs_per_thread)
      return {Violation::registers, "the thread needs more registers than the 255 a thread may have"};
    if (register_cap(d.regs_per_sm) < model_registers())
      return {Violation::registers,
              "the register model needs more registers than the cap of min_blocks blocks of these threads "
              "(or than 255) allows: ptxas would spill"};
    if (min_blocks * threads() > d.max_threads_per_sm || min_blocks * (smem_bytes() + 1024) > d.smem_per_sm)
      return {Violation::occupancy, "min_blocks blocks do not fit on an SM (threads or shared memory)"};
    if (blocks_per_sm(d, registers) < 1)
      return {Violation::occupancy, "not one block fits on an SM (registers x threads or shared memory)"};
    return {};
  }
  COALESCE_HD constexpr Verdict check(const DeviceLimits& d) const { return check(d, predicted_registers()); }

  /// Problem-dependent rules: f32's registers (3xTF32's lo parts), aligned copies (every row
  /// of A and of B starts on a vec_bytes boundary, so a copy is wholly inside a row or wholly
  /// past its end; 2-byte copies only for 2-byte elements), and split-K's: a K slice of at least
  /// one bk_bytes-deep step, and f32 partial sums the reduce indexes with 32 bits. No size rule
  /// otherwise: the kernel's offsets into A, B and C are 64-bit (a block's copy bases and its
  /// store rows, computed once per block; in-row offsets and predicates are 32-bit, bounded by
  /// kMaxExtent), so a matrix of 2^31 elements or more runs (issue 39).
  COALESCE_HD constexpr Verdict check_problem(int m, int n, int k, Dtype dtype) const {
    if (m <= 0 || n <= 0 || k <= 0) return {Violation::shape, "M, N and K must be positive"};
    const long long bytes = element_bytes(gemm_types(dtype).a);
    if (vec_bytes < bytes)
      return {Violation::shape, "vec_bytes 2 copies one 16-bit element: f32 storage (tf32, f32) copies at least 4 bytes"};
    if ((k * bytes) % vec_bytes != 0)
      return {Violation::divisibility, "vec_bytes must divide a row of A (K times the element size)"};
    if ((n * bytes) % vec_bytes != 0)
      return {Violation::divisibility, "vec_bytes must divide a row of B (N times the element size)"};
    if (split > (k * bytes + bk_bytes - 1) / bk_bytes)
      return {Violation::shape, "split-K needs at least one bk_bytes-deep step of K per slice"};
    if (split > 1 && static_cast<long long>(split) * m * n >= (1LL << 31))
      return {Violation::shape, "split-K's partial sums must have fewer than 2^31 elements"};
    if (dtype == Dtype::f32 && register_cap() < model_registers_3xtf32())
      return {Violation::registers,
              "f32 runs as 3xTF32, whose fragments keep a second (lo) part and whose K slices a second set of sums: the "
              "register model with them needs more registers than the cap of min_blocks blocks of these threads (or "
              "than 255) allows"};
    return {};
  }
};

}  // namespace coalesce
