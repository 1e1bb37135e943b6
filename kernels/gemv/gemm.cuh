// The `gemv` family: small-M GEMM (M <= 64: decode-time linear layers, issue 12) with a fused
// epilogue, for every dtype,
//   C[m][n] = Epi(sum_k A[m][k] * B[k][n], bias[n])      A: M×K, B: K×N, C: M×N, row-major,
// A, B, bias and C in the storage type, f32 FMAs (tf32 too: more accurate than TF32 math), one
// rounding on the store of C.
//
// At M <= 8 the GEMM is bound by reading B once, so the kernel is a stream over B: every byte of
// B is loaded once per block row group with 16-byte (or narrower) loads that go straight to
// registers (no shared-memory staging: there is no reuse of a B element within a block beyond
// the MR rows a thread already holds in registers), many loads in flight per thread.
//
//   block (x, y, z): columns n0 = x·STRIP .. +STRIP, rows m0 = y·MR .. +MR, K slice z.
//   lane: c = lane % LANES picks VEC_BYTES of a row of B (E = VEC_BYTES/size columns),
//         r = lane / LANES picks one of R = 32/LANES rows a warp load covers, so one warp load
//         reads R rows × LANES·VEC_BYTES contiguous bytes each (at least 64 bytes: whole sectors).
//   warp w: a contiguous chunk of the block's K (longer streams than interleaving), walked in
//         steps of R·UNROLL rows: UNROLL loads issued, then MR·E·UNROLL FMAs with A (M×K is tiny
//         and read through the read-only path, every lane of a row group reading one address;
//         above 16 rows the warp stages the step's MR×STEP slice of A in its own shared memory
//         first, GemvStagedMainloop, so that MR = 32 fits the registers).
//   reduce: lanes holding the same columns (same c, R of them) by a shuffle butterfly; then the
//         warps' MR×STRIP partials through shared memory, added in warp order; the epilogue once.
// Every sum is the same on every run (fixed per-thread order, fixed butterfly, fixed warp order).
//
// Split-K (cfg.split > 1; kernels/core/family.hpp kSplitParam): gridDim.z slices of K; block z
// sums its share and stores the raw f32 sums to (float*)C + z·M·N, and the harness's reduce
// finishes (and applies a gated epilogue's gate). A gated epilogue (Epi::kGated, kernels/core/
// epilogues.hpp) stores act(gate) · up of each column pair of the strip at column j of C's N/2.
// Edges: rows past M read a clamped row of A and are never stored; a strip past N reads a clamped
// vector of B (N is a whole number of vectors, GemvConfig::check_problem; an odd N in bf16/f16
// takes vectors of one element, 2-byte loads) and is never stored; rows of B past the warp's
// chunk in the last step are predicated.
//
// Device-safe: compiles under nvcc and NVRTC (no standard headers).
#pragma once

#include "kernels/core/epilogue.cuh"
#include "kernels/core/numeric.cuh"
#include "kernels/gemv/config.hpp"

namespace coalesce {

/// A gemv config as a type, so the kernel is specialized on every parameter. Offers the launch
/// rules every family's tile type offers (threads, shared memory bound, check_problem,
/// check_device); its grid is three-dimensional (Family::geometry), so no grid_blocks().
template <int MR, int WARPS, int VEC_BYTES, int LANES, int UNROLL, int SPLIT = 1>
struct GemvTile {
  static constexpr GemvConfig config{MR, WARPS, VEC_BYTES, LANES, UNROLL, SPLIT};
  static constexpr int kThreads = config.threads();
  static constexpr int kSmemBytes = config.smem_bytes();  ///< the most over every dtype
  static constexpr Verdict check_problem(int m, int n, int k, Dtype dtype) {
    return config.check_problem(m, n, k, dtype);
  }
  static constexpr Verdict check_device(const DeviceLimits& limits) { return config.check(limits); }
};

namespace gemv_detail {

/// The messaged compile-time guard: GemvConfig::check()'s one category, shape, gets its sentence.
template <class Tile>
struct GemvGuard {
  static constexpr Violation kViolation = Tile::config.check().violation;
  static_assert(kViolation != Violation::shape,
                "gemv config: mr (1..16, or 20..32 in fours), warps (1..32), vec_bytes (2, 4, 8, 16), lanes (4, 8, 16, 32), unroll "
                "(1..16) or split (1..32) is out of range");
  static constexpr bool ok = kViolation == Violation::none;
};

/// One vector load of WORDS 32-bit words from global memory through the non-coherent path,
/// not allocated in L1: B is streamed, every byte used once by the thread that loads it.
template <int WORDS>
__device__ __forceinline__ void load_stream(unsigned (&w)[WORDS], const void* p) {
  if constexpr (WORDS == 4) {
    asm("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
        : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3])
        : "l"(p));
  } else if constexpr (WORDS == 2) {
    asm("ld.global.nc.L1::no_allocate.v2.u32 {%0, %1}, [%2];" : "=r"(w[0]), "=r"(w[1]) : "l"(p));
  } else {
    asm("ld.global.nc.L1::no_allocate.u32 %0, [%1];" : "=r"(w[0]) : "l"(p));
  }
}

