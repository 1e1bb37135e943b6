// The tile configuration of the `gemv` family and its one validity rule. The tuner's pruning
// (through the family plug-in, kernels/gemv/family.cpp), the kernel template's static_asserts,
// the compiler's verifier and the tests all call GemvConfig's check(); nothing else decides
// whether a config is legal.
//
// Widths are counted in bytes, as mma's are: a lane loads vec_bytes of a row of B whatever the
// dtype (4 f32 or 8 bf16/f16 columns at 16 bytes), so the Family interface, which judges a config
// without a dtype, judges its loads completely. What depends on the element size is bounded
// here: shared memory by the 2-byte case, the largest; registers by the 4-byte case, the least,
// so a config refused without a dtype fits none (the accumulators of MR = 32 rows fit f32's 4
// columns per 16-byte load, not bf16's 8), and check_problem() judges the problem's dtype. Both
// are exact in the kernel, in Family::geometry() and in the problem's Family::predict().
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
  int vec_bytes = 16;   ///< bytes of a row of B per lane load: 16, 8, 4, or 2 (one bf16/f16)
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
  /// Whether the warps stage their rows of A in shared memory: above 16 rows, reading MR values
  /// of A per row of B through the read-only path holds MR row offsets and the step's U x MR
  /// values in registers (ptxas used all 255 and spilled at MR = 32 with 16-byte f32 loads);
  /// staged, a warp copies its step's MR x STEP slice of A once, as f32 and transposed, and a
  /// thread reads the values of 4 rows of C with one 16-byte shared-memory load. At 16 rows
  /// staging saved no registers (ptxas, sm_90), so smaller MR keep the read-only path.
  COALESCE_HD constexpr bool stages_a() const { return mr > 16; }
  /// Floats a staged row of K takes: MR values and 4 of padding, so a row starts 16-byte aligned
  /// and the R rows a warp reads at once start 4 banks apart (R <= 8: no bank conflict).
  COALESCE_HD constexpr int stage_row_floats() const { return mr + 4; }
  /// Floats of one warp's stage of A: the step's rows of K (0 when A is not staged).
  COALESCE_HD constexpr int stage_floats() const { return stages_a() ? step_rows() * stage_row_floats() : 0; }
  /// Shared memory: each warp's MR x strip f32 partial sums for the cross-warp reduction, then
  /// each warp's stage of A.
  COALESCE_HD constexpr int smem_bytes(int element_bytes) const {
    return warps * mr * strip_columns(element_bytes) * 4 + warps * stage_floats() * 4;
  }
  /// The most over every dtype (2-byte elements): what the device rules judge.
  COALESCE_HD constexpr int smem_bytes() const { return smem_bytes(kMinElementBytes); }

  /// The register model the tuner prunes with before compiling, for elements of `element_bytes`:
  /// MR x columns accumulators, the step's loads of B (UNROLL x vec_bytes/4 words), then either
  /// MR row offsets and MR values of A (read-only path) or, staged, MR values of A read from
  /// shared memory and two registers per element of A a lane copies (MR x STEP / 32 of them;
  /// fitted to ptxas, which keeps the copies' values and addresses live together), and 32 for
  /// addresses and loop state. Against ptxas (NVRTC, sm_90, f32): 128 to 172 registers for
  /// MR = 16 where the model says 144 to 160; 203 to 247 for the legal staged MR = 32 configs
  /// where it says 216 to 240 (docs/kernels.md, "gemv: registers", has sm_80 and bf16).
  COALESCE_HD constexpr int model_registers(int element_bytes) const {
    const int a = stages_a() ? mr + mr * step_rows() / 16 : 2 * mr;
    return mr * lane_columns(element_bytes) + unroll * ((vec_bytes + 3) / 4) + a + 32;
  }
  /// Without a dtype: the least any dtype needs (4-byte elements, the fewest columns per load).
  /// check() refuses what fits no dtype with it; check_problem() judges the problem's dtype.
  COALESCE_HD constexpr int model_registers() const { return model_registers(4); }
  COALESCE_HD constexpr int predicted_registers(int element_bytes) const {
    return model_registers(element_bytes) < register_cap() ? model_registers(element_bytes) : register_cap();
  }
  COALESCE_HD constexpr int predicted_registers() const { return predicted_registers(4); }
  /// The registers per thread ptxas may use under __launch_bounds__(threads) (one block per SM).
  COALESCE_HD constexpr int register_cap(int regs_per_sm = 65536) const {
    return coalesce::register_cap(threads(), 1, regs_per_sm);
  }
  COALESCE_HD constexpr int blocks_per_sm(const DeviceLimits& d, int registers_per_thread) const {
    return resident_blocks(d, threads(), smem_bytes(), registers_per_thread);
  }

  /// The config's own rules, independent of device, dtype and problem.
  COALESCE_HD constexpr Verdict check() const {
    if (mr < 1 || mr > 32) return {Violation::shape, "mr must be between 1 and 32 rows of C per block"};
    if (stages_a() && mr % 4 != 0)
      return {Violation::shape, "mr above 16 must be a multiple of 4 (staged A is read 4 rows of C at a time)"};
    if (warps < 1 || warps > 32) return {Violation::shape, "warps must be between 1 and 32"};
    if (vec_bytes != 2 && vec_bytes != 4 && vec_bytes != 8 && vec_bytes != 16)
      return {Violation::shape,
              "vec_bytes must be 4, 8 or 16 (the widths of one vector load) or 2 (one bf16/f16 element, for rows of "
              "an odd number of them)"};
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
    if (vec_bytes < bytes)
      return {Violation::shape, "vec_bytes 2 loads one 16-bit element: f32 storage (f32, tf32) loads at least 4 bytes"};
    if ((n * bytes) % vec_bytes != 0)
      return {Violation::divisibility, "vec_bytes must divide a row of B (N times the element size)"};
    if (register_cap() < model_registers(static_cast<int>(bytes)))
      return {Violation::registers,
              "the register model for this dtype's elements needs more registers than one block of these threads "
              "may have: ptxas would spill"};
    if (split > k) return {Violation::shape, "split-K needs at least one row of K per slice"};
    if (split > 1 && static_cast<long long>(split) * m * n >= (1LL << 31))
      return {Violation::shape, "split-K's partial sums must have fewer than 2^31 elements"};
    return {};
  }
};

}  // namespace coalesce
