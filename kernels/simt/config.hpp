// The tile configuration of the `simt` family and its one validity rule. The tuner's pruning
// (through the family plug-in, kernels/simt/family.cpp), the kernel template's static_asserts,
// the compiler's verifier and the tests all call SimtConfig::check(); nothing else decides
// whether a config is legal.
//
// Device-safe: compiles under nvcc, NVRTC and a plain C++ compiler (no standard headers).
#pragma once

#include "kernels/core/limits.hpp"

namespace coalesce {

/// FP32 GEMM on the CUDA cores, register-tiled (siboehm's warptiling kernel, CUTLASS's SIMT
/// path): a block computes BM×BN of C, each warp WM×WN of it, each thread TM×TN, walking K in
/// steps of BK through a STAGES-deep cp.async shared-memory pipeline.
struct SimtConfig {
  int bm = 128, bn = 128, bk = 16;  ///< block tile
  int wm = 64, wn = 32;             ///< warp tile
  int tm = 8, tn = 8;               ///< thread tile
  int stages = 3;                   ///< shared-memory buffers in flight (cp.async)
  int vec = 4;                      ///< floats per global->shared copy: 1, 2 or 4
  int group_m = 8;                  ///< block rasterization: tile rows per group (1 = row order)
  int min_blocks = 2;               ///< blocks per SM asked of ptxas (__launch_bounds__), capping registers
  int split = 1;                    ///< split-K: K slices, one per grid z (kernels/core/family.hpp kSplitParam)
  /// Bits of the kernel's element offsets: 32, or 64 for a problem with a matrix of 2^31
  /// elements or more (needs_64bit_offsets; the space sets it by the problem, so the common case
  /// keeps 32-bit address arithmetic).
  int index_bits = 32;

  /// Shared-memory rows are padded by one 16-byte vector (4 floats): with 32 banks of 4 bytes,
  /// consecutive rows then start 4 banks apart, so the transposing copies of A, which write one
  /// column down several rows, spread over the banks instead of meeting in one; and every row
  /// stays 16-byte aligned for the vector loads.
  static constexpr int kPad = 4;
  static constexpr int kMaxTileSide = 4096;

  COALESCE_HD constexpr int warps() const { return (bm / wm) * (bn / wn); }
  COALESCE_HD constexpr int threads() const { return warps() * 32; }
  COALESCE_HD constexpr int a_stride() const { return bm + kPad; }  ///< A tile is stored [BK][BM+pad]
  COALESCE_HD constexpr int b_stride() const { return bn + kPad; }  ///< B tile is stored [BK][BN+pad]
  COALESCE_HD constexpr int stage_floats() const { return bk * a_stride() + bk * b_stride(); }
  COALESCE_HD constexpr int smem_bytes() const { return stages * stage_floats() * 4; }

  /// The register model the tuner prunes with before compiling: accumulators, one column of A
  /// and one row of B, and an overhead for addresses and loop state (a first estimate, checked
  /// against ptxas' figures that the tuner stores beside it); capped by min_blocks.
  COALESCE_HD constexpr int predicted_registers() const {
    int model = tm * tn + tm + tn + 40;
    return model < register_cap() ? model : register_cap();
  }

  /// The registers per thread ptxas may use under __launch_bounds__(threads, min_blocks) on a
  /// 64K-register SM (allocation is per warp in 256-register granules, so 8 per thread).
  COALESCE_HD constexpr int register_cap(int regs_per_sm = 65536) const {
    return coalesce::register_cap(threads(), min_blocks, regs_per_sm);
  }

  /// Blocks of this config one SM can hold, by threads, shared memory and registers.
  COALESCE_HD constexpr int blocks_per_sm(const DeviceLimits& d, int registers_per_thread) const {
    return resident_blocks(d, threads(), smem_bytes(), registers_per_thread);
  }