/// One load of B's VEC_BYTES into `w` through load_stream; VEC_BYTES == 2 is one bf16/f16 element
/// (a row of an odd number of them has no aligned wider load, issue 39), left in the low half of
/// w[0].
template <int VEC_BYTES>
__device__ __forceinline__ void load_b(unsigned (&w)[(VEC_BYTES + 3) / 4], const void* p) {
  if constexpr (VEC_BYTES == 2) {
    unsigned short h;
    asm("ld.global.nc.L1::no_allocate.u16 %0, [%1];" : "=h"(h) : "l"(p));
    w[0] = h;
  } else {
    load_stream<VEC_BYTES / 4>(w, p);
  }
}

/// Element `i` of the vector of T held in the words `w`, as f32.
template <class T, int WORDS>
__device__ __forceinline__ float element(const unsigned (&w)[WORDS], int i) {
  if constexpr (sizeof(T) == 4) {
    return __int_as_float(static_cast<int>(w[i]));
  } else {
    const unsigned half = i % 2 ? w[i / 2] >> 16 : w[i / 2] & 0xffffu;
    T x;
    x.bits = static_cast<unsigned short>(half);
    return to_float(x);
  }
}

/// The kernel's types and launch bounds for one tile, GEMM types and epilogue.
template <class Tile, class Gemm, class Epi>
struct GemvKernelOf {
  static_assert(GemvGuard<Tile>::ok, "invalid gemv config");
  using A = typename Gemm::A;
  using B = typename Gemm::B;
  using Bias = typename Gemm::Bias;
  using C = typename Gemm::C;
  static constexpr int kThreads = Tile::config.threads();
};

}  // namespace gemv_detail

/// The mainloop: acc[m][e] = sum over the warp's chunk of K rows k of A[m0+m][k] · B[k][col+e],
/// the chunk being warp w's contiguous share of [k_begin, k_end). B is the thread's column
/// pointer (row 0), a_row[m] the offset of row m0+m of A (clamped into A).
template <class Tile, class Gemm>
struct GemvMainloop {
  static constexpr GemvConfig cfg = Tile::config;
  using AT = typename Gemm::A;
  using BT = typename Gemm::B;
  static constexpr int MR = cfg.mr, U = cfg.unroll, R = cfg.rows_per_load();
  static constexpr int WORDS = (cfg.vec_bytes + 3) / 4;
  static constexpr int E = cfg.lane_columns(static_cast<int>(sizeof(BT)));
  static constexpr int STEP = cfg.step_rows();
  static_assert(E >= 1, "gemv config: vec_bytes 2 loads one bf16/f16 element; f32 storage needs vec_bytes >= 4");

