// The `simt` family: FP32 GEMM on the CUDA cores with a fused epilogue,
//   C[m][n] = Epi(sum_k A[m][k] * B[k][n], bias[n])      A: M×K, B: K×N, C: M×N, row-major.
//
// One block computes a BM×BN tile of C; its warps split it into WM×WN warp tiles and each thread
// owns TM×TN accumulators (siboehm's warptiling SGEMM, CUTLASS's SIMT mainloop). K is walked in
// BK-wide slices through a STAGES-deep shared-memory ring filled with cp.async, so the copy of
// slice k+STAGES-1 overlaps the arithmetic on slice k. A is stored transposed ([BK][BM]) so
// that, for every k, a thread reads its TM values of A and its TN values of B with 16-byte
// shared-memory reads: (TM+TN)/4 reads per TM*TN FMAs. Edges are predicated: any M, N, K works
// as long as VEC divides N (SimtConfig::check_problem).
//
// Layered as CUTLASS 3's GemmUniversal: the tile scheduler picks the block's output tile
// (kernels/core/tile_scheduler.cuh), SimtMainloop accumulates it in registers, and
// simt_store_tile applies the fused epilogue (kernels/core/epilogue.cuh) and stores C once.
//
// Device-safe: compiles under nvcc and NVRTC (no standard headers).
#pragma once

#include "kernels/core/epilogue.cuh"
#include "kernels/core/tile_scheduler.cuh"
#include "kernels/simt/config.hpp"

namespace coalesce {

/// A simt config as a type, so the kernel is specialized on every tile parameter. Every
/// family's tile type offers the same launch contract (threads, shared memory, grid,
/// check_problem, K slices), which the runtime's host entries use (compiler/runtime/fused_entry.cuh).
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES, int VEC, int GROUP_M,
          int MIN_BLOCKS, int SPLIT = 1, int INDEX_BITS = 32>
struct SimtTile {
  static constexpr SimtConfig config{BM, BN, BK, WM, WN, TM, TN, STAGES, VEC, GROUP_M, MIN_BLOCKS, SPLIT, INDEX_BITS};
  static constexpr int kThreads = config.threads();
  static constexpr int kSmemBytes = config.smem_bytes();
  /// Split-K's slices, the grid's z extent (the kernel reads the factor from gridDim.z).
  static constexpr int kSplit = config.split;
  /// Blocks of the 1-D grid (the kernel rasterizes them itself). Host-side, like the rules below.
  static constexpr long long grid_blocks(int m, int n) {
    return static_cast<long long>((m + BM - 1) / BM) * ((n + BN - 1) / BN);
  }
  static constexpr Verdict check_problem(int m, int n, int k) { return config.check_problem(m, n, k); }
  static constexpr Verdict check_device(const DeviceLimits& limits) { return config.check(limits); }
};

namespace detail {

/// The integer type of element offsets for SimtConfig::index_bits (no <type_traits> under NVRTC).
template <int BITS>
struct SimtIndex {
  using type = int;
};
template <>
struct SimtIndex<64> {
  using type = long long;
};

/// cp.async of BYTES (4, 8 or 16) from global to shared memory; when `pred` is false nothing is
/// read and the destination is zero-filled (src-size 0), which is how edges are predicated.
template <int BYTES>
__device__ __forceinline__ void cp_async(float* smem, const float* gmem, bool pred) {
  unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  int src_bytes = pred ? BYTES : 0;
  if constexpr (BYTES == 16) {
    // .cg: bypass L1, the tile is read once per block from L2.
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem), "r"(src_bytes));
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(dst), "l"(gmem), "n"(BYTES),
                 "r"(src_bytes));
  }
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

/// The messaged compile-time guard: every category of SimtConfig::check() gets its sentence.
template <class Tile>
struct SimtGuard {
  static constexpr Violation kViolation = Tile::config.check().violation;
  static_assert(kViolation != Violation::shape,
                "simt config: a tile side, stages (2..8), vec (1, 2, 4) or group_m is out of range");
  static_assert(kViolation != Violation::divisibility,
                "simt config: warp tile must divide block tile, thread tile must divide warp tile, "
                "TM, TN and BK must be multiples of 4, vec must divide BN");
  static_assert(kViolation != Violation::threads,
                "simt config: a warp tile must hold 32 thread tiles and the threads must split the "
                "A and B tiles into equal copies");
  static constexpr bool ok = kViolation == Violation::none;
};

/// __launch_bounds__ arguments of a tile (threads, and min_blocks to cap registers).
template <class Tile, class Epi>
struct SimtBounds {
  static_assert(SimtGuard<Tile>::ok, "invalid simt config");
  static constexpr int threads = Tile::config.threads();
  static constexpr int min_blocks = Tile::config.min_blocks;
};

}  // namespace detail