  /// The config's own rules, independent of device and problem.
  COALESCE_HD constexpr Verdict check() const {
    if (bm <= 0 || bn <= 0 || bk <= 0 || wm <= 0 || wn <= 0 || tm <= 0 || tn <= 0)
      return {Violation::shape, "every tile side must be positive"};
    // Bounds the products below (threads, tile copies, shared memory) inside int; no side
    // near it leaves a block that a GPU's 1024 threads and 255 registers could compute.
    if (bm > kMaxTileSide || bn > kMaxTileSide || bk > kMaxTileSide || wm > kMaxTileSide || wn > kMaxTileSide ||
        tm > kMaxTileSide || tn > kMaxTileSide)
      return {Violation::shape, "every tile side must be at most 4096"};
    if (stages < 2 || stages > 8)
      return {Violation::shape, "stages must be between 2 and 8 (the pipeline needs a buffer to fill while one is read)"};
    if (group_m < 1) return {Violation::shape, "group_m must be at least 1"};
    if (min_blocks < 1 || min_blocks > 8) return {Violation::shape, "min_blocks must be between 1 and 8"};
    if (split < 1 || split > kMaxSplitSlices) return {Violation::shape, "split must be between 1 and 32 K slices"};
    if (index_bits != 32 && index_bits != 64) return {Violation::shape, "index_bits must be 32 or 64"};
    if (vec != 1 && vec != 2 && vec != 4)
      return {Violation::shape, "vec must be 1, 2 or 4 floats (cp.async copies 4, 8 or 16 bytes)"};
    if (bm % wm != 0 || bn % wn != 0)
      return {Violation::divisibility, "the warp tile must divide the block tile (BM % WM, BN % WN)"};
    if (wm % tm != 0 || wn % tn != 0)
      return {Violation::divisibility, "the thread tile must divide the warp tile (WM % TM, WN % TN)"};
    if ((wm / tm) * (wn / tn) != 32)
      return {Violation::threads, "a warp tile must hold exactly 32 thread tiles ((WM/TM)*(WN/TN) == 32)"};
    if (tm % 4 != 0 || tn % 4 != 0)
      return {Violation::divisibility, "TM and TN must be multiples of 4 (A and B are read from shared memory 16 bytes at a time)"};
    if (bk % 4 != 0) return {Violation::divisibility, "BK must be a multiple of 4"};
    if (bn % vec != 0) return {Violation::divisibility, "vec must divide BN (a copy never straddles a tile row)"};
    // threads() * vec reaches 2^31 at the largest sides: the products are taken in 64 bits.
    const long long copies = static_cast<long long>(threads()) * vec;
    if ((bm * bk) % threads() != 0 || (bk * bn) % copies != 0)
      return {Violation::threads, "the block's threads must split the A and B tiles into equal copies"};
    if (threads() % bk != 0 || (copies % bn != 0 && bn % copies != 0))
      return {Violation::threads, "the threads must cover whole rows of the A and B tiles per pass (threads % BK, threads*vec vs BN)"};
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
    // Below this ptxas must spill accumulators (they alone need TM*TN registers).
    if (register_cap(d.regs_per_sm) < tm * tn + tn + 24)
      return {Violation::registers, "min_blocks leaves too few registers per thread for the accumulators"};
    if (min_blocks * threads() > d.max_threads_per_sm ||
        min_blocks * (smem_bytes() + 1024) > d.smem_per_sm)
      return {Violation::occupancy, "min_blocks blocks do not fit on an SM (threads or shared memory)"};
    if (blocks_per_sm(d, registers) < 1)
      return {Violation::occupancy, "not one block fits on an SM (registers x threads or shared memory)"};
    return {};
  }
  COALESCE_HD constexpr Verdict check(const DeviceLimits& d) const { return check(d, predicted_registers()); }

  /// Problem-dependent rules: offsets wide enough for the matrices, and vector copies need every
  /// row of B to start aligned.
  COALESCE_HD constexpr Verdict check_problem(int m, int n, int k) const {
    if (m <= 0 || n <= 0 || k <= 0) return {Violation::shape, "M, N and K must be positive"};
    if (index_bits == 32 && needs_64bit_offsets(m, n, k))
      return {Violation::shape,
              "a matrix has 2^31 elements or more: the kernel must index it in 64 bits (index_bits = 64)"};
    if (n % vec != 0)
      return {Violation::divisibility, "vec must divide N (vector copies of B need aligned rows)"};
    if (split > (k + bk - 1) / bk)
      return {Violation::shape, "split-K needs at least one BK-deep step of K per slice"};
    if (split > 1 && static_cast<long long>(split) * m * n >= (1LL << 31))
      return {Violation::shape, "split-K's partial sums must have fewer than 2^31 elements"};
    return {};
  }
};

}  // namespace coalesce