  /// One step of R·UNROLL rows from k: the UNROLL loads first (all in flight together), then
  /// the FMAs. TAIL predicates rows at or past `end` (they add nothing).
  template <bool TAIL>
  __device__ __forceinline__ static void step(const AT* __restrict__ A, const BT* __restrict__ b_col, int N,
                                              const int (&a_row)[MR], int k, int end, float (&acc)[MR][E]) {
    unsigned w[U][WORDS];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int row = k + u * R;
      if (!TAIL || row < end) {
        gemv_detail::load_b<cfg.vec_bytes>(w[u], b_col + row * N);
      } else {
#pragma unroll
        for (int i = 0; i < WORDS; ++i) w[u][i] = 0u;
      }
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int row = k + u * R;
      if (TAIL && row >= end) continue;
#pragma unroll
      for (int m = 0; m < MR; ++m) {
        const float a = to_float(A[a_row[m] + row]);
#pragma unroll
        for (int e = 0; e < E; ++e) acc[m][e] = fmaf(a, gemv_detail::element<BT, WORDS>(w[u], e), acc[m][e]);
      }
    }
  }

  __device__ __forceinline__ static void run(const AT* __restrict__ A, const BT* __restrict__ b_col, int N,
                                             const int (&a_row)[MR], int k_begin, int k_end, int warp,
                                             int sub_row, float (&acc)[MR][E]) {
    const int begin = k_begin + warp * warp_chunk(k_begin, k_end);
    const int end = min(k_end, begin + warp_chunk(k_begin, k_end));
    int k = begin + sub_row;
    for (; k + (U - 1) * R < end; k += STEP) step<false>(A, b_col, N, a_row, k, end, acc);
    if (k < end) step<true>(A, b_col, N, a_row, k, end, acc);
  }

  /// Rows of K per warp: whole steps, so every warp but the last walks full steps only.
  __device__ __forceinline__ static int warp_chunk(int k_begin, int k_end) {
    return (k_end - k_begin + cfg.warps * STEP - 1) / (cfg.warps * STEP) * STEP;
  }
};

/// The mainloop with A staged (GemvConfig::stages_a(), MR > 16): the same sums in the same order
/// as GemvMainloop, acc[m][e] = sum over the warp's chunk of A[m0+m][k] · B[k][col+e], but each
/// step the warp first copies its slice of A, stage[r][m] = A[min(m0+m, M-1)][ks+r] as f32 for
/// the step's rows ks + r (zero past `end`), into its own shared memory, and a thread then reads
/// A[m..m+3][k] with one 16-byte load. Steps start at warp-uniform rows ks, so the whole warp
/// stages and synchronizes together.
template <class Tile, class Gemm>
struct GemvStagedMainloop {
  static constexpr GemvConfig cfg = Tile::config;
  using AT = typename Gemm::A;
  using BT = typename Gemm::B;
  using Unstaged = GemvMainloop<Tile, Gemm>;
  static constexpr int MR = cfg.mr, U = cfg.unroll, R = cfg.rows_per_load();
  static constexpr int WORDS = (cfg.vec_bytes + 3) / 4;
  static constexpr int E = Unstaged::E;
  static constexpr int STEP = cfg.step_rows();
  static constexpr int ROW = cfg.stage_row_floats();
  static_assert(MR % 4 == 0, "staged A is read 4 rows of C at a time (GemvConfig::check)");

  /// One step of the warp from row ks: the UNROLL loads of B first, then the stage of A (its
  /// global loads in flight with B's), then the FMAs. TAIL predicates rows at or past `end`.
  template <bool TAIL>
  __device__ __forceinline__ static void step(const AT* __restrict__ A, const BT* __restrict__ b_col, int N,
                                              int a_first_row, int a_last_row, int K, float* stage, int lane,
                                              int sub_row, int ks, int end, float (&acc)[MR][E]) {
    unsigned w[U][WORDS];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int row = ks + sub_row + u * R;
      if (!TAIL || row < end) {
        gemv_detail::load_b<cfg.vec_bytes>(w[u], b_col + row * N);
      } else {
#pragma unroll
        for (int i = 0; i < WORDS; ++i) w[u][i] = 0u;
      }
    }
    // The previous step's reads of the stage are done before it is overwritten.
    __syncwarp();
#pragma unroll
    for (int j0 = 0; j0 < MR * STEP; j0 += 32) {
      const int j = j0 + lane, m = j / STEP, r = j % STEP;
      if (MR * STEP % 32 == 0 || j < MR * STEP) {
        const int a_row = min(a_first_row + m, a_last_row);
        stage[r * ROW + m] = !TAIL || ks + r < end ? to_float(A[a_row * K + ks + r]) : 0.0f;
      }
    }
    __syncwarp();
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int r = sub_row + u * R;
      if (TAIL && ks + r >= end) continue;
#pragma unroll
      for (int m = 0; m < MR; m += 4) {
        const float4 a = *reinterpret_cast<const float4*>(stage + r * ROW + m);
#pragma unroll
        for (int e = 0; e < E; ++e) {
          const float b = gemv_detail::element<BT, WORDS>(w[u], e);
          acc[m][e] = fmaf(a.x, b, acc[m][e]);
          acc[m + 1][e] = fmaf(a.y, b, acc[m + 1][e]);
          acc[m + 2][e] = fmaf(a.z, b, acc[m + 2][e]);
          acc[m + 3][e] = fmaf(a.w, b, acc[m + 3][e]);
        }
      }
    }
  }

  /// Rows of A past M (a_last_row = M - 1) read row M - 1, as the unstaged loop's clamped rows.
  __device__ __forceinline__ static void run(const AT* __restrict__ A, const BT* __restrict__ b_col, int N,
                                             int a_first_row, int a_last_row, int K, float* stage, int k_begin,
                                             int k_end, int warp, int lane, int sub_row, float (&acc)[MR][E]) {
    const int begin = k_begin + warp * Unstaged::warp_chunk(k_begin, k_end);
    const int end = min(k_end, begin + Unstaged::warp_chunk(k_begin, k_end));
    int ks = begin;
    for (; ks + STEP <= end; ks += STEP)
      step<false>(A, b_col, N, a_first_row, a_last_row, K, stage, lane, sub_row, ks, end, acc);
    if (ks < end) step<true>(A, b_col, N, a_first_row, a_last_row, K, stage, lane, sub_row, ks, end, acc);
  }
};