/// Where a thread's TM×TN fragment lies in the block tile. A thread's rows and columns are
/// groups of 4 strided by LANES_*·4, so consecutive lanes read consecutive 16-byte chunks of a
/// shared-memory row (no bank conflicts: a warp's 32 lanes read 512 contiguous bytes).
template <class Tile>
struct SimtFragment {
  static constexpr SimtConfig cfg = Tile::config;
  static constexpr int LANES_N = cfg.wn / cfg.tn;  ///< thread tiles across a warp tile's columns
  static constexpr int LANES_M = cfg.wm / cfg.tm;  ///< ... and down its rows
  int row0, col0;  ///< the first row and column of the fragment in the block tile
  __device__ __forceinline__ static SimtFragment of(int tid) {
    const int warp = tid / 32, lane = tid % 32;
    const int warp_m = warp / (cfg.bn / cfg.wn), warp_n = warp % (cfg.bn / cfg.wn);
    const int lane_m = lane / LANES_N, lane_n = lane % LANES_N;
    return {warp_m * cfg.wm + lane_m * 4, warp_n * cfg.wn + lane_n * 4};
  }
};

/// The mainloop: acc = A[m0.., :] · B[:, n0..] for one thread's fragment, walking the BK-wide
/// slices kt_begin <= kt < kt_end of K (all of K, or split-K's share) through a STAGES-deep
/// cp.async ring in `smem`, then `epilogue(acc)`. The accumulators
/// live here, declared after the copy addresses are set up: the order the kernel's first version
/// had, for which ptxas allocates 201 registers on the 4096^3 winner (declared by the caller and
/// passed in, the same instructions get 203).
template <class Tile>
struct SimtMainloop {
  static constexpr SimtConfig cfg = Tile::config;
  static constexpr int BM = cfg.bm, BN = cfg.bn, BK = cfg.bk, TM = cfg.tm, TN = cfg.tn;
  static constexpr int STAGES = cfg.stages, VEC = cfg.vec, THREADS = cfg.threads();
  static constexpr int AS = cfg.a_stride(), BS = cfg.b_stride(), STAGE = cfg.stage_floats();

  template <class Epilogue>
  __device__ __forceinline__ static void run(const float* __restrict__ A, const float* __restrict__ B, int M,
                                             int N, int K, int m0, int n0, int kt_begin, int kt_end, int tid,
                                             const SimtFragment<Tile>& frag, float* smem, Epilogue&& epilogue) {
    constexpr int LANES_N = SimtFragment<Tile>::LANES_N, LANES_M = SimtFragment<Tile>::LANES_M;
    constexpr int CHUNKS_M = TM / 4;          // a thread's rows and columns come in groups of 4
    constexpr int CHUNKS_N = TN / 4;
    constexpr int A_COPIES = BM * BK / THREADS;  // A is copied 4 bytes at a time (transposing)
    constexpr int B_COPIES = BK * BN / (THREADS * VEC);

    // Copies. A element (m, k) goes to As[k][m]: consecutive threads read consecutive k of a
    // row of A (coalesced) and write down a column of As, whose row stride BM+4 spreads them
    // over the banks (at most 2-way for BK=16). A thread's A copies are rows a_m + i*A_RSTEP of
    // column a_k; its B copies are VEC wide at row b_r + (i/B_Q)*B_RSTEP, column b_c +
    // (i%B_Q)*TV. Every index below is a compile-time offset from a base fixed at entry: the
    // first version of this kernel recomputed them per copy and spent ~10% of its issue slots
    // there (ncu, 4096^3). A copy outside the matrix has src-size 0: nothing is read and shared
    // memory gets zeros (PTX cp.async "zfill"), so its address is never dereferenced. VEC
    // divides N, so a B copy is wholly inside or wholly outside. Offsets that grow with the
    // matrices are Index: 32-bit, or 64-bit where a matrix has 2^31 elements or more
    // (SimtConfig::index_bits, which check_problem() ties to the problem).
    using Index = typename detail::SimtIndex<cfg.index_bits>::type;
    constexpr int A_RSTEP = THREADS / BK;
    constexpr int TV = THREADS * VEC;
    constexpr int B_Q = TV >= BN ? 1 : BN / TV;
    constexpr int B_RSTEP = TV >= BN ? TV / BN : 1;
    const int a_m = tid / BK, a_k = tid % BK;
    const int a_rows_left = M - m0 - a_m;
    const float* a_ptr = A + static_cast<long long>(m0 + a_m) * K + a_k;
    const int a_dst = a_k * AS + a_m;
    const int b_r = (tid * VEC) / BN, b_c = (tid * VEC) % BN;
    const int b_cols_left = N - n0 - b_c;
    const float* b_ptr = B + static_cast<long long>(b_r) * N + n0 + b_c;
    const int b_dst = BK * AS + b_r * BS + b_c;

    auto load_slice = [&](int slot, int kt) {
      const int k0 = kt * BK;
      float* base = smem + slot * STAGE;
      const bool a_k_ok = k0 + a_k < K;
      const float* a_src = a_ptr + k0;
#pragma unroll
      for (int i = 0; i < A_COPIES; ++i) {
        const bool ok = a_k_ok && i * A_RSTEP < a_rows_left;
        detail::cp_async<4>(base + a_dst + i * A_RSTEP, a_src + static_cast<Index>(i * A_RSTEP) * K, ok);
      }
      const float* b_src = b_ptr + static_cast<Index>(k0) * N;
#pragma unroll
      for (int i = 0; i < B_COPIES; ++i) {
        const int rr = (i / B_Q) * B_RSTEP, cc = (i % B_Q) * TV;
        const bool ok = k0 + b_r + rr < K && cc < b_cols_left;
        detail::cp_async<VEC * 4>(base + b_dst + rr * BS + cc, b_src + rr * N + cc, ok);
      }
    };

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

    // kt counts this block's slices from 0; slice kt of the block is slice kt_begin + kt of K.
    const int k_slices = kt_end - kt_begin;
    // Prologue: STAGES-1 slices in flight. Every iteration commits exactly one group (possibly
    // empty), so "wait until at most STAGES-2 groups are pending" always means "slice kt landed".
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
      if (s < k_slices) load_slice(s, kt_begin + s);
      detail::cp_async_commit();
    }

