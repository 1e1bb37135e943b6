// The tile configuration of the `gemv` family and its one validity rule. The tuner's pruning
// (through the family plug-in, kernels/gemv/family.cpp), the kernel template's static_asserts,
// the compiler's verifier and the tests all call GemvConfig's check(); nothing else decides
// whether a config is legal.
//
// Widths are counted in bytes, as mma's are: a lane loads vec_bytes of a row of B whatever the
// dtype (4 f32 or 8 bf16/f16 columns at 16 bytes), so the Family interface, which judges a config
// without a dtype, judges its loads completely. What depends on the element size (columns per
// block, shared memory, accumulators) is bounded here by the 2-byte case, the largest, and exact
// in the kernel and in Family::geometry(), which know the dtype.
//
// Device-safe: compiles under nvcc, NVRTC and a plain C++ compiler (no standard headers).
#pragma once

#include "kernels/core/limits.hpp"
#include "kernels/core/types.hpp"

namespace coalesce {

/// Small-M GEMM (decode-time linear layers, issue 12), bound by reading B once: a block owns a
/// strip of columns and MR rows of C; each lane streams vec_bytes of a row of B per load, LANES
/// lanes side by side across the strip and 32/LANES rows of B per warp load; the block's warps
/// take contiguous chunks of K, UNROLL loads in flight per thread; partial sums are reduced by
/// warp shuffles and then across warps in shared memory, in a fixed order.
struct GemvConfig {
  int mr = 4;           ///< rows of A and C per block (M > MR: more blocks in y)
  int warps = 8;        ///< warps per block, each a contiguous chunk of the block's K
  int vec_bytes = 16;   ///< bytes of a row of B per lane load: 16, 8 or 4
  int lanes = 8;        ///< lanes across the strip (4..32); a warp load covers 32/LANES rows of B
  int unroll = 4;       ///< loads of B in flight per thread per step
  int split = 1;        ///< split-K: K slices, one per grid z (kernels/core/family.hpp kSplitParam)

  /// The most rows of C the family takes: beyond it a tile family reads B fewer times.
  static constexpr int kMaxM = 64;
  /// The bytes of the smallest element (bf16, f16): the bound for dtype-dependent sizes.
  static constexpr int kMinElementBytes = 2;

  COALESCE_HD constexpr int threads() const { return warps * 32; }
  /// Rows of B one warp load covers, and rows one step of a warp covers.
  COALESCE_HD constexpr int rows_per_load() const { return lanes > 0 ? 32 / lanes : 0; }
  COALESCE_HD constexpr int step_rows() const { return rows_per_load() * unroll; }
  /// Columns a lane holds, and the block's strip, for elements of `element_bytes`.
  COALESCE_HD constexpr int lane_columns(int element_bytes) const { return vec_bytes / element_bytes; }
  COALESCE_HD constexpr int strip_columns(int element_bytes) const { return lanes * lane_columns(element_bytes); }
  /// Shared memory of the cross-warp reduction: each warp's MR x strip f32 partial sums.
  COALESCE_HD constexpr int smem_bytes(int element_bytes) const {
    return warps * mr * strip_columns(element_bytes) * 4;
  }
  /// The most over every dtype (2-byte elements): what the device rules judge.
  COALESCE_HD constexpr int smem_bytes() const { return smem_bytes(kMinElementBytes); }

  /// The register model the tuner prunes with before compiling, for 2-byte elements (twice the
  /// f32 accumulators): MR x columns accumulators, the step's loads of B (UNROLL x vec_bytes/4
  /// words), MR values of A, and addresses and loop state.
  COALESCE_HD constexpr int model_registers() const {
    return mr * lane_columns(kMinElementBytes) + unroll * vec_bytes / 4 + 2 * mr + 32;
  }
  COALESCE_HD constexpr int predicted_registers() const {
    return model_registers() < register_cap() ? model_registers() : register_cap();
  }
  /// The registers per thread ptxas may use under __launch_bounds__(threads) (one block per SM).
  COALESCE_HD constexpr int register_cap(int regs_per_sm = 65536) const {
    return coalesce::register_cap(threads(), 1, regs_per_sm);
  }
  COALESCE_HD constexpr int blocks_per_sm(const DeviceLimits& d, int registers_per_thread) const {
    return resident_blocks(d, threads(), smem_bytes(), registers_per_thread);
  }

  /// The config's own rules, independent of device, dtype and problem.
  COALESCE_HD constexpr Verdict check() const {
    if (mr < 1 || mr > 8) return {Violation::shape, "mr must be between 1 and 8 rows of C per block"};
    if (warps < 1 || warps > 32) return {Violation::shape, "warps must be between 1 and 32"};
    if (vec_bytes != 4 && vec_bytes != 8 && vec_bytes != 16)
      return {Violation::shape, "vec_bytes must be 4, 8 or 16 (the widths of one vector load)"};
    if (lanes != 4 && lanes != 8 && lanes != 16 && lanes != 32)
      return {Violation::shape,
              "lanes must be 4, 8, 16 or 32 (a power of two dividing the warp; fewer than 4 lanes leave a row "
              "segment under 32 bytes, a partly used sector)"};
    if (unroll < 1 || unroll > 16) return {Violation::shape, "unroll must be between 1 and 16 loads in flight"};
    if (split < 1 || split > kMaxSplitSlices) return {Violation::shape, "split must be between 1 and 32 K slices"};
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
      return {Violation::smem, "the cross-warp reduction's shared memory exceeds the device's per-block limit"};
    if (registers > d.max_regs_per_thread)
      return {Violation::registers, "the thread needs more registers than the 255 a thread may have"};
    if (register_cap(d.regs_per_sm) < model_registers())
      return {Violation::registers,
              "the register model needs more registers than one block of these threads may have: ptxas would spill"};
    if (blocks_per_sm(d, registers) < 1)
      return {Violation::occupancy, "not one block fits on an SM (registers x threads or shared memory)"};
    return {};
  }
  COALESCE_HD constexpr Verdict check(const DeviceLimits& d) const { return check(d, predicted_registers()); }

  /// Problem-dependent rules: M within the family's range, 32-bit indexing, B's rows aligned for
  /// the vector loads (a load is wholly inside a row or wholly past its end), a row of K per slice.
  COALESCE_HD constexpr Verdict check_problem(int m, int n, int k, Dtype dtype) const {
    if (m <= 0 || n <= 0 || k <= 0) return {Violation::shape, "M, N and K must be positive"};
    if (m > kMaxM)
      return {Violation::shape, "the gemv family is for M <= 64 (above it a tile family reads B fewer times)"};
    if (static_cast<long long>(m) * k >= (1LL << 31) || static_cast<long long>(k) * n >= (1LL << 31) ||
        static_cast<long long>(m) * n >= (1LL << 31))
      return {Violation::shape, "each matrix must have fewer than 2^31 elements (the kernel indexes with 32 bits)"};
    const long long bytes = element_bytes(gemm_types(dtype).b);
    if ((n * bytes) % vec_bytes != 0)
      return {Violation::divisibility, "vec_bytes must divide a row of B (N times the element size)"};
    if (split > k) return {Violation::shape, "split-K needs at least one row of K per slice"};
    if (split > 1 && static_cast<long long>(split) * m * n >= (1LL << 31))
      return {Violation::shape, "split-K's partial sums must have fewer than 2^31 elements"};
    return {};
  }
};

}  // namespace coalesce