/// The kernel body. Launch with Family::geometry(): grid (column strips, row groups, K slices),
/// cfg.threads() threads, cfg.smem_bytes(sizeof element) of dynamic shared memory. `residual`
/// (M×N in C's type) is read only by an epilogue that adds one (kernels/core/epilogues.hpp); it is
/// the last parameter, so kernels of other epilogues keep their code (scripts/epilogue_cubin_ab.py).
template <class Tile, class Gemm, class Epi>
__device__ __forceinline__ void gemv_gemm_device(const typename Gemm::A* __restrict__ A,
                                                 const typename Gemm::B* __restrict__ B,
                                                 const typename Gemm::Bias* __restrict__ bias,
                                                 typename Gemm::C* __restrict__ C, int M, int N, int K,
                                                 const typename Gemm::C* __restrict__ residual) {
  static_assert(gemv_detail::GemvGuard<Tile>::ok, "invalid gemv config");
  using Loop = GemvMainloop<Tile, Gemm>;
  using CT = typename Gemm::C;
  constexpr GemvConfig cfg = Tile::config;
  constexpr int MR = cfg.mr, E = Loop::E, LANES = cfg.lanes, WARPS = cfg.warps;
  constexpr int STRIP = LANES * E;
  extern __shared__ __align__(16) float gemv_smem[];

  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int sub_row = lane / LANES, lane_col = lane % LANES;
  const int n0 = blockIdx.x * STRIP, m0 = blockIdx.y * MR;
  // A strip past N reads the last vector of the row instead (never stored): no predicate in the
  // mainloop. Likewise rows of C past M read row M-1 of A.
  const int col = min(n0 + lane_col * E, N - E);

  int k_begin = 0, k_end = K;
  if constexpr (cfg.split > 1) {
    const int per_slice = (K + gridDim.z - 1) / gridDim.z;
    k_begin = min(K, static_cast<int>(blockIdx.z) * per_slice);
    k_end = min(K, k_begin + per_slice);
  }

  float acc[MR][E];
#pragma unroll
  for (int m = 0; m < MR; ++m)
#pragma unroll
    for (int e = 0; e < E; ++e) acc[m][e] = 0.0f;
  if constexpr (cfg.stages_a()) {
    float* stage = gemv_smem + WARPS * MR * STRIP + warp * cfg.stage_floats();
    GemvStagedMainloop<Tile, Gemm>::run(A, B + col, N, m0, M - 1, K, stage, k_begin, k_end, warp, lane, sub_row,
                                        acc);
  } else {
    int a_row[MR];
#pragma unroll
    for (int m = 0; m < MR; ++m) a_row[m] = min(m0 + m, M - 1) * K;
    Loop::run(A, B + col, N, a_row, k_begin, k_end, warp, sub_row, acc);
  }

  // The R lanes holding the same columns: a butterfly over the lane bits above LANES.
#pragma unroll
  for (int offset = LANES; offset < 32; offset *= 2)
#pragma unroll
    for (int m = 0; m < MR; ++m)
#pragma unroll
      for (int e = 0; e < E; ++e) acc[m][e] += __shfl_xor_sync(0xffffffffu, acc[m][e], offset);

  // The warps' partials: [warp][m][column of the strip], added in warp order below.
  if (sub_row == 0) {
#pragma unroll
    for (int m = 0; m < MR; ++m)
#pragma unroll
      for (int e = 0; e < E; ++e) gemv_smem[(warp * MR + m) * STRIP + lane_col * E + e] = acc[m][e];
  }
  __syncthreads();

  if constexpr (Epi::kGated && cfg.split == 1) {
    // A gated epilogue: columns c, c + 1 of the strip (c even; the strip and n0 are even) are a
    // (gate, up) pair, stored as act(gate) · up at column (n0 + c)/2 of C's N/2. N is even, so
    // n0 + c < N means n0 + c + 1 < N. Each sum in warp order, as below.
    constexpr int PAIRS = STRIP / 2;
    const int ldc = N / 2;
    for (int i = tid; i < MR * PAIRS; i += WARPS * 32) {
      const int m = i / PAIRS, c = 2 * (i % PAIRS);
      const int row = m0 + m, column = n0 + c;
      if (row >= M || column >= N) continue;
      const int at = m * STRIP + c;
      float gate = gemv_smem[at], up = gemv_smem[at + 1];
#pragma unroll
      for (int w = 1; w < WARPS; ++w) {
        gate += gemv_smem[w * MR * STRIP + at];
        up += gemv_smem[w * MR * STRIP + at + 1];
      }
      C[static_cast<long long>(row) * ldc + column / 2] = from_float<CT>(Epi::gate(gate, up));
    }
    return;
  }
  float* partials = reinterpret_cast<float*>(C) + static_cast<long long>(blockIdx.z) * M * N;
  for (int i = tid; i < MR * STRIP; i += WARPS * 32) {
    const int m = i / STRIP, c = i % STRIP;
    const int row = m0 + m, column = n0 + c;
    if (row >= M || column >= N) continue;
    float sum = gemv_smem[i];
#pragma unroll
    for (int w = 1; w < WARPS; ++w) sum += gemv_smem[w * MR * STRIP + i];
    const long long at = static_cast<long long>(row) * N + column;
    if constexpr (cfg.split > 1) {
      partials[at] = sum;
    } else {
      const float b = Epi::kUsesBias ? to_float(bias[column]) : 0.0f;
      C[at] = from_float<CT>(epilogue_value<Epi>(sum, b, residual, at));
    }
  }
}