    for (int kt = 0; kt < k_slices; ++kt) {
      detail::cp_async_wait<STAGES - 2>();
      // One barrier per slice: slice kt is visible to all threads, and every thread has
      // finished reading slot (kt-1) % STAGES, which the copy issued next overwrites.
      __syncthreads();
      const int next = kt + STAGES - 1;
      if (next < k_slices) load_slice(next % STAGES, kt_begin + next);
      detail::cp_async_commit();

      const float* As = smem + (kt % STAGES) * STAGE;
      const float* Bs = As + BK * AS;
#pragma unroll
      for (int k = 0; k < BK; ++k) {
        float a[TM], b[TN];
#pragma unroll
        for (int i = 0; i < CHUNKS_M; ++i) {
          float4 v = *reinterpret_cast<const float4*>(As + k * AS + frag.row0 + i * LANES_M * 4);
          a[4 * i + 0] = v.x;
          a[4 * i + 1] = v.y;
          a[4 * i + 2] = v.z;
          a[4 * i + 3] = v.w;
        }
#pragma unroll
        for (int j = 0; j < CHUNKS_N; ++j) {
          float4 v = *reinterpret_cast<const float4*>(Bs + k * BS + frag.col0 + j * LANES_N * 4);
          b[4 * j + 0] = v.x;
          b[4 * j + 1] = v.y;
          b[4 * j + 2] = v.z;
          b[4 * j + 3] = v.w;
        }
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
          for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
      }
    }
    // Drain: no copy may still target shared memory when the block exits.
    detail::cp_async_wait<0>();
    epilogue(acc);
  }
};

/// The epilogue store: C = Epi(acc, bias[n]) in registers, then the one store of C (16 bytes
/// at a time where rows allow), predicated at the matrix edges.
template <class Tile, class Epi>
__device__ __forceinline__ void simt_store_tile(const float (&acc)[Tile::config.tm][Tile::config.tn],
                                                const float* __restrict__ bias, float* __restrict__ C, int M,
                                                int N, int m0, int n0, const SimtFragment<Tile>& frag) {
  constexpr int TM = Tile::config.tm, TN = Tile::config.tn;
  constexpr int LANES_N = SimtFragment<Tile>::LANES_N, LANES_M = SimtFragment<Tile>::LANES_M;
  constexpr int CHUNKS_N = TN / 4;
  float bias_frag[TN];
#pragma unroll
  for (int j = 0; j < CHUNKS_N; ++j)
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      const int col = n0 + frag.col0 + j * LANES_N * 4 + c;
      bias_frag[4 * j + c] = (Epi::kUsesBias && col < N) ? bias[col] : 0.0f;
    }
  const bool rows_aligned = (N % 4) == 0;
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = m0 + frag.row0 + (i / 4) * LANES_M * 4 + i % 4;
    if (row >= M) continue;
    float* c_row = C + static_cast<typename detail::SimtIndex<Tile::config.index_bits>::type>(row) * N;
#pragma unroll
    for (int j = 0; j < CHUNKS_N; ++j) {
      const int col = n0 + frag.col0 + j * LANES_N * 4;
      float v[4];
#pragma unroll
      for (int c = 0; c < 4; ++c) v[c] = Epi::apply(acc[i][4 * j + c], bias_frag[4 * j + c]);
      if (rows_aligned && col + 3 < N) {
        *reinterpret_cast<float4*>(c_row + col) = make_float4(v[0], v[1], v[2], v[3]);
      } else {
#pragma unroll
        for (int c = 0; c < 4; ++c)
          if (col + c < N) c_row[col + c] = v[c];
      }
    }
  }
}

/// The kernel body: scheduler, mainloop, epilogue store. Launch with grid =
/// Tile::grid_blocks(M, N) blocks in x, cfg.threads() threads and cfg.smem_bytes() of dynamic
/// shared memory. Split-K (cfg.split > 1; kernels/core/family.hpp, kSplitParam): gridDim.z
/// slices of K, block z summing its even share of the BK-deep steps and storing the raw sums
/// into C + z·M·N (C is then the f32 partials workspace; the reduce applies the epilogue).
template <class Tile, class Epi>
__device__ __forceinline__ void simt_gemm_device(const float* __restrict__ A, const float* __restrict__ B,
                                                 const float* __restrict__ bias, float* __restrict__ C,
                                                 int M, int N, int K) {
  static_assert(detail::SimtGuard<Tile>::ok, "invalid simt config");
  static_assert(!Epi::kGated, "the simt family stores no gated epilogue (Family::stores_gated)");
  constexpr SimtConfig cfg = Tile::config;
  extern __shared__ __align__(16) float smem[];

  const int tiles_m = (M + cfg.bm - 1) / cfg.bm;
  const int tiles_n = (N + cfg.bn - 1) / cfg.bn;
  const int pid = blockIdx.x;
  const TileCoord tile = grouped_tile<cfg.group_m>(pid, tiles_m, tiles_n);
  const int m0 = tile.m * cfg.bm;
  const int n0 = tile.n * cfg.bn;
  const int tid = threadIdx.x;
  const SimtFragment<Tile> frag = SimtFragment<Tile>::of(tid);

  const int k_steps = (K + cfg.bk - 1) / cfg.bk;
  if constexpr (cfg.split > 1) {
    const int per_slice = (k_steps + gridDim.z - 1) / gridDim.z;
    const int kt_begin = min(k_steps, static_cast<int>(blockIdx.z) * per_slice);
    const int kt_end = min(k_steps, kt_begin + per_slice);
    float* partial = C + static_cast<long long>(blockIdx.z) * M * N;
    SimtMainloop<Tile>::run(A, B, M, N, K, m0, n0, kt_begin, kt_end, tid, frag, smem,
                            [&](const float (&acc)[Tile::config.tm][Tile::config.tn]) {
                              simt_store_tile<Tile, EpilogueNone>(acc, bias, partial, M, N, m0, n0, frag);
                            });
  } else {
    SimtMainloop<Tile>::run(A, B, M, N, K, m0, n0, 0, k_steps, tid, frag, smem,
                            [&](const float (&acc)[Tile::config.tm][Tile::config.tn]) {
                              simt_store_tile<Tile, Epi>(acc, bias, C, M, N, m0, n0, frag);
                            });
  }
}

/// The kernel for nvcc-compiled instantiations (tests, bench, runtime library).
template <class Tile, class Epi>
__global__ void __launch_bounds__(detail::SimtBounds<Tile, Epi>::threads, detail::SimtBounds<Tile, Epi>::min_blocks)
    simt_gemm_kernel(const float* __restrict__ A, const float* __restrict__ B, const float* __restrict__ bias,
                     float* __restrict__ C, int M, int N, int K) {
  simt_gemm_device<Tile, Epi>(A, B, bias, C, M, N, K);
}

}  // namespace coalesce

/// Defines `extern "C" __global__ void SYMBOL(A, B, bias, C, M, N, K)` for one tile and
/// epilogue: COALESCE_DEFINE_SIMT_KERNEL(symbol, coalesce::SimtTile<...>, coalesce::EpilogueX).
/// Variadic because the tile type's template arguments contain commas.
#define COALESCE_DEFINE_SIMT_KERNEL(SYMBOL, ...)                                                       \
  extern "C" __global__ void __launch_bounds__(::coalesce::detail::SimtBounds<__VA_ARGS__>::threads,  \
                                               ::coalesce::detail::SimtBounds<__VA_ARGS__>::min_blocks) \
      SYMBOL(const float* __restrict__ A, const float* __restrict__ B, const float* __restrict__ bias, \
             float* __restrict__ C, int M, int N, int K) {                                            \
    ::coalesce::simt_gemm_device<__VA_ARGS__>(A, B, bias, C, M, N, K);                                \
  }