/// The kernel for nvcc-compiled instantiations (tests).
template <class Tile, class Gemm, class Epi>
__global__ void __launch_bounds__(gemv_detail::GemvKernelOf<Tile, Gemm, Epi>::kThreads)
    gemv_gemm_kernel(const typename Gemm::A* __restrict__ A, const typename Gemm::B* __restrict__ B,
                     const typename Gemm::Bias* __restrict__ bias, typename Gemm::C* __restrict__ C, int M, int N,
                     int K, const typename Gemm::C* __restrict__ residual) {
  gemv_gemm_device<Tile, Gemm, Epi>(A, B, bias, C, M, N, K, residual);
}

}  // namespace coalesce

/// Defines `extern "C" __global__ void SYMBOL(A, B, bias, C, M, N, K, residual)` for one tile, GEMM types
/// and epilogue, with the dtype's storage types in its signature:
/// COALESCE_DEFINE_GEMV_KERNEL(symbol, coalesce::GemvTile<...>, coalesce::GemmOf<coalesce::Dtype::bf16>,
/// coalesce::EpilogueX). Variadic because the tile type's template arguments contain commas.
#define COALESCE_DEFINE_GEMV_KERNEL(SYMBOL, ...)                                                              \
  extern "C" __global__ void __launch_bounds__(::coalesce::gemv_detail::GemvKernelOf<__VA_ARGS__>::kThreads) \
      SYMBOL(const ::coalesce::gemv_detail::GemvKernelOf<__VA_ARGS__>::A* __restrict__ A,                     \
             const ::coalesce::gemv_detail::GemvKernelOf<__VA_ARGS__>::B* __restrict__ B,                     \
             const ::coalesce::gemv_detail::GemvKernelOf<__VA_ARGS__>::Bias* __restrict__ bias,               \
             ::coalesce::gemv_detail::GemvKernelOf<__VA_ARGS__>::C* __restrict__ C, int M, int N, int K,      \
             const ::coalesce::gemv_detail::GemvKernelOf<__VA_ARGS__>::C* __restrict__ residual) {            \
    ::coalesce::gemv_gemm_device<__VA_ARGS__>(A, B, bias, C, M, N, K, residual);                             \
  }
