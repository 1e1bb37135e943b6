// The `wgmma` family: GEMM on Hopper's warpgroup tensor cores with a fused epilogue,
//   C[m][n] = Epi(sum_k A[m][k] * B[k][n], bias[n])      A: M×K, B: K×N, C: M×N, row-major,
// bf16 or f16 in memory, f32 accumulation and epilogue, one rounding on the store of C; or tf32
// (f32 in memory, TF32 multiplies) through the transposed tile described below.
//
// A block of 1 + CONSUMERS warpgroups computes BM×BN tiles of C (CUTLASS 3's warp-specialized
// kernel, the "fast.cu" series' design):
//
//   producer warpgroup (one thread)          consumer warpgroup w (w = 0, 1)
//   for each tile, each K slice kb:          for each tile, each K slice kb:
//     wait empty[s] (parity ph^1)              wait full[s] (parity ph)
//     full[s].arrive.expect_tx(bytes)          wgmma.fence
//     TMA A[m0.., kb] -> ring[s].A             4 × wgmma m64nBNk16 per 64 rows it owns
//     TMA B[kb, n0..] -> ring[s].B             wgmma.commit_group; wgmma.wait_group 1
//   (s, ph) walk the ring: s+1, ph flips       empty[s-1].arrive (one thread of w)
//   when s wraps                             wgmma.wait_group 0; empty[s].arrive
//                                            epilogue: registers -> C (or -> smem -> TMA store)
//
// The ring holds STAGES slots of A (BM rows × 64 k) and B (64 k × BN) in 128-byte-swizzled
// shared memory, each guarded by a `full` mbarrier (1 arrival + the TMA bytes) and an `empty`
// mbarrier (one arrival per consumer warpgroup). Both sides walk the same sequence of
// (tile, kb) and so the same (slot, phase) pairs; phases continue across tiles, so a persistent
// block's producer fills the next tile's slots while the consumers run the epilogue. Edges need
// no code in the mainloop: TMA writes zeros for elements outside A and B, and the epilogue
// predicates C (the TMA store clips it).
//
// Ping-pong (cfg.pingpong): the two consumers take the block's tiles in turn (consumer 0 the
// block's 1st, 3rd, ... tile, consumer 1 the 2nd, 4th, ...), each multiplying a whole BM×BN tile.
// The producer still loads tile after tile into the one ring, so the ring orders the consumers'
// main loops: consumer 1 gets its first slice only as consumer 0's last slices are released, and
// while one consumer runs its epilogue the other's wgmmas keep the tensor cores busy (CUTLASS
// 3's "ping-pong" kernel schedule). Each slot then has one consumer: `empty` counts one arrival,
// and a consumer steps its ring cursor over the other's slices without waiting on them. A
// consumer starts a tile's main loop only once the other has received the last slice of the tile
// before (a named barrier, arrive by one consumer and sync by the other): the ring's own order is
// not enough, because a parity wait on a `full` barrier two phases behind passes at once, and a
// consumer that skipped a tile's slices would otherwise wait on slots the producer has not
// reached by two or more fills.
//
// Epilogue warps (cfg.epilogue_slots > 0): the consumers hand each tile's raw f32 sums, 64
// columns at a time, through shared-memory slots (full/empty mbarriers of their own) to the
// producer warpgroup's warps 1..3, which apply the epilogue, round in place and store C with TMA
// while the consumers multiply the next tile (wgmma_hand_off, wgmma_epilogue_warps).
//
// Split-K (cfg.split > 1; kernels/core/family.hpp, kSplitParam): the grid's z extent is the
// number of K slices, and both sides walk only block z's share of the K steps (wgmma_k_steps),
// so they still agree on every (slot, phase). The consumers store the raw f32 sums, without
// bias or activation, into the partials workspace (the kernel's own argument); the harness's
// reduce adds the slices and applies the epilogue, or with reduce = 1 the last block of each
// tile does (wgmma_reduce_in_kernel).
//
// Stream-K (cfg.stream_k > 0; kernels/core/family.hpp kStreamKParam): the persistent grid first
// shares the K steps of the tiles that would make its last, partial wave (WgmmaStreamK, the
// first tiles of the walk) evenly among its blocks, then takes the other tiles whole
// (WgmmaWork). A block whose range ends inside a tile holds that tile's first K steps; the
// blocks whose ranges start inside it store their sums into their workspace slots and raise
// their flags (wgmma_stream_k_store), and the first block adds them in block order before its
// epilogue (wgmma_stream_k_fixup).
//
// tf32 (BK = 32; WgmmaConfig's comment): wgmma reads tf32 shared-memory operands only K-major,
// and B's slot is N-major, so each consumer multiplies the transposed tile, C^T = B^T A^T. Its
// wgmma A operand is B^T: 64 columns of the tile's B slot per m64 block, read into registers
// with 32-bit shared loads (the m64nNk8 A fragment); its B operand is the A slot, K-major as TMA
// wrote it, all BM rows (wgmma's N = BM). The producer and the ring are the 16-bit kernel's with
// 32-column B chunks. A K slice is two groups of two k8 steps, each with its own fragment
// registers: a group's loads wait (wgmma.wait_group 1) only for the group before the last, so
// they never overwrite registers a pending wgmma reads. The epilogue stores C^T's accumulators
// into C directly, one f32 per element (wgmma_store_transposed).
//
// Device-safe: compiles under nvcc and NVRTC (no standard headers), for sm_90a only.
#pragma once

#include "kernels/core/epilogue.cuh"
#include "kernels/core/numeric.cuh"
#include "kernels/core/tensor_map.hpp"
#include "kernels/core/tile_scheduler.cuh"
#include "kernels/wgmma/config.hpp"
#include "kernels/wgmma/ops.cuh"
#include "kernels/wgmma/ptx.cuh"

namespace coalesce {

#ifdef COALESCE_WGMMA_STAMPS
/// kWgmmaStampPhases: where block b stamps its phases, [b * kPhaseSlots + phase] (set by the
/// phases test, the one translation unit that defines COALESCE_WGMMA_STAMPS).
__device__ unsigned long long* g_wgmma_stamps;
#endif

/// Stamps `phase` of this block (the global timer for the *Ns phases, else the SM's clock) where
/// the kernel is built with kWgmmaStampPhases and the stamps are compiled in; else nothing.
/// Called by one thread per phase.
template <int HAZARDS>
__device__ __forceinline__ void wgmma_stamp(int phase) {
#ifdef COALESCE_WGMMA_STAMPS
  if constexpr ((HAZARDS & kWgmmaStampPhases) != 0) {
    const unsigned long long t =
        phase == kPhaseEntryNs || phase == kPhaseEndNs ? sm90::global_timer_ns() : clock64();
    g_wgmma_stamps[static_cast<long long>(blockIdx.x) * kPhaseSlots + phase] = t;
  }
#endif
}

/// A wgmma config as a type, so the kernel is specialized on every tile parameter. Offers the
/// launch contract every family's tile type offers (compiler/runtime/fused_entry.cuh).
template <int BM, int BN, int BK, int STAGES, int CONSUMERS, int CLUSTER_M, int CLUSTER_N, int PERSISTENT,
          int GROUP_M, int TMA_STORE, int SPLIT = 1, int PINGPONG = 0, int REDUCE = 0, int EPILOGUE_SLOTS = 0,
          int STREAM_K = 0, int K_INTERLEAVE = 0, int SWAP_AB = 0>
struct WgmmaTile {
  static constexpr WgmmaConfig config{BM, BN, BK, STAGES, CONSUMERS, CLUSTER_M, CLUSTER_N, PERSISTENT, GROUP_M,
                                      TMA_STORE, SPLIT, PINGPONG, REDUCE, EPILOGUE_SLOTS, STREAM_K, K_INTERLEAVE, SWAP_AB};
  static constexpr int kThreads = config.threads();
  static constexpr int kSmemBytes = config.smem_bytes();
  /// One block per tile (in x; split-K's slices are the grid's z), in a cluster of two one per
  /// tile of each pair, the edge's pairs counted whole. The kernel walks tiles (pairs) with a grid
  /// stride, so any grid is correct (with a cluster, any multiple of 2); the plug-in's geometry
  /// caps a persistent config's grid at the SM count.
  static constexpr long long grid_blocks(int m, int n) { return config.grid_blocks(m, n); }
  /// The problem rules of the tile's kernel: the 16-bit kernel's (bf16 and f16 share them), or
  /// the tf32 kernel's (BK = 32).
  static constexpr Verdict check_problem(int m, int n, int k) {
    return config.check_problem(m, n, k, config.transposed() ? Dtype::tf32 : Dtype::bf16);
  }
  static constexpr Verdict check_device(const DeviceLimits& limits) { return config.check(limits); }
};

namespace detail {

/// The messaged compile-time guard: every category of WgmmaConfig::check() gets its sentence.
template <class Tile>
struct WgmmaGuard {
  static constexpr Violation kViolation = Tile::config.check().violation;
  static_assert(kViolation != Violation::shape,
                "wgmma config: BK must be 64, BM <= 256, stages 2..16, cluster 1x1, 2x1 (BN 128 or 256) or 1x2, BN 32 only with "
                "the direct store and no ping-pong, epilogue warps, stream-K or in-kernel reduction, persistent and "
                "tma_store 0 or 1, group_m >= 1, split 1..32 (above 1 only with persistent = 0 and tma_store = 0), "
                "pingpong 0 or 1 (1 only with two consumers and persistent = 1), reduce 0 or 1 (1 only with split > 1), "
                "epilogue_slots 0..BN/64 (above 0 only with two consumers, tma_store = 1, split = 1, pingpong = 0), "
                "stream_k 0 or 2..32 (above 0 only with persistent = 1, cluster 1x1, split = 1, pingpong = 0, no epilogue "
                "slots, BK = 64), k_interleave 0, 1 or 2 (above 0 only with two consumers, even stages, BK = 64, no ping-pong, "
                "epilogue slots, stream-K or in-kernel reduction)");
  static_assert(kViolation != Violation::divisibility,
                "wgmma config: BM must be 64 or 128 rows per consumer warpgroup (per consumer's tile with pingpong or "
                "k_interleave), "
                "BN 32 or a multiple of 64 up to 256");
  static_assert(kViolation != Violation::threads, "wgmma config: consumers must be 1 or 2 warpgroups");
  static_assert(kViolation != Violation::registers,
                "wgmma config: the accumulators (rows per consumer x BN / 128) do not fit a consumer's registers "
                "(with reduce = 1, or stream-K with one consumer: more than 64)");
  static constexpr bool ok = kViolation == Violation::none;
};

/// __launch_bounds__ arguments: all warpgroups, and the blocks per SM the kernel must fit: one
/// (setmaxnreg needs the cap), or with stream-K the register model's blocks per SM, which its
/// grid assumes are all resident at once; ptxas then keeps the registers within that many
/// blocks' share (one consumer's kernels otherwise took up to 233 registers where the model
/// says 136, and fit fewer blocks than the grid holds).
template <class Tile, class Epi>
struct WgmmaBounds {
  static_assert(WgmmaGuard<Tile>::ok, "invalid wgmma config");
  static constexpr int threads = Tile::config.threads();
  static constexpr int min_blocks =
      Tile::config.stream_k > 0
          ? resident_blocks(DeviceLimits{}, threads, Tile::config.smem_bytes(), Tile::config.predicted_registers())
          : 1;
};

/// Two 16-bit values as the 32-bit word that holds them in memory (`lo` at the lower address).
__device__ __forceinline__ unsigned pack_pair(unsigned short lo, unsigned short hi) {
  return static_cast<unsigned>(lo) | (static_cast<unsigned>(hi) << 16);
}

}  // namespace detail

/// Where everything lives in the block's dynamic shared memory (32-bit shared addresses). The
/// ring starts on a 1024-byte boundary, the period of the 128-byte swizzle that TMA writes and
/// wgmma reads; every slot and C staging chunk is a multiple of 1024 bytes, so all of them do.
template <class Tile>
struct WgmmaSmem {
  static constexpr WgmmaConfig cfg = Tile::config;
  unsigned a_ring, b_ring, c_stage, k_sums, full_bar, empty_bar, slot_full_bar, slot_empty_bar, sums_bar;

  __device__ __forceinline__ static WgmmaSmem at(unsigned raw) {
    WgmmaSmem s;
    s.a_ring = (raw + 1023u) & ~1023u;
    s.b_ring = s.a_ring + cfg.stages * cfg.a_stage_bytes();
    s.c_stage = s.b_ring + cfg.stages * cfg.b_stage_bytes();
    s.k_sums = s.c_stage + cfg.store_bytes();
    s.full_bar = s.k_sums + cfg.interleave_bytes();
    s.empty_bar = s.full_bar + 8 * cfg.stages;
    s.slot_full_bar = s.empty_bar + 8 * cfg.stages;
    s.slot_empty_bar = s.slot_full_bar + 8 * cfg.epilogue_slots;
    s.sums_bar = s.slot_empty_bar + 8 * cfg.epilogue_slots;
    return s;
  }
  /// Slot `s` of A: BM rows of 64 k, one 128-byte row each (K-major).
  __device__ __forceinline__ unsigned a_slot(int s) const { return a_ring + s * cfg.a_stage_bytes(); }
  /// Slot `s` of B: BN/64 chunks, chunk j holding columns 64j..64j+63 as BK rows (one per k) of
  /// 128 bytes (N-major); in tf32, BN/32 chunks of 32 columns.
  __device__ __forceinline__ unsigned b_slot(int s) const { return b_ring + s * cfg.b_stage_bytes(); }
  __device__ __forceinline__ unsigned full(int s) const { return full_bar + 8 * s; }
  __device__ __forceinline__ unsigned empty(int s) const { return empty_bar + 8 * s; }
  /// Epilogue slot `s` (epilogue_slots > 0; in the C staging area) and its two mbarriers.
  __device__ __forceinline__ unsigned slot(int s) const { return c_stage + s * cfg.slot_bytes(); }
  __device__ __forceinline__ unsigned slot_full(int s) const { return slot_full_bar + 8 * s; }
  __device__ __forceinline__ unsigned slot_empty(int s) const { return slot_empty_bar + 8 * s; }
  /// reduce = 2: the cluster's sums for this block (in the C staging area): slot `from` (the
  /// sending block's rank), pair `p` of its share, consumer thread `t`; and the mbarrier that
  /// counts every block's sends in.
  __device__ __forceinline__ unsigned cluster_sum(int from, int p, int t) const {
    return c_stage + ((from * cfg.pairs_per_block() + p) * cfg.consumers * WgmmaConfig::kWarpgroup + t) * 8;
  }
  __device__ __forceinline__ unsigned sums() const { return sums_bar; }
  /// k_interleave = 1: consumer 1's float4 `q` of consumer thread `t`'s sums (a warp's 32
  /// threads write and read 512 contiguous bytes, without bank conflicts).
  __device__ __forceinline__ unsigned k_sum(int q, int t) const {
    return k_sums + (q * WgmmaConfig::kWarpgroup + t) * 16;
  }
};

/// The position in the ring: slot and phase parity, advanced once per K slice by both sides.
template <int STAGES>
struct RingCursor {
  int slot = 0;
  unsigned phase = 0;
  __device__ __forceinline__ void advance() {
    if (++slot == STAGES) {
      slot = 0;
      phase ^= 1u;
    }
  }
  /// `steps` advances at once: the phase flips once per wrap of the ring.
  __device__ __forceinline__ void skip(int steps) {
    const int wraps = (slot + steps) / STAGES;
    slot = (slot + steps) % STAGES;
    phase ^= static_cast<unsigned>(wraps & 1);
  }
};

/// The K steps (BK deep) a block multiplies: all of K, or with split-K slice blockIdx.z's even
/// share, [z·per_slice, min(steps, (z+1)·per_slice)) with per_slice = ceil(steps / gridDim.z),
/// which is empty when the slices outnumber the shares. The producer and the consumers both
/// take it from here: their counts must agree, or the mbarrier phases fall out of step.
struct WgmmaKSteps {
  int begin, count;
};
template <class Tile>
__device__ __forceinline__ WgmmaKSteps wgmma_k_steps(int K) {
  constexpr WgmmaConfig cfg = Tile::config;
  const int steps = (K + cfg.bk - 1) / cfg.bk;
  if constexpr (cfg.split > 1) {
    const int slices = static_cast<int>(gridDim.z);
    const int per_slice = (steps + slices - 1) / slices;
    const int begin = min(steps, static_cast<int>(blockIdx.z) * per_slice);
    return {begin, min(steps, begin + per_slice) - begin};
  } else {
    return {0, steps};
  }
}

/// The tiles a block walks; every role of the block walks the same sequence, so all agree on
/// the ring's (and the epilogue slots') phases. Without a cluster: tile blockIdx.x, then every
/// gridDim.x-th, in grouped order. With a cluster of two the walk is over pairs of tiles (2x1:
/// two tiles of one column, which share B; 1x2: two of one row, which share A): cluster
/// blockIdx.x / 2 takes pair c, c + gridDim.x / 2, ..., and its block of rank r the pair's r-th
/// tile. At the matrix edge that tile may lie past M or N: its block still loads its share of
/// the pair's common operand and runs the main loop, and stores nothing.
template <class Tile>
struct WgmmaTileWalk {
  static constexpr WgmmaConfig cfg = Tile::config;
  static constexpr int kCluster = cfg.cluster_size();
  int pairs_m, pairs_n, rank;
  __device__ __forceinline__ WgmmaTileWalk(int M, int N) {
    constexpr WgmmaConfig c = Tile::config;  // a local copy: device code cannot read the static member at run time
    pairs_m = c.tile_pairs_m(M);
    pairs_n = c.tile_pairs_n(N);
    if constexpr (kCluster > 1) {
      rank = static_cast<int>(sm90::cluster_rank());
    } else {
      rank = 0;
    }
  }
  __device__ __forceinline__ int first() const { return static_cast<int>(blockIdx.x) / kCluster; }
  __device__ __forceinline__ int stride() const { return static_cast<int>(gridDim.x) / kCluster; }
  __device__ __forceinline__ int count() const { return pairs_m * pairs_n; }
  /// This block's tile of the walk's i-th step.
  __device__ __forceinline__ TileCoord at(int i) const {
    const TileCoord p = grouped_tile<cfg.group_m>(i, pairs_m, pairs_n);
    return {p.m * cfg.cluster_m + (cfg.cluster_m == 2 ? rank : 0), p.n * cfg.cluster_n + (cfg.cluster_n == 2 ? rank : 0)};
  }
};

/// One unit of a block's work: tile `index` of the walk (the tile `tile` of this block), and
/// the K steps [k_begin, k_begin + k_count) of it. With stream-K, a unit that holds a shared
/// tile's first K steps but not all of them adds the sums of blocks [blockIdx.x + 1, peers_end)
/// (WgmmaStreamK); peers_end is 0 for every other unit.
struct WgmmaUnit {
  int index;
  TileCoord tile;
  int k_begin, k_count;
  int peers_end;
};

/// Stream-K's plan (stream_k = S > 0; kernels/core/family.hpp kStreamKParam), the same in
/// every block and role. The walk's tiles past its last whole wave of the grid (all of them
/// when there are fewer tiles than blocks) are "shared": their K steps, `shared_steps` in all,
/// are cut into ranges of `per_block` steps (the last shorter), one per block from block 0,
/// each contiguous in the walk's order, so one range may end inside a tile and the next start
/// in it. At most `sharing` blocks share (WgmmaConfig::stream_k_sharing): S per shared tile
/// and one per K step of it, so every range has at least one step. The other tiles are taken whole afterwards, tile shared + b,
/// shared + b + grid, ... by block b. A block's range has at most one piece that is not a
/// tile's first K steps, its first, whose f32 sums it stores in its slot of the workspace; the
/// block holding the tile's first steps ends its range with them, by when the others have
/// started theirs, and adds their sums in block order. (32-bit counts: the shared steps are
/// fewer than the grid times the steps of K.)
template <class Tile>
struct WgmmaStreamK {
  int shared, shared_steps, per_block;
  __device__ __forceinline__ WgmmaStreamK(int tiles, int steps) {
    constexpr WgmmaConfig c = Tile::config;  // a local copy: device code cannot read the static member at run time
    const int grid = static_cast<int>(gridDim.x);
    shared = tiles % grid;
    const int sharing = c.stream_k_sharing(tiles, steps, grid);
    shared_steps = shared * steps;
    per_block = sharing > 0 ? (shared_steps + sharing - 1) / sharing : 0;
  }
  /// The first of block b's shared K steps (`shared_steps` once the ranges are used up).
  __device__ __forceinline__ int start(int b) const { return min(b * per_block, shared_steps); }
};

/// The units a block walks, in order; the producer and the consumers walk the same ones, so
/// they agree on the ring's phases. Without stream-K, the walk's tiles whole (with split-K, the
/// block's K slice of each); with it, the block's range of the shared tiles' K steps first,
/// then its whole tiles (WgmmaStreamK).
template <class Tile>
struct WgmmaWork {
  static constexpr WgmmaConfig cfg = Tile::config;
  WgmmaTileWalk<Tile> walk;
  WgmmaKSteps k_steps;
  int next_index;       // the next whole tile of the walk
  int pos, end;                // stream-K: the block's shared K steps left, [pos, end)
  int shared_index, shared_k;  // stream-K: the tile and K step of pos
  __device__ __forceinline__ WgmmaWork(int M, int N, int K) : walk(M, N), k_steps(wgmma_k_steps<Tile>(K)) {
    next_index = walk.first();
    pos = end = shared_index = shared_k = 0;
    if constexpr (cfg.stream_k > 0) {
      const WgmmaStreamK<Tile> plan(walk.count(), k_steps.count);
      const int b = static_cast<int>(blockIdx.x);
      pos = plan.start(b);
      end = plan.start(b + 1);
      shared_index = pos / k_steps.count;
      shared_k = pos - shared_index * k_steps.count;
      next_index = plan.shared + b;
    }
  }
  /// The next unit into `u`; false when the block has none left. One function with selects,
  /// and no division (the tile and K step of `pos` advance by addition): with a division by
  /// the run-time number of K steps here, or with the two kinds of unit returned from separate
  /// branches, ptxas kept the K loop's ring state in per-thread registers and computed every
  /// wgmma descriptor per thread, moving it to uniform registers (R2UR) before each wgmma, and
  /// the stream-K kernels ran 14-35% slower than their twins without it (runs EA, EB). Two
  /// separate loops, one per kind, compiled clean but spilled 20 bytes.
  __device__ __forceinline__ bool next(WgmmaUnit& u) {
    const int steps = k_steps.count;
    const bool shared_unit = cfg.stream_k > 0 && pos < end;
    if (!shared_unit && next_index >= walk.count()) return false;
    const int index = shared_unit ? shared_index : next_index;
    const int k_begin = shared_unit ? shared_k : k_steps.begin;
    const int k_count = shared_unit ? min(steps - shared_k, end - pos) : k_steps.count;
    int peers_end = 0;
    if constexpr (cfg.stream_k > 0) {
      if (shared_unit && k_begin == 0 && k_count < steps) {
        // The blocks after this one whose ranges start inside the tile.
        const WgmmaStreamK<Tile> plan(walk.count(), steps);
        peers_end = static_cast<int>(blockIdx.x) + 1;
        while (plan.start(peers_end) < min((index + 1) * steps, plan.shared_steps)) ++peers_end;
      }
      pos += shared_unit ? k_count : 0;
      const int k_next = shared_unit ? shared_k + k_count : shared_k;
      shared_index += k_next == steps ? 1 : 0;
      shared_k = k_next == steps ? 0 : k_next;
    }
    next_index += shared_unit ? 0 : walk.stride();
    u = {index, walk.at(index), k_begin, k_count, peers_end};
    return true;
  }
  /// Whether a whole tile is left after the current unit (ping-pong's hand-over; no stream-K).
  __device__ __forceinline__ bool more() const { return next_index < walk.count(); }
};

/// The producer: one thread walks the block's tiles and K slices, waits for each slot to be
/// released, announces the bytes it will land, and issues the TMA copies of A and B. In a
/// cluster of two the blocks' tiles share one operand, and each block loads half of it into
/// both blocks' slots (TMA multicast): with 2x1 every other 64-column chunk of B, with 1x2 half
/// of A's rows. A slot is then written by both producers, so it is refilled only once the
/// consumers of both blocks have released it (`empty` counts both blocks' arrivals); and a
/// producer does not leave before the last of those releases, which the peer sends to this
/// block's barriers.
template <class Tile, int HAZARDS = kWgmmaHazardNone>
__device__ __forceinline__ void wgmma_produce(const TensorMap* a_map, const TensorMap* b_map, const WgmmaSmem<Tile>& sm,
                                              int M, int N, int K) {
  constexpr WgmmaConfig cfg = Tile::config;
  // B's chunks: swizzle rows of columns (the whole narrow tile's 32 in its 64-byte swizzle).
  constexpr int BK = cfg.bk, ROW_ELEMENTS = cfg.b_chunk_cols(), B_CHUNKS = cfg.bn / ROW_ELEMENTS;
  constexpr int CHUNK_BYTES = BK * cfg.b_swizzle_bytes();
  constexpr int A_ROWS = cfg.a_box_rows(), A_BOXES = cfg.cluster_n;
  constexpr unsigned short kBoth = 0x3;  // multicast to both blocks of the cluster
  WgmmaWork<Tile> work(M, N, K);
  const WgmmaTileWalk<Tile>& walk = work.walk;
  RingCursor<cfg.stages> ring;
  for (WgmmaUnit u; work.next(u);) {
    const TileCoord t = u.tile;
    const int m0 = t.m * cfg.bm, n0 = t.n * cfg.bn;
    // Copies entirely outside A or B are left out rather than relied on: B chunks that start at
    // or past N would only feed columns of C that are never stored, and A boxes past M rows
    // that are never stored. (A pair's blocks share the operand they multicast, and so agree on
    // which of its copies are made; each counts the bytes that land in its own slots.)
    const int n_left = N - n0;
    const int b_chunks = n_left >= cfg.bn ? B_CHUNKS : max(0, (n_left + ROW_ELEMENTS - 1) / ROW_ELEMENTS);
    int a_boxes = 0;
#pragma unroll
    for (int h = 0; h < A_BOXES; ++h) a_boxes += m0 + h * A_ROWS < M ? 1 : 0;
    const unsigned bytes = a_boxes * A_ROWS * WgmmaConfig::kSwizzleBytes + b_chunks * CHUNK_BYTES;
    for (int kb = 0; kb < u.k_count; ++kb) {
      const int k0 = (u.k_begin + kb) * BK;
      const unsigned full = sm.full(ring.slot);
      sm90::mbarrier_wait(sm.empty(ring.slot), ring.phase ^ 1u);
      sm90::mbarrier_arrive_expect_tx(full, bytes);
      if constexpr (cfg.cluster_n == 2) {
        // 1x2: this block's half of A's rows, into both blocks' slots.
        const int h = walk.rank;
        if (m0 + h * A_ROWS < M)
          sm90::tma_load_2d_multicast(sm.a_slot(ring.slot) + h * A_ROWS * WgmmaConfig::kSwizzleBytes, a_map, k0,
                                      m0 + h * A_ROWS, full, kBoth);
      } else {
        if (m0 < M) sm90::tma_load_2d(sm.a_slot(ring.slot), a_map, k0, m0, full);
      }
#pragma unroll
      for (int j = 0; j < B_CHUNKS; ++j) {
        if (j >= b_chunks) continue;
        if constexpr (cfg.b_split_by_rows()) {
          // 2x1, the swapped tile's one chunk: this block's half of the slice's K rows, into both
          // blocks' slots (the half starts on a 1024-byte swizzle atom, so its swizzle phase is the
          // whole chunk's).
          constexpr int HALF = cfg.b_box_rows();
          sm90::tma_load_2d_multicast(sm.b_slot(ring.slot) + walk.rank * HALF * cfg.b_swizzle_bytes(), b_map, n0,
                                      k0 + walk.rank * HALF, full, kBoth);
        } else if constexpr (cfg.cluster_m == 2) {
          // 2x1: every other chunk of B, into both blocks' slots.
          if (j % 2 == walk.rank)
            sm90::tma_load_2d_multicast(sm.b_slot(ring.slot) + j * CHUNK_BYTES, b_map, n0 + j * ROW_ELEMENTS, k0, full,
                                        kBoth);
        } else {
          sm90::tma_load_2d(sm.b_slot(ring.slot) + j * CHUNK_BYTES, b_map, n0 + j * ROW_ELEMENTS, k0, full);
        }
      }
      ring.advance();
    }
  }
  wgmma_stamp<HAZARDS>(kPhaseIssued);
  if constexpr (cfg.cluster_size() > 1) {
    // Every slot's last release, from both blocks' consumers, has reached this block's barriers.
#pragma unroll 1
    for (int s = 0; s < cfg.stages; ++s) {
      sm90::mbarrier_wait(sm.empty(ring.slot), ring.phase ^ 1u);
      ring.advance();
    }
  }
}

/// The 4-byte word of a C staging chunk (64 columns x its rows, 128-byte rows in the 128-byte
/// swizzle the TMA store reads) that holds the pair of columns 8j + 2(lane%4) and the next in
/// local row r, for a thread whose rows have r % 8 = lane / 4 (the accumulator layout's): the
/// 16-byte unit j of the row, swizzled to j ^ (r % 8), so a warp's 32 writes hit 32 banks.
__device__ __forceinline__ unsigned wgmma_staged_word(unsigned chunk, int r, int j, int lane) {
  return chunk + r * WgmmaConfig::kSwizzleBytes + static_cast<unsigned>((j ^ (lane / 4)) * 16) + 4 * (lane % 4);
}

/// The bias pairs of a thread's columns in 32 columns of the tile (col0 + 8j and col0 + 8j + 1,
/// j < 4), loaded together before their epilogue. Loaded one pair at a time inside the store
/// loop, each load would wait behind the previous shared-memory store (an asm statement with a
/// memory clobber, which the compiler may not move a load across): a global round trip per 8
/// columns, BN/8 of them in a row per tile; in groups it is BN/32. (All BN/8 pairs at once take
/// 32 to 64 more registers at BN = 256 and spill; groups of 8 pairs still spill two configs of
/// the 4096 sample.) Packed 16-bit pairs; zeros without a bias or past N. The in-kernel
/// reduction loads all BN/8 of a thread's pairs at once, ahead of its wait for the other slices.
template <class Epi, class Types, int PAIRS = 4>
struct WgmmaBiasGroup {
  static constexpr int kPairs = PAIRS;
  unsigned word[kPairs];
  __device__ __forceinline__ WgmmaBiasGroup(const typename Types::Bias* __restrict__ bias, int N, int col0) {
#pragma unroll
    for (int j = 0; j < kPairs; ++j) {
      const int col = col0 + 8 * j;
      // N % 8 == 0 (check_problem), so col < N means col + 1 < N too.
      word[j] = (Epi::kUsesBias && col < N) ? *reinterpret_cast<const unsigned*>(bias + col) : 0u;
    }
  }
  __device__ __forceinline__ float lo(int j) const {
    return to_float(typename Types::Bias{static_cast<unsigned short>(word[j] & 0xFFFFu)});
  }
  __device__ __forceinline__ float hi(int j) const {
    return to_float(typename Types::Bias{static_cast<unsigned short>(word[j] >> 16)});
  }
  __device__ __forceinline__ float2 pair(int j) const { return make_float2(lo(j), hi(j)); }
};

/// A consumer thread's place in the m64nNk16 accumulator layout (thread (warp w, lane l) holds
/// d[4j + 2h + e] = D[16w + l/4 + 8h][8j + 2(l%4) + e]): its warp in the warpgroup, its lane, and
/// the row and column of C that its d[0] of the m64 block 0 holds; d[4j + 2h + e] of block mi is
/// at row0 + 64mi + 8h, col0 + 8j + e.
struct WgmmaFragmentOrigin {
  int warp, lane, row0, col0;
};
template <class Tile>
__device__ __forceinline__ WgmmaFragmentOrigin wgmma_fragment_origin(int m0, int n0, int consumer) {
  constexpr WgmmaConfig cfg = Tile::config;
  const int warp = (threadIdx.x % WgmmaConfig::kWarpgroup) / 32, lane = threadIdx.x % 32;
  return {warp, lane, m0 + cfg.consumer_row(consumer) + warp * 16 + lane / 4, n0 + 2 * (lane % 4)};
}

/// The 16-bit bias values of columns col and col + 1 as f32 (a 4-byte load: col is even).
template <class Types>
__device__ __forceinline__ float2 wgmma_bias_pair(const typename Types::Bias* __restrict__ bias, int col) {
  const unsigned word = *reinterpret_cast<const unsigned*>(bias + col);
  return make_float2(to_float(typename Types::Bias{static_cast<unsigned short>(word & 0xFFFFu)}),
                     to_float(typename Types::Bias{static_cast<unsigned short>(word >> 16)}));
}

/// The epilogue, direct: C = Epi(acc, bias[n]) rounded once and stored as 2-element words from
/// the accumulators' registers, predicated at the edges. The m64nNk16 accumulator layout:
/// thread (warp w, lane l) holds d[4j + 2h + e] = D[16w + l/4 + 8h][8j + 2(l%4) + e]. The bias
/// pair of column group j (columns col0 + 8j and the next) comes from `bias_pair(j, col)`, called
/// only where the group lies inside N: a load there (wgmma_store_direct), or registers loaded
/// earlier (the in-kernel reduction, whose bias loads go under its wait for the other slices).
/// H >= 0 (k_interleave = 2): only the thread's rows of that half, d[4j + 2H + e]. A gated Epi
/// (Epi::kGated) stores act(d[4j + 2h]) · d[4j + 2h + 1], the (gate, up) pair of columns col and
/// col + 1, at column col/2 of its C of N/2 columns (one 16-bit store per pair).
template <class Tile, class Epi, class Types, int H = -1, class BiasPair>
__device__ __forceinline__ void wgmma_store_direct_with(float (&acc)[Tile::config.m_iters()][Tile::config.bn / 2],
                                                        BiasPair bias_pair, typename Types::C* __restrict__ C, int M,
                                                        int N, int m0, int n0, int consumer,
                                                        const typename Types::C* __restrict__ residual = nullptr) {
  constexpr WgmmaConfig cfg = Tile::config;
  using CT = typename Types::C;
  const auto [warp, lane, row0, col0] = wgmma_fragment_origin<Tile>(m0, n0, consumer);
#pragma unroll
  for (int j = 0; j < cfg.bn / 8; ++j) {
    const int col = col0 + 8 * j;
    // N % 8 == 0 (check_problem), so col < N means col + 1 < N too.
    if (col >= N) continue;
    float b0 = 0.0f, b1 = 0.0f;
    if constexpr (Epi::kUsesBias) {
      const float2 b = bias_pair(j, col);
      b0 = b.x;
      b1 = b.y;
    }
#pragma unroll
    for (int mi = 0; mi < cfg.m_iters(); ++mi)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        if constexpr (H >= 0)
          if (h != H) continue;
        const int row = row0 + mi * WgmmaConfig::kWgmmaM + 8 * h;
        if (row >= M) continue;
        if constexpr (Epi::kGated) {
          // The pair is (gate, up) of C's column col/2 (col is even) in its N/2 columns.
          C[static_cast<long long>(row) * (N / 2) + col / 2] =
              from_float<CT>(Epi::gate(acc[mi][4 * j + 2 * h], acc[mi][4 * j + 2 * h + 1]));
        } else {
          const long long at = static_cast<long long>(row) * N + col;
          const CT lo = from_float<CT>(epilogue_value<Epi>(acc[mi][4 * j + 2 * h], b0, residual, at));
          const CT hi = from_float<CT>(epilogue_value<Epi>(acc[mi][4 * j + 2 * h + 1], b1, residual, at + 1));
          *reinterpret_cast<unsigned*>(C + at) = detail::pack_pair(lo.bits, hi.bits);
        }
      }
  }
}

/// wgmma_store_direct_with, each bias pair loaded where it is used.
template <class Tile, class Epi, class Types, int H = -1>
__device__ __forceinline__ void wgmma_store_direct(float (&acc)[Tile::config.m_iters()][Tile::config.bn / 2],
                                                   const typename Types::Bias* __restrict__ bias,
                                                   typename Types::C* __restrict__ C, int M, int N, int m0, int n0,
                                                   int consumer, const typename Types::C* __restrict__ residual) {
  wgmma_store_direct_with<Tile, Epi, Types, H>(
      acc, [&](int, int col) { return wgmma_bias_pair<Types>(bias, col); }, C, M, N, m0, n0, consumer, residual);
}

/// The tf32 kernel's order of the tile's columns in an m64 block of C^T: wgmma row r = 16w + g +
/// 8i (warp w, g = lane/4) multiplies column
///   32(w/2) + 16(g/4) + 8i + 4(w%2) + g%4
/// of the block (a bijection of 0..63). Its A fragment loads then hit 32 different banks: a warp's
/// load reads k-rows k = lane%4 + 4j of the 128-byte-swizzled B slot, where column c lies in
/// 16-byte unit ((c%32)/4) ^ (k%8), bank word c%4; with this order the unit's top bit is g/4 ^ j
/// and its low bits (2i + w%2) ^ k%4, so (unit, word) differs for every lane. In column order
/// (c = r) half the lanes' units coincide: two-way conflicts on every fragment load.
__device__ __forceinline__ int wgmma_tf32_column(int r) {
  const int w = r / 16, g = r % 8, i = (r / 8) % 2;
  return 32 * (w / 2) + 16 * (g / 4) + 8 * i + 4 * (w % 2) + g % 4;
}

/// The tf32 kernel's epilogue: its accumulators are C^T (m64nNk8 layout: thread (warp w, lane l)
/// holds d[4j + 2h + e] = C^T[16w + l/4 + 8h][8j + 2(l%4) + e] of its 64-row block, row r of C^T
/// being column wgmma_tf32_column(r) of the block), so a thread holds two columns of C per block,
/// with their two bias values, and 2 x BM/8 rows of each; each value is stored alone (a warp's
/// store writes two runs of 4 columns in 4 rows), predicated at the edges. H >= 0 (the swapped
/// tile with k_interleave = 2): only the thread's columns of that half (rows 8H.. of each warp's
/// 16 rows of C^T).
template <class Tile, class Epi, class Types, int H = -1, class BiasAt>
__device__ __forceinline__ void wgmma_store_transposed_with(float (&acc)[Tile::config.m_iters()][Tile::config.mma_cols() / 2],
                                                            BiasAt bias_at, typename Types::C* __restrict__ C, int M,
                                                            int N, int m0, int n0, int consumer) {
  constexpr WgmmaConfig cfg = Tile::config;
  using CT = typename Types::C;
  const int warp = (threadIdx.x % WgmmaConfig::kWarpgroup) / 32, lane = threadIdx.x % 32;
  const int col0 = n0 + cfg.consumer_row(consumer);
  const int row0 = m0 + 2 * (lane % 4);
  // The swapped tile applies the epilogue to every value it holds first, outside the stores'
  // edge tests (its bias values are registers, zero past N), so ptxas interleaves the values'
  // GELU chains (two SFU operations and a dependent polynomial each) instead of running them one
  // after another inside each store's branch; with two warps per scheduler nothing else hides
  // a chain's latency (run LY's phase stamps: about 150 cycles a value). The tf32 kernel loads
  // its bias where it stores, and keeps that order.
  constexpr bool kApplyFirst = cfg.swapped();
  if constexpr (kApplyFirst) {
#pragma unroll
    for (int mi = 0; mi < cfg.m_iters(); ++mi)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        if constexpr (H >= 0)
          if (h != H) continue;
        const float b = Epi::kUsesBias ? bias_at(mi, h, 0) : 0.0f;
#pragma unroll
        for (int j = 0; j < cfg.mma_cols() / 8; ++j)
#pragma unroll
          for (int e = 0; e < 2; ++e) acc[mi][4 * j + 2 * h + e] = Epi::apply(acc[mi][4 * j + 2 * h + e], b);
      }
  }
#pragma unroll
  for (int mi = 0; mi < cfg.m_iters(); ++mi)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      if constexpr (H >= 0)
        if (h != H) continue;
      // The tf32 kernel's rows of C^T are its columns in wgmma_tf32_column's order; the swapped
      // 16-bit tile's are in order (B's slot read as it lies).
      const int r = warp * 16 + lane / 4 + 8 * h;
      const int col = col0 + mi * WgmmaConfig::kWgmmaM + (cfg.transposed() ? wgmma_tf32_column(r) : r);
      if (col >= N) continue;
      const float b = !kApplyFirst && Epi::kUsesBias ? bias_at(mi, h, col) : 0.0f;
#pragma unroll
      for (int j = 0; j < cfg.mma_cols() / 8; ++j)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int row = row0 + 8 * j + e;
          if (row < M)
            C[static_cast<long long>(row) * N + col] =
                from_float<CT>(kApplyFirst ? acc[mi][4 * j + 2 * h + e] : Epi::apply(acc[mi][4 * j + 2 * h + e], b));
        }
    }
}

/// wgmma_store_transposed_with, each column's bias loaded where it is used (the tf32 kernel).
template <class Tile, class Epi, class Types, int H = -1>
__device__ __forceinline__ void wgmma_store_transposed(float (&acc)[Tile::config.m_iters()][Tile::config.mma_cols() / 2],
                                                       const typename Types::Bias* __restrict__ bias,
                                                       typename Types::C* __restrict__ C, int M, int N, int m0, int n0,
                                                       int consumer) {
  wgmma_store_transposed_with<Tile, Epi, Types, H>(
      acc, [&](int, int, int col) { return to_float(bias[col]); }, C, M, N, m0, n0, consumer);
}

/// The swapped 16-bit tile's bias, loaded at the tile's start: a thread's columns of C are its
/// rows of C^T, two per m64 block (h = 0, 1), known before the main loop, so their loads go
/// under the ring's first fill instead of after the last wgmma (a DRAM latency per tile with L2
/// flushed, on the path of every block of a one-wave grid). Zero past N (never stored).
template <class Tile, class Types>
struct WgmmaSwappedBias {
  float v[Tile::config.m_iters()][2];
  __device__ __forceinline__ void load(const typename Types::Bias* __restrict__ bias, int N, int n0, int consumer) {
    constexpr WgmmaConfig cfg = Tile::config;
    const int warp = (threadIdx.x % WgmmaConfig::kWarpgroup) / 32, lane = threadIdx.x % 32;
#pragma unroll
    for (int mi = 0; mi < cfg.m_iters(); ++mi)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int col = n0 + cfg.consumer_row(consumer) + mi * WgmmaConfig::kWgmmaM + warp * 16 + lane / 4 + 8 * h;
        v[mi][h] = col < N ? to_float(bias[col]) : 0.0f;
      }
  }
  /// The epilogue's bias_at: the value loaded for (mi, h).
  __device__ __forceinline__ auto at() const {
    return [this](int mi, int h, int) { return v[mi][h]; };
  }
};

/// Split-K's store of the swapped tile: the raw f32 sums of C^T's fragments (wgmma_store_transposed's
/// places) into the block's M×N partials, one 4-byte store each, predicated at the edges. Its loop
/// repeats wgmma_store_transposed's: the two written as one visitor over the fragments compiled
/// this kernel's index arithmetic differently from the build runs JH and JI measured and tested.
/// H >= 0 (k_interleave = 2): only the thread's columns of that half, as wgmma_store_transposed.
template <class Tile, int H = -1>
__device__ __forceinline__ void wgmma_store_transposed_partials(float (&acc)[Tile::config.m_iters()][Tile::config.mma_cols() / 2],
                                                                float* __restrict__ partial, int M, int N, int m0,
                                                                int n0, int consumer) {
  constexpr WgmmaConfig cfg = Tile::config;
  const int warp = (threadIdx.x % WgmmaConfig::kWarpgroup) / 32, lane = threadIdx.x % 32;
  const int col0 = n0 + cfg.consumer_row(consumer);
  const int row0 = m0 + 2 * (lane % 4);
#pragma unroll
  for (int mi = 0; mi < cfg.m_iters(); ++mi)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      if constexpr (H >= 0)
        if (h != H) continue;
      const int col = col0 + mi * WgmmaConfig::kWgmmaM + warp * 16 + lane / 4 + 8 * h;
      if (col >= N) continue;
#pragma unroll
      for (int j = 0; j < cfg.mma_cols() / 8; ++j)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int row = row0 + 8 * j + e;
          if (row < M) partial[static_cast<long long>(row) * N + col] = acc[mi][4 * j + 2 * h + e];
        }
    }
}

/// Split-K's store: the raw f32 sums of the block's K slice (no bias, no activation: the reduce
/// applies the epilogue once the slices are added) into its M×N partials, as 8-byte pairs from
/// the accumulators' registers (the layout wgmma_store_direct reads), predicated at the edges.
/// H >= 0 (k_interleave = 2): only the thread's rows of that half.
template <class Tile, int H = -1>
__device__ __forceinline__ void wgmma_store_partials(float (&acc)[Tile::config.m_iters()][Tile::config.bn / 2],
                                                     float* __restrict__ partial, int M, int N, int m0, int n0,
                                                     int consumer) {
  constexpr WgmmaConfig cfg = Tile::config;
  const auto [warp, lane, row0, col0] = wgmma_fragment_origin<Tile>(m0, n0, consumer);
#pragma unroll
  for (int j = 0; j < cfg.bn / 8; ++j) {
    const int col = col0 + 8 * j;
    // N % 8 == 0 (check_problem), so col < N means col + 1 < N too.
    if (col >= N) continue;
#pragma unroll
    for (int mi = 0; mi < cfg.m_iters(); ++mi)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        if constexpr (H >= 0)
          if (h != H) continue;
        const int row = row0 + mi * WgmmaConfig::kWgmmaM + 8 * h;
        if (row >= M) continue;
        *reinterpret_cast<float2*>(partial + static_cast<long long>(row) * N + col) =
            make_float2(acc[mi][4 * j + 2 * h], acc[mi][4 * j + 2 * h + 1]);
      }
  }
}

/// The named barrier over a block's consumer threads that orders the in-kernel reduction.
constexpr unsigned kReduceBarrier = 3;

/// Split-K's reduction in the kernel (reduce = 1, kernels/core/family.hpp kReduceParam), after
/// every consumer thread has stored its partial sums: the block counts itself on its tile's
/// counter (`counters[blockIdx.x]`, after a fence that publishes its partial sums), and the
/// block that arrives last adds the tile's gridDim.z partials in slice order into its
/// accumulators, all of a slice's loads issued before any is waited for (one load at a time
/// made the reduction 2 to 6 times slower than the separate reduce kernel, run BE; loading in
/// explicit groups of 16 first, then adding, measured the same as this, run BH), applies the
/// epilogue and stores C as wgmma_store_direct does, then sets the counter back to zero for the
/// next launch. Its own partial sums are read back too, so every element is the same sum in the
/// same order whichever block arrives last.
template <class Tile, class Epi, class Types, int HAZARDS>
__device__ __forceinline__ void wgmma_reduce_in_kernel(float (&acc)[Tile::config.m_iters()][Tile::config.bn / 2],
                                                       const float* __restrict__ partials, unsigned* counters,
                                                       const typename Types::Bias* __restrict__ bias,
                                                       typename Types::C* __restrict__ C, int M, int N, int m0, int n0,
                                                       int consumer) {
  constexpr WgmmaConfig cfg = Tile::config;
  constexpr unsigned kThreads = cfg.consumers * WgmmaConfig::kWarpgroup;
  const int slices = static_cast<int>(gridDim.z), me = static_cast<int>(blockIdx.z);
  const auto [warp, lane, row0, col0] = wgmma_fragment_origin<Tile>(m0, n0, consumer);
  // The bias, loaded while the block counts itself (its loads were exposed one by one in the
  // store loop: run JE), for whichever block turns out to be the last.
  const WgmmaBiasGroup<Epi, Types, cfg.bn / 8> b(bias, N, col0);
  // Every consumer thread has stored its partial sums (the named barrier); one thread counts the
  // block with release and acquire at GPU scope, which publishes the block's sums ordered before
  // the barrier (release is cumulative) and, in the last block, orders the other blocks' sums
  // before the reads below (their counts were seen), the barrier handing that on. One
  // `atom.acq_rel` instead of a `__threadfence()` (MEMBAR.SC.GPU, an L1 invalidation) in every
  // thread before and after.
  bool last = false;
  sm90::named_barrier_sync(kReduceBarrier, kThreads);
  if (threadIdx.x == WgmmaConfig::kWarpgroup)
    last = sm90::atomic_add_acq_rel_gpu(&counters[blockIdx.x], 1u) == static_cast<unsigned>(slices - 1);
  if (!sm90::named_barrier_or(kReduceBarrier, kThreads, last)) return;

  const long long slice = static_cast<long long>(M) * N;
  for (int z = 0; z < slices; ++z) {
    const float* p = partials + z * slice;
#pragma unroll
    for (int j = 0; j < cfg.bn / 8; ++j) {
      const int col = col0 + 8 * j;
#pragma unroll
      for (int mi = 0; mi < cfg.m_iters(); ++mi)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int row = row0 + mi * WgmmaConfig::kWgmmaM + 8 * h;
          // L2, not L1: the other blocks' stores are not in this SM's L1. N % 8 == 0, so col < N
          // means col + 1 < N too.
          float2 v = row < M && col < N ? __ldcg(reinterpret_cast<const float2*>(p + static_cast<long long>(row) * N + col))
                                        : make_float2(0.0f, 0.0f);
          // Another slice's sums, whichever block arrives last and reduces: a rule keyed to one
          // slice missed the bug whenever that slice's block was the last one (split 2, H100).
          if constexpr (HAZARDS & kWgmmaHazardLostPartial)
            if (z == (me + 1) % slices) v = make_float2(0.0f, 0.0f);
          if constexpr (HAZARDS & kWgmmaHazardDoubleEpilogue)
            if (z == me) {
              const float2 bb = b.pair(j);
              v = make_float2(Epi::apply(v.x, bb.x), Epi::apply(v.y, bb.y));
            }
          float& lo = acc[mi][4 * j + 2 * h];
          float& hi = acc[mi][4 * j + 2 * h + 1];
          lo = z == 0 ? v.x : lo + v.x;
          hi = z == 0 ? v.y : hi + v.y;
        }
    }
  }
  wgmma_store_direct_with<Tile, Epi, Types>(acc, [&](int j, int) { return b.pair(j); }, C, M, N, m0, n0, consumer);
  if (threadIdx.x == WgmmaConfig::kWarpgroup) counters[blockIdx.x] = 0u;
}

/// Split-K reduced in the tile's cluster (reduce = 2): the tile's S blocks (grid z) are one
/// cluster, block z of rank z. A consumer thread's sums are pairs (accumulators 2i and 2i + 1,
/// two adjacent columns of one row), and block r adds up pairs [r·P, (r + 1)·P) of every thread
/// (P = pairs_per_block). Each block arms its barrier with the bytes its share will receive,
/// waits for the cluster barrier that every thread arrived on at the kernel's start (so the
/// peers' barriers are initialized), and sends every pair to its adder's slot for it (slot = the
/// sender's rank) with an asynchronous distributed shared-memory store (st.async, to itself
/// too) that completes its bytes on the adder's barrier; each block waits for its barrier (the
/// bytes of all S senders), adds its share's S slots in slice order (the same sum whatever the
/// blocks' timing: deterministic), applies the epilogue and stores C as wgmma_store_direct does.
/// No fence: until run KE each send was a plain store and each block arrived on every block's
/// barrier with release at cluster scope and waited with acquire there, and those fences
/// (MEMBAR.ALL.GPU, an L1 invalidation) and the cluster barrier at the kernel's start made the
/// kernel 1.4 µs slower than the same tile storing its partial sums (Nsight Compute, run KC).
/// The thread that adds a pair holds it in every block's fragments, so it knows the pair's row
/// and column. A block reads only its own memory, and it waits for every send to it before it
/// exits, so no block exits under a send.
template <class Tile, class Epi, class Types, int HAZARDS>
__device__ __forceinline__ void wgmma_reduce_in_cluster(float (&acc)[Tile::config.m_iters()][Tile::config.bn / 2],
                                                        const typename Types::Bias* __restrict__ bias,
                                                        typename Types::C* __restrict__ C, const WgmmaSmem<Tile>& sm,
                                                        int M, int N, int m0, int n0, int consumer) {
  constexpr WgmmaConfig cfg = Tile::config;
  constexpr int S = cfg.split, P = cfg.pairs_per_block(), ROW_PAIRS = cfg.bn / 4;
  using CT = typename Types::C;
  const int t = consumer * WgmmaConfig::kWarpgroup + threadIdx.x % WgmmaConfig::kWarpgroup;
  const unsigned rank = blockIdx.z;  // the cluster is (1, 1, S) over a grid of S in z
  const auto [warp, lane, row0, col0] = wgmma_fragment_origin<Tile>(m0, n0, consumer);
  // The bias words of this block's share, loaded before the sends so that their latency goes
  // under the cluster's exchange (loaded after the wait, one per pair, they were exposed: run JE).
  unsigned bias_word[P];
#pragma unroll
  for (int p = 0; p < P; ++p) {
    const int q = static_cast<int>(rank) * P + p, col = col0 + 8 * ((q % ROW_PAIRS) / 2);
    bias_word[p] = (Epi::kUsesBias && q < cfg.sum_pairs() && col < N) ? *reinterpret_cast<const unsigned*>(bias + col) : 0u;
  }
  // Pair p's two bias values, from its word.
  auto bias_pair = [&](int p) {
    return make_float2(to_float(typename Types::Bias{static_cast<unsigned short>(bias_word[p] & 0xFFFFu)}),
                       to_float(typename Types::Bias{static_cast<unsigned short>(bias_word[p] >> 16)}));
  };
  // This block's barrier expects every block's sends of its share (one arrival, this one, and
  // the bytes: S blocks x its pairs x every consumer thread x 8; the last share may be short);
  // the peers' barriers were initialized before they arrived on the cluster barrier (the wait).
  if (t == 0) {
    const int mine = cfg.sum_pairs() - static_cast<int>(rank) * P;
    const int pairs = mine < P ? (mine > 0 ? mine : 0) : P;
    sm90::mbarrier_arrive_expect_tx(sm.sums(), static_cast<unsigned>(S * pairs * cfg.consumers * WgmmaConfig::kWarpgroup * 8));
  }
  sm90::cluster_wait();
#pragma unroll
  for (int mi = 0; mi < cfg.m_iters(); ++mi)
#pragma unroll
    for (int pp = 0; pp < ROW_PAIRS; ++pp) {
      const int q = mi * ROW_PAIRS + pp;
      sm90::st_async_v2_f32(sm.cluster_sum(static_cast<int>(rank), q % P, t), static_cast<unsigned>(q / P),
                            acc[mi][2 * pp], acc[mi][2 * pp + 1], sm.sums());
    }
  sm90::mbarrier_wait(sm.sums(), 0);

  // Every slot's loads first, then every pair's epilogue, then the stores: with a pair's loads,
  // epilogue and store in one iteration, the shared loads (volatile asm) could not pass the
  // previous pair's store, and the one consumer warp per scheduler ran the pairs' GELUs one
  // after another (run KG: 14% of the kernel's samples after the wait).
  float2 sum[P];
#pragma unroll
  for (int p = 0; p < P; ++p) {
    sum[p] = make_float2(0.0f, 0.0f);
#pragma unroll
    for (int from = 0; from < S; ++from) {
      // The planted bugs of the check's test: slice 0's sums left out by every other block, and
      // the activation applied to this block's own sums before the others are added.
      if constexpr ((HAZARDS & kWgmmaHazardLostPartial) != 0)
        if (from == 0 && rank != 0) continue;
      float2 v = sm90::ld_shared_v2_f32(sm.cluster_sum(from, p, t));
      if constexpr ((HAZARDS & kWgmmaHazardDoubleEpilogue) != 0)
        if (from == static_cast<int>(rank)) {
          const float2 b = bias_pair(p);
          v = make_float2(Epi::apply(v.x, b.x), Epi::apply(v.y, b.y));
        }
      sum[p].x += v.x;
      sum[p].y += v.y;
    }
  }
  unsigned packed[P];
#pragma unroll
  for (int p = 0; p < P; ++p) {
    const float2 b = bias_pair(p);
    packed[p] = detail::pack_pair(from_float<CT>(Epi::apply(sum[p].x, b.x)).bits, from_float<CT>(Epi::apply(sum[p].y, b.y)).bits);
  }
#pragma unroll
  for (int p = 0; p < P; ++p) {
    // Pair q is accumulators 2pp, 2pp + 1 of m64 block mi: d[4j + 2h + e] with pp = 2j + h. The
    // last block's share may be short (q >= sum_pairs). N % 8 == 0 (check_problem), so col < N
    // means col + 1 < N too.
    const int q = static_cast<int>(rank) * P + p;
    const int mi = q / ROW_PAIRS, pp = q % ROW_PAIRS;
    const int row = row0 + mi * WgmmaConfig::kWgmmaM + 8 * (pp % 2), col = col0 + 8 * (pp / 2);
    if (q < cfg.sum_pairs() && row < M && col < N)
      *reinterpret_cast<unsigned*>(C + static_cast<long long>(row) * N + col) = packed[p];
  }
}

/// The epilogue through the TMA store, warp by warp: each warp writes its 16 rows × BN of C
/// (after the epilogue, rounded) into its part of the consumer's staging tile, 64 columns per
/// 128-byte-swizzled chunk (so the warp's 4-byte writes hit 32 different banks), fences the
/// writes into the async proxy, and its lane 0 stores them with TMA (16 × 64 boxes), which
/// clips them at the matrix edges. No warp waits for another. H >= 0 (k_interleave = 2, both
/// consumers finishing the one tile): the warp's 8 rows of that half (16w + 8H..), into the
/// tile's one staging area, stored as 8 × 64 boxes (the C map's box, WgmmaConfig::c_box_rows).
template <class Tile, class Epi, class Types, int HAZARDS, int H = -1>
__device__ __forceinline__ void wgmma_store_tma(float (&acc)[Tile::config.m_iters()][Tile::config.bn / 2],
                                                const typename Types::Bias* __restrict__ bias,
                                                const TensorMap* c_map, const WgmmaSmem<Tile>& sm, int M, int N,
                                                int m0, int n0, int consumer) {
  constexpr WgmmaConfig cfg = Tile::config;
  using CT = typename Types::C;
  constexpr int ROWS = cfg.rows_per_consumer();
  constexpr int ROW = WgmmaConfig::kSwizzleBytes;
  constexpr int CHUNK_BYTES = ROWS * ROW;
  constexpr int COLS = WgmmaConfig::kRowElements;
  const int warp = (threadIdx.x % WgmmaConfig::kWarpgroup) / 32, lane = threadIdx.x % 32;
  // The consumer's part of the staging area: its rows of the tile, or with pingpong its own tile.
  const unsigned stage = H >= 0 ? sm.c_stage : sm.c_stage + consumer * (cfg.store_bytes() / cfg.consumers);

  // The warp's stores of the previous tile must have read its rows before they are overwritten.
  if (lane == 0) sm90::bulk_wait_group_read<0>();
  __syncwarp();
  // 32 columns at a time, their bias pairs loaded first (WgmmaBiasGroup).
  using BiasGroup = WgmmaBiasGroup<Epi, Types>;
#pragma unroll
  for (int g = 0; g < cfg.bn / 8 / BiasGroup::kPairs; ++g) {
    const BiasGroup b(bias, N, n0 + 8 * BiasGroup::kPairs * g + 2 * (lane % 4));
#pragma unroll
    for (int jj = 0; jj < BiasGroup::kPairs; ++jj) {
      // Local row r = 64mi + 16warp + lane/4 + 8h, so r % 8 = lane/4; columns 8j.. are 16-byte
      // unit j % 8 of chunk j / 8.
      const int j = BiasGroup::kPairs * g + jj;
      const unsigned chunk = stage + (j / 8) * CHUNK_BYTES;
#pragma unroll
      for (int mi = 0; mi < cfg.m_iters(); ++mi)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          if constexpr (H >= 0)
            if (h != H) continue;
          const int r = mi * WgmmaConfig::kWgmmaM + warp * 16 + lane / 4 + 8 * h;
          const CT lo = from_float<CT>(Epi::apply(acc[mi][4 * j + 2 * h], b.lo(jj)));
          const CT hi = from_float<CT>(Epi::apply(acc[mi][4 * j + 2 * h + 1], b.hi(jj)));
          sm90::st_shared_b32(wgmma_staged_word(chunk, r, j % 8, lane), detail::pack_pair(lo.bits, hi.bits));
        }
    }
  }
  // Ordinary stores, read next by the TMA engine (the async proxy): each writing thread fences
  // before the warp barrier that hands its rows to lane 0.
  if constexpr (!(HAZARDS & kWgmmaHazardNoProxyFence)) sm90::fence_proxy_async_shared();
  __syncwarp();
  if (lane == 0) {
#pragma unroll
    for (int mi = 0; mi < cfg.m_iters(); ++mi) {
      const int r = mi * WgmmaConfig::kWgmmaM + warp * 16 + (H >= 0 ? 8 * H : 0);
      const int row = m0 + cfg.consumer_row(consumer) + r;
      if (row >= M) continue;
#pragma unroll
      for (int c = 0; c < cfg.bn / COLS; ++c)
        if (n0 + c * COLS < N) sm90::tma_store_2d(c_map, stage + c * CHUNK_BYTES + r * ROW, n0 + c * COLS, row);
    }
    sm90::bulk_commit_group();
  }
}

/// Where the epilogue warps' slots keep a value (epilogue_slots > 0). A slot holds 64
/// columns of the tile's BM rows as f32, in 2 KB pieces: piece q < BM/16 holds columns 0..31 of
/// the 16-row group q (rows 16q.., q = (consumer·m_iters + mi)·4 + warp) and piece q + BM/16 its
/// columns 32..63, each as 4 column groups × 32 lanes of 16-byte units (the float4
/// d[4j..4j+3] of lane l: rows r and r+8, columns 8j + 2(l%4) and the next). So a warp's 32
/// lanes write and read 512 contiguous bytes, without bank conflicts, and the rounded 16-bit
/// rows of group q (2 KB: 16 rows of 128 bytes, in the 128-byte swizzle the TMA store reads)
/// fit exactly over piece q, which only the same warp reads: the epilogue warps round a
/// slot in place.
template <class Tile>
__device__ __forceinline__ unsigned wgmma_slot_unit(unsigned slot, int group, int jj, int lane) {
  constexpr int GROUPS = Tile::config.bm / WgmmaConfig::kWarpRows;
  return slot + (group + (jj >= 4 ? GROUPS : 0)) * 2048 + (jj % 4) * 512 + lane * 16;
}

/// The consumers' side of the epilogue warps: the tile's raw f32 sums (no bias, no
/// activation), 64 columns at a time, each into the next slot once the epilogue warps have
/// released it, announced on the slot's `full` mbarrier (one arrival per consumer thread, which
/// publishes the thread's stores). `chunk` counts the block's 64-column chunks so far; the
/// epilogue warps count the same sequence, so both agree on every (slot, phase).
template <class Tile>
__device__ __forceinline__ void wgmma_hand_off(float (&acc)[Tile::config.m_iters()][Tile::config.bn / 2],
                                               const WgmmaSmem<Tile>& sm, int consumer, int& chunk) {
  constexpr WgmmaConfig cfg = Tile::config;
  constexpr int SLOTS = cfg.epilogue_slots;
  const int warp = (threadIdx.x % WgmmaConfig::kWarpgroup) / 32, lane = threadIdx.x % 32;
#pragma unroll
  for (int g = 0; g < cfg.bn / WgmmaConfig::kRowElements; ++g, ++chunk) {
    const int s = chunk % SLOTS;
    sm90::mbarrier_wait(sm.slot_empty(s), ((chunk / SLOTS) & 1) ^ 1u);
#pragma unroll
    for (int mi = 0; mi < cfg.m_iters(); ++mi) {
      const int group = (consumer * cfg.m_iters() + mi) * 4 + warp;
#pragma unroll
      for (int jj = 0; jj < 8; ++jj) {
        const float* d = &acc[mi][4 * (8 * g + jj)];
        sm90::st_shared_v4_f32(wgmma_slot_unit<Tile>(sm.slot(s), group, jj, lane), d[0], d[1], d[2], d[3]);
      }
    }
    sm90::mbarrier_arrive(sm.slot_full(s));
  }
}

/// The epilogue warps (epilogue_slots > 0; warps 1..3 of the producer warpgroup, whose warp 0
/// issues the TMA copies): they walk the block's tiles as the consumers do and, for each
/// 64-column chunk, wait for its slot, apply the epilogue to the f32 sums and round them into
/// the slot itself (each warp its own 16-row groups q ≡ warp - 1 mod 3, whose pieces only it
/// reads: a warp barrier between reading a piece and writing over it is enough), then store the
/// chunk with TMA, 16 rows per store, clipped at the matrix edges. A slot goes back to the
/// consumers once the TMA engine has read it: lane 0 of each warp arrives on its `empty`
/// mbarrier after the next chunk's stores are issued (or at once with a single slot).
template <class Tile, class Epi, class Types, int HAZARDS>
__device__ __forceinline__ void wgmma_epilogue_warps(const TensorMap* c_map,
                                                     const typename Types::Bias* __restrict__ bias,
                                                     const WgmmaSmem<Tile>& sm, int M, int N) {
  constexpr WgmmaConfig cfg = Tile::config;
  constexpr int SLOTS = cfg.epilogue_slots, COLS = WgmmaConfig::kRowElements;
  constexpr int ROW = WgmmaConfig::kSwizzleBytes, WARPS = WgmmaConfig::kEpilogueWarps;
  constexpr int GROUPS = cfg.bm / WgmmaConfig::kWarpRows;  // 16-row groups of a tile
  using CT = typename Types::C;
  using BiasGroup = WgmmaBiasGroup<Epi, Types>;
  const int warp = threadIdx.x / 32 - 1, lane = threadIdx.x % 32;
  const WgmmaTileWalk<Tile> walk(M, N);
  int chunk = 0;
  for (int i = walk.first(); i < walk.count(); i += walk.stride()) {
    const TileCoord t = walk.at(i);
    const int m0 = t.m * cfg.bm, n0 = t.n * cfg.bn;
#pragma unroll 1
    for (int g = 0; g < cfg.bn / COLS; ++g, ++chunk) {
      const int s = chunk % SLOTS;
      const unsigned slot = sm.slot(s);
      sm90::mbarrier_wait(sm.slot_full(s), (chunk / SLOTS) & 1);
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const BiasGroup b(bias, N, n0 + g * COLS + 32 * half + 2 * (lane % 4));
#pragma unroll
        for (int group = warp; group < GROUPS; group += WARPS) {
          float4 v[4];
#pragma unroll
          for (int jj = 0; jj < 4; ++jj) v[jj] = sm90::ld_shared_v4_f32(wgmma_slot_unit<Tile>(slot, group, 4 * half + jj, lane));
          unsigned word[4][2];
#pragma unroll
          for (int jj = 0; jj < 4; ++jj) {
            word[jj][0] = detail::pack_pair(from_float<CT>(Epi::apply(v[jj].x, b.lo(jj))).bits,
                                            from_float<CT>(Epi::apply(v[jj].y, b.hi(jj))).bits);
            word[jj][1] = detail::pack_pair(from_float<CT>(Epi::apply(v[jj].z, b.lo(jj))).bits,
                                            from_float<CT>(Epi::apply(v[jj].w, b.hi(jj))).bits);
          }
          // Every lane has read the piece the rounded rows of `group` go over (half 0), or
          // that piece was read in half 0 already.
          __syncwarp();
#pragma unroll
          for (int jj = 0; jj < 4; ++jj)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
              // Row 16·group + lane/4 + 8h of the chunk, as wgmma_store_tma lays out C.
              const int r = group * WgmmaConfig::kWarpRows + lane / 4 + 8 * h;
              sm90::st_shared_b32(wgmma_staged_word(slot, r, 4 * half + jj, lane), word[jj][h]);
            }
        }
      }
      // Ordinary stores, read next by the TMA engine: fence them into the async proxy.
      if constexpr (!(HAZARDS & kWgmmaHazardNoProxyFence)) sm90::fence_proxy_async_shared();
      __syncwarp();
      if (lane == 0) {
        const int col = n0 + g * COLS;
#pragma unroll
        for (int group = warp; group < GROUPS; group += WARPS) {
          const int row = m0 + group * WgmmaConfig::kWarpRows;
          if (row < M && col < N) sm90::tma_store_2d(c_map, slot + group * WgmmaConfig::kWarpRows * ROW, col, row);
        }
        sm90::bulk_commit_group();
        if constexpr ((HAZARDS & kWgmmaHazardEarlySlotRelease) != 0) {
          sm90::mbarrier_arrive(sm.slot_empty(s));
        } else if constexpr (SLOTS == 1) {
          sm90::bulk_wait_group_read<0>();
          sm90::mbarrier_arrive(sm.slot_empty(s));
        } else {
          // This warp's stores of the chunk before have been read: its slot may be refilled.
          sm90::bulk_wait_group_read<1>();
          if (chunk > 0) sm90::mbarrier_arrive(sm.slot_empty((chunk - 1) % SLOTS));
        }
      }
    }
  }
  // Shared memory must outlive the last TMA stores' reads; their writes to C complete with the
  // grid, as CUTLASS's TMA epilogue leaves them (waiting for the writes too cost each block's
  // last tile a wait for its stores and an L1 invalidation, CCTL.IVALL: run LJ).
  if (lane == 0) sm90::bulk_wait_group_read<0>();
}

/// Stream-K's fix-up: 16-byte loads of another block's sums issued before their adds.
constexpr int kStreamKLoadsInFlight = 8;

/// Stream-K's workspace (kernels/core/family.hpp kStreamKParam): a slot of one tile's f32 sums
/// per block of the grid, then a flag per block. A slot is laid out in the accumulators' own
/// order, so each consumer thread writes and reads 16-byte units of its own, a warp's 32 of
/// them contiguous: unit q of consumer thread t (0 .. consumers·128 - 1) at 16·(q·threads + t).
template <class Tile>
struct WgmmaStreamKSlots {
  static constexpr WgmmaConfig cfg = Tile::config;
  static constexpr int kThreads = cfg.consumers * WgmmaConfig::kWarpgroup;
  static constexpr int kUnits = cfg.accumulators() / 4;  // float4s per consumer thread
  float* workspace;
  __device__ __forceinline__ float4* slot(int block) const {
    return reinterpret_cast<float4*>(workspace + static_cast<long long>(block) * cfg.partial_floats());
  }
  __device__ __forceinline__ unsigned* flag(int block) const {
    return reinterpret_cast<unsigned*>(workspace + static_cast<long long>(gridDim.x) * cfg.partial_floats()) + block;
  }
  /// This thread's index among the consumer threads.
  __device__ __forceinline__ static int thread() { return static_cast<int>(threadIdx.x) - WgmmaConfig::kWarpgroup; }
};

/// Stream-K, a block's piece of a shared tile that does not hold its first K steps (at most one
/// per block, its first unit): its raw f32 sums into the block's slot; once every consumer
/// thread has stored and fenced, one raises the block's flag (release).
template <class Tile>
__device__ __forceinline__ void wgmma_stream_k_store(float (&acc)[Tile::config.m_iters()][Tile::config.bn / 2],
                                                     float* __restrict__ workspace) {
  using Slots = WgmmaStreamKSlots<Tile>;
  const Slots slots{workspace};
  float4* slot = slots.slot(static_cast<int>(blockIdx.x));
  const float* a = &acc[0][0];
#pragma unroll
  for (int q = 0; q < Slots::kUnits; ++q)
    slot[q * Slots::kThreads + Slots::thread()] = make_float4(a[4 * q], a[4 * q + 1], a[4 * q + 2], a[4 * q + 3]);
  __threadfence();
  sm90::named_barrier_sync(kReduceBarrier, Slots::kThreads);
  if (Slots::thread() == 0) sm90::st_release_gpu(slots.flag(static_cast<int>(blockIdx.x)), 1u);
}

/// Stream-K, the block holding a shared tile's first K steps (a unit that ends inside the
/// tile): for each later block whose range starts inside the tile (blockIdx.x + 1 up to
/// peers_end, WgmmaWork::next), in block order, wait for its flag (acquire) and add its sums
/// from L2 into the accumulators; then, once every consumer
/// thread has seen every flag, lower the flags for the next launch. The sum's order is the
/// blocks' order whatever the timing: the result is the same bits on every run of one grid.
template <class Tile, class Epi, int HAZARDS>
__device__ __forceinline__ void wgmma_stream_k_fixup(float (&acc)[Tile::config.m_iters()][Tile::config.bn / 2],
                                                     float* __restrict__ workspace, int peers_end) {
  using Slots = WgmmaStreamKSlots<Tile>;
  const Slots slots{workspace};
  const int first_peer = static_cast<int>(blockIdx.x) + 1;
  float* a = &acc[0][0];
  if constexpr ((HAZARDS & kWgmmaHazardDoubleEpilogue) != 0) {
#pragma unroll
    for (int i = 0; i < 4 * Slots::kUnits; ++i) a[i] = Epi::apply(a[i], 0.0f);
  }
  for (int p = first_peer; p < peers_end; ++p) {
    if constexpr ((HAZARDS & kWgmmaHazardLostPartial) != 0)
      if (p == peers_end - 1) break;
    sm90::wait_flag_gpu(slots.flag(p));
    const float4* slot = slots.slot(p) + Slots::thread();
    constexpr int ROW = Tile::config.bn / 2;
#pragma unroll
    for (int q = 0; q < Slots::kUnits; ++q) {
      // L2, not L1: the other block's stores are not in this SM's L1.
      const float4 v = __ldcg(slot + q * Slots::kThreads);
      float* d = &acc[(4 * q) / ROW][(4 * q) % ROW];
      d[0] += v.x;
      d[1] += v.y;
      d[2] += v.z;
      d[3] += v.w;
      // At most kLoadsInFlight loads ahead of their adds: all of a slot's at once would need
      // as many registers again as the accumulators.
      if ((q + 1) % kStreamKLoadsInFlight == 0) asm volatile("" ::: "memory");
    }
  }
  sm90::named_barrier_sync(kReduceBarrier, Slots::kThreads);
  if (Slots::thread() == 0)
    for (int p = first_peer; p < peers_end; ++p) *slots.flag(p) = 0u;
}

/// The named barriers that order ping-pong consumers: consumer c waits on kPingPongOrder + c.
constexpr unsigned kPingPongOrder = 1;
/// The named barriers of k_interleave's hand-off: consumer 1's sums are stored, and consumer 0
/// has read them (so the next tile's may go over them).
constexpr unsigned kInterleaveStored = 6;
constexpr unsigned kInterleaveRead = 7;

/// k_interleave = 1, after a tile's main loop, both consumers holding the whole tile's sums over
/// their own K slices: consumer 1 stores its sums for consumer 0 and is done with the tile
/// (false); consumer 0 adds them to its own, in the same order every run, and goes on to the
/// epilogue (true). Thread t of one consumer holds the same elements of the tile as thread t of
/// the other, so each thread hands over its own accumulators, float4 by float4 (WgmmaSmem::k_sum).
/// A barrier (arrive by the storing consumer, sync by the reading one) orders each way: consumer
/// 1 stores a tile's sums only once consumer 0 has read the tile before's (`after_first`), and
/// consumer 0 says so only where another tile follows (`more`), so no arrival is left unmatched.
template <class Tile, int HAZARDS>
__device__ __forceinline__ bool wgmma_interleave_hand_off(float (&acc)[Tile::config.m_iters()][Tile::config.mma_cols() / 2],
                                                          const WgmmaSmem<Tile>& sm, int consumer, bool after_first,
                                                          bool more) {
  constexpr WgmmaConfig cfg = Tile::config;
  constexpr int UNITS = cfg.accumulators() / 4, ROW = cfg.mma_cols() / 2;
  constexpr unsigned kBoth = 2 * WgmmaConfig::kWarpgroup;
  const int t = threadIdx.x % WgmmaConfig::kWarpgroup;
  if (consumer == 1) {
    if (after_first) sm90::named_barrier_sync(kInterleaveRead, kBoth);
#pragma unroll
    for (int q = 0; q < UNITS; ++q) {
      const float* d = &acc[(4 * q) / ROW][(4 * q) % ROW];
      sm90::st_shared_v4_f32(sm.k_sum(q, t), d[0], d[1], d[2], d[3]);
    }
    sm90::named_barrier_arrive(kInterleaveStored, kBoth);
    return false;
  }
  sm90::named_barrier_sync(kInterleaveStored, kBoth);
  // The planted lost partial sum: consumer 1's slices are left out of the tile.
  if constexpr ((HAZARDS & kWgmmaHazardLostPartial) == 0) {
#pragma unroll
    for (int q = 0; q < UNITS; ++q) {
      const float4 v = sm90::ld_shared_v4_f32(sm.k_sum(q, t));
      float* d = &acc[(4 * q) / ROW][(4 * q) % ROW];
      d[0] += v.x;
      d[1] += v.y;
      d[2] += v.z;
      d[3] += v.w;
    }
  }
  if (more) sm90::named_barrier_arrive(kInterleaveRead, kBoth);
  return true;
}
/// k_interleave = 2, after a tile's main loop, both consumers holding the whole tile's sums over
/// their own K slices: consumer KEEP keeps the rows of half KEEP (d[4j + 2·KEEP + e], rows
/// 8·KEEP.. of each warp's 16), stores the other half's sums for the other consumer, and adds
/// the other's sums of its own half, in the same order every run. Each consumer's thread t
/// holds the same elements as thread t of the other, so each hands over the pairs of two column
/// groups per float4 (WgmmaSmem::k_sum; consumer c reads the area's half c). Both barriers are
/// the two consumers' 256 threads meeting: the sums are stored before either reads them, and a
/// tile's sums are read by both before either stores the next tile's over them (`after_first`).
template <class Tile, int HAZARDS, int KEEP>
__device__ __forceinline__ void wgmma_interleave_exchange(float (&acc)[Tile::config.m_iters()][Tile::config.mma_cols() / 2],
                                                          const WgmmaSmem<Tile>& sm, bool after_first) {
  constexpr WgmmaConfig cfg = Tile::config;
  constexpr int GROUPS = cfg.mma_cols() / 8;               // column groups of 8 in each m64 block
  constexpr int UNITS = cfg.m_iters() * GROUPS / 2;        // float4s per thread in one half
  constexpr int GIVE = 1 - KEEP;
  constexpr unsigned kBoth = 2 * WgmmaConfig::kWarpgroup;
  const int t = threadIdx.x % WgmmaConfig::kWarpgroup;
  if (after_first) sm90::named_barrier_sync(kInterleaveRead, kBoth);
#pragma unroll
  for (int u = 0; u < UNITS; ++u) {
    // Column groups 2u and 2u + 1 of the thread's rows (GROUPS is even, so both lie in one m64 block).
    const int mi = (2 * u) / GROUPS, j = (2 * u) % GROUPS;
    const float* d = &acc[mi][4 * j + 2 * GIVE];
    sm90::st_shared_v4_f32(sm.k_sum(GIVE * UNITS + u, t), d[0], d[1], d[4], d[5]);
  }
  sm90::named_barrier_sync(kInterleaveStored, kBoth);
  // The planted lost partial sum: consumer 0 leaves consumer 1's sums out of its half.
  if constexpr ((HAZARDS & kWgmmaHazardLostPartial) == 0 || KEEP == 1) {
#pragma unroll
    for (int u = 0; u < UNITS; ++u) {
      const int mi = (2 * u) / GROUPS, j = (2 * u) % GROUPS;
      const float4 v = sm90::ld_shared_v4_f32(sm.k_sum(KEEP * UNITS + u, t));
      float* d = &acc[mi][4 * j + 2 * KEEP];
      d[0] += v.x;
      d[1] += v.y;
      d[4] += v.z;
      d[5] += v.w;
    }
  }
}

/// k_interleave = 2: consumer KEEP's half of the tile, after the exchange: its partial sums
/// (split-K, the separate reduce), or the epilogue through the TMA store or direct.
template <class Tile, class Epi, class Types, int HAZARDS, int KEEP>
__device__ __forceinline__ void wgmma_finish_half(float (&acc)[Tile::config.m_iters()][Tile::config.mma_cols() / 2],
                                                  const typename Types::Bias* __restrict__ bias,
                                                  typename Types::C* __restrict__ C, float* __restrict__ workspace,
                                                  const TensorMap* c_map, const WgmmaSmem<Tile>& sm, int M, int N,
                                                  int m0, int n0, bool after_first,
                                                  const WgmmaSwappedBias<Tile, Types>& swapped_bias,
                                                  const typename Types::C* __restrict__ residual) {
  constexpr WgmmaConfig cfg = Tile::config;
  wgmma_interleave_exchange<Tile, HAZARDS, KEEP>(acc, sm, after_first);
  if ((HAZARDS & kWgmmaStampPhases) != 0 && threadIdx.x % WgmmaConfig::kWarpgroup == 0)
    wgmma_stamp<HAZARDS>(kPhaseExchanged + KEEP * kPhaseConsumerSteps);
  if constexpr (cfg.swapped() && cfg.split > 1)
    wgmma_store_transposed_partials<Tile, KEEP>(acc, workspace + static_cast<long long>(blockIdx.z) * M * N, M, N, m0,
                                                n0, KEEP);
  else if constexpr (cfg.swapped())
    wgmma_store_transposed_with<Tile, Epi, Types, KEEP>(acc, swapped_bias.at(), C, M, N, m0, n0, KEEP);
  else if constexpr (cfg.split > 1)
    wgmma_store_partials<Tile, KEEP>(acc, workspace + static_cast<long long>(blockIdx.z) * M * N, M, N, m0, n0, KEEP);
  else if constexpr (cfg.tma_store)
    wgmma_store_tma<Tile, Epi, Types, HAZARDS, KEEP>(acc, bias, c_map, sm, M, N, m0, n0, KEEP);
  else
    wgmma_store_direct<Tile, Epi, Types, KEEP>(acc, bias, C, M, N, m0, n0, KEEP, residual);
}

/// The named barriers of the planted early releases (kWgmmaHazardEarlyRelease,
/// kWgmmaHazardReleaseInFlight): 4 + consumer.
constexpr unsigned kEarlyReleaseBarrier = 4;

/// A consumer warpgroup: for each of the block's tiles, multiply its rows of the tile over K
/// from the ring, release each slot once its wgmmas are done, then run the epilogue.
template <class Tile, class Epi, class Types, int HAZARDS>
__device__ __forceinline__ void wgmma_consume(const TensorMap* c_map, const typename Types::Bias* __restrict__ bias,
                                              typename Types::C* __restrict__ C, float* __restrict__ workspace,
                                              const WgmmaSmem<Tile>& sm, int M, int N, int K, int consumer,
                                              const typename Types::C* __restrict__ residual) {
  constexpr WgmmaConfig cfg = Tile::config;
  constexpr int BN = cfg.bn, BK = cfg.bk, MI = cfg.m_iters(), NC = cfg.mma_cols();
  constexpr int ROW = WgmmaConfig::kSwizzleBytes;
  constexpr bool kBf16 = Types::math == Math::bf16;
  // wgmma.wait_group's depth before a slot is released: 1 keeps one group of MMAs in flight
  // while the previous slot goes back to the producer. The planted hazard waits for too little.
  constexpr int kReleaseDepth = (HAZARDS & kWgmmaHazardShallowWait) ? cfg.stages : 1;
  constexpr bool kEarlyRelease = (HAZARDS & kWgmmaHazardEarlyRelease) != 0;
  constexpr bool kReleaseInFlight = (HAZARDS & kWgmmaHazardReleaseInFlight) != 0;
  // The planted hazards that release a slot at a point of their own instead of the kernel's.
  constexpr bool kOwnRelease = kEarlyRelease || kReleaseInFlight;
  const bool releaser = threadIdx.x % WgmmaConfig::kWarpgroup == 0;

  // Descriptors of slot 0 for this consumer's rows; a slot, an m64 block and a K step are
  // offsets added to the start address. A (K-major, 128B swizzle): 8-row groups 1024 bytes
  // apart (stride byte offset); the leading byte offset is unused for a swizzled K-major
  // operand whose K step (16 elements, 32 bytes) lies inside one 128-byte row, and set to 16.
  // B (N-major, 128B swizzle; CUTLASS's canonical ((64,n),(8,k)) MN-major layout): the 64
  // columns of a 128-byte row, 8 k rows per 1024-byte swizzle atom; the leading byte offset is
  // the distance between 64-column chunks (BK rows x 128 bytes), the stride byte offset the
  // distance between 8-row groups along K (1024 bytes).
  // tf32: the A slot (all BM rows) is wgmma's B operand, K-major as A is above.
  const unsigned long long a_desc0 = sm90::matrix_descriptor_128b(
      sm.a_slot(0) + (cfg.transposed() ? 0 : cfg.consumer_row(consumer) * ROW), 16, 8 * ROW);
  // The narrow tile (BN = 32): one 32-column chunk of 64-byte rows in the 64-byte swizzle, 8 k
  // rows per 512-byte atom (the leading byte offset unused, one chunk). The 128-byte case keeps
  // its own call: written as matrix_descriptor<B_ROW> it changes the ping-pong kernels' SASS
  // (the same values, scheduled differently), which run HA..ID measured as it is.
  constexpr int B_ROW = cfg.b_swizzle_bytes();
  const unsigned long long b_desc0 = B_ROW == ROW ? sm90::matrix_descriptor_128b(sm.b_slot(0), BK * ROW, 8 * ROW)
                                                  : sm90::matrix_descriptor<B_ROW>(sm.b_slot(0), BK * B_ROW, 8 * B_ROW);
  // The swapped tile (C^T = B^T A^T): wgmma's A is B's slot, M-major, from this consumer's
  // 64-column chunk (the layout B's descriptor above describes, now the transposed A operand:
  // 8 k rows per 1024-byte atom, the stride byte offset between them), and wgmma's B is A's
  // slot, K-major as A's descriptor above describes it (BM rows, 8-row groups 1024 bytes apart).
  const unsigned long long swapped_a_desc0 =
      sm90::matrix_descriptor_128b(sm.b_slot(0) + (cfg.consumer_row(consumer) / WgmmaConfig::kWgmmaM) * BK * ROW,
                                   BK * ROW, 8 * ROW);
  const unsigned long long swapped_b_desc0 = sm90::matrix_descriptor_128b(sm.a_slot(0), 16, 8 * ROW);
  // tf32: where this thread's A fragment values lie in a B slot: B^T[r][k] = B[k][c] for its rows
  // r = 16·warp + lane/4 + 8i of a 64-column block, c = wgmma_tf32_column(r), and k = lane%4 + 4j
  // of a k8 step: chunk c/32 of the block's two 32-column chunks, k-row k, 16-byte unit
  // (c%32)/4 swizzled by k%8 (the 128-byte swizzle; k%8 is the same in every k8 step), word c%4.
  // A block and a k8 step are offsets added to these (2 chunks and 8 k-rows further).
  unsigned frag_offset[2][2] = {};
  if constexpr (cfg.transposed()) {
    const int warp = (threadIdx.x % WgmmaConfig::kWarpgroup) / 32, lane = threadIdx.x % 32;
    constexpr int CHUNK_BYTES = BK * ROW;
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        const int c = wgmma_tf32_column(16 * warp + lane / 4 + 8 * i), k = lane % 4 + 4 * j;
        frag_offset[i][j] = static_cast<unsigned>((c / 32) * CHUNK_BYTES + k * ROW + (((c % 32) / 4) ^ k) * 16 + (c % 4) * 4);
      }
  }

  float acc[MI][NC / 2];
#pragma unroll
  for (int mi = 0; mi < MI; ++mi)
#pragma unroll
    for (int i = 0; i < NC / 2; ++i) acc[mi][i] = 0.0f;

  WgmmaWork<Tile> work(M, N, K);
  const int rank = work.walk.rank;
  // A slot goes back to the producer of this block and, in a cluster, of the other block too
  // (whose copies also land in it).
  auto release = [&](int slot) {
    sm90::mbarrier_arrive(sm.empty(slot));
    if constexpr (WgmmaTileWalk<Tile>::kCluster > 1) sm90::mbarrier_arrive_cluster(sm.empty(slot), rank ^ 1);
  };
  // The planted kWgmmaHazardReleaseInFlight: every warp of the warpgroup has issued the group
  // reading `slot` (so has seen its phase; see kEarlyRelease below) when it goes back.
  auto release_in_flight = [&](int slot) {
    sm90::named_barrier_sync(kEarlyReleaseBarrier + consumer, WgmmaConfig::kWarpgroup);
    if (releaser) release(slot);
  };
  // kWgmmaStampPhases: the first thread of each consumer stamps its steps.
  const bool stamper = (HAZARDS & kWgmmaStampPhases) != 0 && threadIdx.x % WgmmaConfig::kWarpgroup == 0;
  const int stamp_base = consumer * kPhaseConsumerSteps;  // consumer 1's steps follow consumer 0's
  RingCursor<cfg.stages> ring;
  int turn = 0;   // the block's tiles so far: with pingpong, consumer `turn % 2` takes this one
  int chunk = 0;  // with epilogue warps: the 64-column chunks handed to them so far
  for (WgmmaUnit u; work.next(u); ++turn) {
    // An empty split-K slice runs no wgmma, so its accumulators keep the zeros above and it
    // stores zeros; it waits for no slot and releases none (the producer loads none).
    const int k_blocks = u.k_count;
    if constexpr (cfg.pingpong) {
      if (turn % 2 != consumer) {
        ring.skip(k_blocks);  // the other consumer's slices
        continue;
      }
      // The other consumer has received every slice of the tile before this one (see the top).
      if (turn > 0) sm90::named_barrier_sync(kPingPongOrder + consumer, 2 * WgmmaConfig::kWarpgroup);
    }
    const TileCoord t = u.tile;
    const int m0 = t.m * cfg.bm, n0 = t.n * BN;
    // The swapped tile's bias, loaded before its main loop (split-K's blocks store raw sums).
    WgmmaSwappedBias<Tile, Types> swapped_bias;
    if constexpr (cfg.swapped() && cfg.split == 1 && Epi::kUsesBias) swapped_bias.load(bias, N, n0, consumer);
    int previous = 0;
    // k_interleave: the slices this consumer has multiplied of the tile (those in the slots of
    // its parity); without it every slice is the consumer's, and `kb` counts them.
    int mine = 0;
    for (int kb = 0; kb < k_blocks; ++kb) {
      if constexpr (cfg.k_interleave) {
        if (ring.slot % 2 != consumer) {  // the other consumer's slice
          ring.advance();
          continue;
        }
      }
      const int done = cfg.k_interleave ? mine : kb;  // slices of the tile this consumer has multiplied
      sm90::mbarrier_wait(sm.full(ring.slot), ring.phase);
      if (stamper) {
        if (done == 0) wgmma_stamp<HAZARDS>(stamp_base + kPhaseFirstData);
        wgmma_stamp<HAZARDS>(stamp_base + kPhaseLastData);
      }
      if constexpr (kEarlyRelease) {
        // The planted hazard breaks only the data's lifetime, not the ring's phases: every warp of
        // the warpgroup has seen this phase complete before the slot goes back. (Released by warp
        // 0 alone, the refill's phase could complete before a later warp has seen this one, and
        // that warp would then wait for a phase that never comes: the tf32 kernel, whose warps
        // run apart until their first wgmma, deadlocked so in run DA.)
        sm90::named_barrier_sync(kEarlyReleaseBarrier + consumer, WgmmaConfig::kWarpgroup);
        if (releaser) release(ring.slot);
      }
      const unsigned a_offset = ring.slot * cfg.a_stage_bytes(), b_offset = ring.slot * cfg.b_stage_bytes();
      if constexpr (cfg.transposed()) {
        // Two groups of two k8 steps (the top of the file): a group loads its fragments, then
        // issues its wgmmas; after the first group's wait the whole of slice kb-1 is complete.
        constexpr int GROUP_STEPS = BK / WgmmaConfig::kTf32WgmmaK / 2;
        const unsigned b_slot = sm.b_slot(ring.slot);
#pragma unroll
        for (int group = 0; group < 2; ++group) {
          unsigned frag[MI][GROUP_STEPS][4];
#pragma unroll
          for (int mi = 0; mi < MI; ++mi)
#pragma unroll
            for (int q = 0; q < GROUP_STEPS; ++q) {
              const unsigned base = b_slot + (cfg.consumer_row(consumer) / 32 + 2 * mi) * BK * ROW +
                                    (group * GROUP_STEPS + q) * WgmmaConfig::kTf32WgmmaK * ROW;
#pragma unroll
              for (int f = 0; f < 4; ++f) frag[mi][q][f] = sm90::ld_shared_b32(base + frag_offset[f % 2][f / 2]);
            }
          sm90::wgmma_fence();
#pragma unroll
          for (int mi = 0; mi < MI; ++mi)
#pragma unroll
            for (int q = 0; q < GROUP_STEPS; ++q) {
              // The A slot's K step: 8 f32 (32 bytes) further inside its swizzled rows.
              const int kk = group * GROUP_STEPS + q;
              const unsigned long long desc = a_desc0 + ((a_offset + kk * WgmmaConfig::kTf32WgmmaK * 4) >> 4);
              sm90::WgmmaTf32<NC>::mma(acc[mi], frag[mi][q], desc, (kb | kk) != 0);
            }
          sm90::wgmma_commit_group();
          sm90::wgmma_wait_group<kReleaseDepth>();
          if (group == 0 && !kOwnRelease && kb > 0 && releaser) release(previous);
          if (group == 1 && kReleaseInFlight) release_in_flight(ring.slot);
        }
      } else {
        sm90::wgmma_fence();
#pragma unroll
        for (int mi = 0; mi < MI; ++mi)
#pragma unroll
          for (int kk = 0; kk < BK / WgmmaConfig::kWgmmaK; ++kk) {
            // A: 64 rows further per m block, 32 bytes further per K step (inside the swizzled
            // row; the hardware applies the swizzle to the address it computes). B: 16 k rows of
            // 128 bytes (64 in the narrow tile) further per K step.
            if constexpr (cfg.swapped()) {
              // wgmma's A: 64 columns further per m64 block, 16 k rows further per K step; its
              // B: 32 bytes further per K step inside A's swizzled rows.
              const unsigned long long a_desc =
                  swapped_a_desc0 + ((b_offset + mi * BK * ROW + kk * WgmmaConfig::kWgmmaK * ROW) >> 4);
              const unsigned long long b_desc = swapped_b_desc0 + ((a_offset + kk * WgmmaConfig::kWgmmaK * 2) >> 4);
              sm90::WgmmaSwapped<cfg.bm>::template mma<kBf16>(acc[mi], a_desc, b_desc, (done | kk) != 0);
            } else {
              const unsigned long long a_desc =
                  a_desc0 + ((a_offset + mi * WgmmaConfig::kWgmmaM * ROW + kk * WgmmaConfig::kWgmmaK * 2) >> 4);
              const unsigned long long b_desc = b_desc0 + ((b_offset + kk * WgmmaConfig::kWgmmaK * B_ROW) >> 4);
              sm90::Wgmma<BN>::template mma<kBf16>(acc[mi], a_desc, b_desc, (done | kk) != 0);
            }
          }
        sm90::wgmma_commit_group();
        sm90::wgmma_wait_group<kReleaseDepth>();
        // The group of the consumer's slice before is complete: its slot goes back to the producer.
        if (!kOwnRelease && done > 0 && releaser) release(previous);
        if constexpr (kReleaseInFlight) release_in_flight(ring.slot);
      }
      previous = ring.slot;
      if constexpr (cfg.k_interleave) ++mine;
      ring.advance();
    }
    // Every slice of this tile has arrived: the other consumer may start the next tile, if any.
    if constexpr (cfg.pingpong)
      if (work.more())
        sm90::named_barrier_arrive(kPingPongOrder + (consumer ^ 1), 2 * WgmmaConfig::kWarpgroup);
    sm90::wgmma_wait_group<0>();
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
      for (int i = 0; i < NC / 2; ++i) sm90::fence_operand(acc[mi][i]);
    if (stamper) wgmma_stamp<HAZARDS>(stamp_base + kPhaseMultiplied);
    if (!kOwnRelease && releaser && (cfg.k_interleave ? mine > 0 : (cfg.split == 1 || k_blocks > 0))) release(previous);
    if constexpr (cfg.k_interleave) {
      // A consumer that got none of the tile's slices (a tile of one K step) holds zeros for it.
      if (mine == 0)
#pragma unroll
        for (int mi = 0; mi < MI; ++mi)
#pragma unroll
          for (int i = 0; i < NC / 2; ++i) acc[mi][i] = 0.0f;
      if constexpr (cfg.k_interleave == 1)
        if (!wgmma_interleave_hand_off<Tile, HAZARDS>(acc, sm, consumer, turn > 0, work.more())) continue;
    }

    if constexpr (cfg.stream_k > 0) {
      // A shared tile: a piece after its first K steps goes to the workspace for the block that
      // holds them; that block adds the other pieces before the epilogue below.
      if (u.k_begin > 0) {
        wgmma_stream_k_store<Tile>(acc, workspace);
        continue;
      }
      if (u.peers_end > 0) wgmma_stream_k_fixup<Tile, Epi, HAZARDS>(acc, workspace, u.peers_end);
    }
    if constexpr (cfg.k_interleave == 2) {
      // Each consumer adds the other's sums of its half and finishes it (the swapped tile's
      // halves are half of C's columns).
      if (consumer == 0)
        wgmma_finish_half<Tile, Epi, Types, HAZARDS, 0>(acc, bias, C, workspace, c_map, sm, M, N, m0, n0, turn > 0,
                                                        swapped_bias, residual);
      else
        wgmma_finish_half<Tile, Epi, Types, HAZARDS, 1>(acc, bias, C, workspace, c_map, sm, M, N, m0, n0, turn > 0,
                                                        swapped_bias, residual);
    } else if constexpr (cfg.swapped() && cfg.split > 1) {
      wgmma_store_transposed_partials<Tile>(acc, workspace + static_cast<long long>(blockIdx.z) * M * N, M, N, m0, n0,
                                            consumer);
    } else if constexpr (cfg.swapped()) {
      wgmma_store_transposed_with<Tile, Epi, Types>(acc, swapped_bias.at(), C, M, N, m0, n0, consumer);
    } else if constexpr (cfg.transposed()) {
      wgmma_store_transposed<Tile, Epi, Types>(acc, bias, C, M, N, m0, n0, consumer);
    } else if constexpr (cfg.split > 1 && cfg.reduce == 2) {
      wgmma_reduce_in_cluster<Tile, Epi, Types, HAZARDS>(acc, bias, C, sm, M, N, m0, n0, consumer);
    } else if constexpr (cfg.split > 1) {
      wgmma_store_partials<Tile>(acc, workspace + static_cast<long long>(blockIdx.z) * M * N, M, N, m0, n0, consumer);
      if constexpr (cfg.reduce == 1)
        wgmma_reduce_in_kernel<Tile, Epi, Types, HAZARDS>(
            acc, workspace, reinterpret_cast<unsigned*>(workspace + static_cast<long long>(gridDim.z) * M * N), bias, C,
            M, N, m0, n0, consumer);
    } else if constexpr (cfg.epilogue_slots > 0)
      wgmma_hand_off<Tile>(acc, sm, consumer, chunk);
    else if constexpr (cfg.tma_store)
      wgmma_store_tma<Tile, Epi, Types, HAZARDS>(acc, bias, c_map, sm, M, N, m0, n0, consumer);
    else
      wgmma_store_direct<Tile, Epi, Types>(acc, bias, C, M, N, m0, n0, consumer, residual);
  }
  if (stamper) {
    wgmma_stamp<HAZARDS>(stamp_base + kPhaseStored);
    if (consumer == 0) wgmma_stamp<HAZARDS>(kPhaseEndNs);
  }
  // Shared memory must outlive the last TMA stores' reads (the writes complete with the grid;
  // see wgmma_epilogue_warps).
  if constexpr (cfg.tma_store && cfg.epilogue_slots == 0)
    if (threadIdx.x % 32 == 0) sm90::bulk_wait_group_read<0>();
}

/// The kernel body. Launch with a grid of at most Tile::grid_blocks(M, N) blocks in x (fewer for
/// a persistent grid) and, with split-K, the number of K slices in z; cfg.threads() threads and
/// cfg.smem_bytes() of dynamic shared memory; a_map, b_map and c_map are the tensor maps the
/// plug-in describes (Family::tensor_map). With split-K, block z stores its f32 partial sums
/// into the workspace at z·M·N (split·M·N floats), and c_map is not read; with reduce = 1 the
/// tiles' counters follow the partial sums (one per block of x) and the kernel stores C, else
/// the harness's reduce kernel does and C is not touched. Without split-K the workspace is not
/// read (it may be null).
template <class Tile, class Epi, class Types, int HAZARDS = kWgmmaHazardNone>
__device__ __forceinline__ void wgmma_gemm_device(const TensorMap* a_map, const TensorMap* b_map, const TensorMap* c_map,
                                                  const typename Types::Bias* __restrict__ bias,
                                                  typename Types::C* __restrict__ C, float* __restrict__ workspace,
                                                  int M, int N, int K,
                                                  const typename Types::C* __restrict__ residual = nullptr) {
  static_assert(!Epi::kUsesResidual || Tile::config.check_residual().ok(),
                "wgmma config: a residual epilogue needs the untransposed tile, tma_store = 0, no epilogue warps and "
                "split = 1 (WgmmaConfig::check_residual)");
  static_assert(!Epi::kGated || Tile::config.check_gated().ok(),
                "wgmma config: a gated epilogue needs the untransposed tile, tma_store = 0 and no cluster reduction "
                "(WgmmaConfig::check_gated)");
  static_assert(detail::WgmmaGuard<Tile>::ok, "invalid wgmma config");
  constexpr WgmmaConfig cfg = Tile::config;
  static_assert(cfg.transposed() ? Types::math == Math::tf32 : (Types::math == Math::bf16 || Types::math == Math::f16),
                "the wgmma kernel multiplies bf16 or f16 operands with BK = 64, tf32 with BK = 32");
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
  // wgmma and setmaxnreg exist only on sm_90a; the body compiles only there.
  __trap();
#else
  extern __shared__ unsigned char wgmma_smem[];
  const WgmmaSmem<Tile> sm = WgmmaSmem<Tile>::at(sm90::smem_address(wgmma_smem));
  const int warpgroup = threadIdx.x / WgmmaConfig::kWarpgroup;
  // reduce = 2 counts on exactly split blocks per cluster (a launch with another z would wait
  // for sums that never come): fail the launch instead.
  if constexpr (cfg.k_cluster() > 1)
    if (gridDim.z != static_cast<unsigned>(cfg.split)) __trap();

  if (threadIdx.x == 0) {
    wgmma_stamp<HAZARDS>(kPhaseEntryNs);
    wgmma_stamp<HAZARDS>(kPhaseEntry);
    // The tensor maps' descriptors, fetched while the barriers are set up (the producer's first
    // copies and the first TMA store read them).
    sm90::prefetch_tensor_map(a_map);
    sm90::prefetch_tensor_map(b_map);
    if constexpr (cfg.tma_store) sm90::prefetch_tensor_map(c_map);
#pragma unroll
    for (int s = 0; s < cfg.stages; ++s) {
      sm90::mbarrier_init(sm.full(s), 1);
      // Every consumer releases every slot, or with pingpong only the one whose tile it holds,
      // with k_interleave the one whose parity the slot has.
      sm90::mbarrier_init(sm.empty(s), (cfg.whole_tile_consumers() ? 1 : cfg.consumers) * cfg.cluster_size());
    }
#pragma unroll
    for (int s = 0; s < cfg.epilogue_slots; ++s) {
      // Filled by every consumer thread, released by lane 0 of each epilogue warp.
      sm90::mbarrier_init(sm.slot_full(s), cfg.consumers * WgmmaConfig::kWarpgroup);
      sm90::mbarrier_init(sm.slot_empty(s), WgmmaConfig::kEpilogueWarps);
    }
    // reduce = 2: one arrival (the block's own, which expects the cluster's bytes of sums) and
    // the asynchronous stores' transactions.
    if constexpr (cfg.k_cluster() > 1) sm90::mbarrier_init(sm.sums(), 1);
    sm90::fence_mbarrier_init();
  }
  // In a cluster, the other block's barriers must be initialized before its consumers' releases
  // and its producer's multicast copies reach them. reduce = 2 touches its peers only with the
  // sums after the main loop: every thread arrives here and waits there (the consumers before
  // their sends, the producer warpgroup when its work is done), so no block waits for its peers
  // to start.
  if constexpr (cfg.cluster_size() > 1) {
    sm90::cluster_sync();
  } else if constexpr (cfg.k_cluster() > 1) {
    __syncthreads();
    sm90::cluster_arrive_relaxed();
  } else {
    __syncthreads();
  }

  // Roles are the two branches of one if/else, so setmaxnreg applies (HOPPER.md). Past this
  // point only mbarriers and warp barriers synchronize, so the producer's idle threads return
  // (with epilogue_slots > 0 the producer warpgroup's warps 1..3 are the epilogue warps).
  if (warpgroup == 0) {
    if constexpr (cfg.consumers == 2) sm90::setmaxnreg_dec<cfg.producer_registers()>();
    if (threadIdx.x == 0) {
      wgmma_stamp<HAZARDS>(kPhaseSetUp);
      wgmma_produce<Tile, HAZARDS>(a_map, b_map, sm, M, N, K);
    } else if constexpr (cfg.epilogue_slots > 0) {
      if (threadIdx.x >= 32) wgmma_epilogue_warps<Tile, Epi, Types, HAZARDS>(c_map, bias, sm, M, N);
    }
    if constexpr (cfg.cluster_size() == 1 && cfg.k_cluster() > 1) sm90::cluster_wait();
  } else {
    if constexpr (cfg.consumers == 2) sm90::setmaxnreg_inc<cfg.consumer_registers()>();
    wgmma_consume<Tile, Epi, Types, HAZARDS>(c_map, bias, C, workspace, sm, M, N, K, warpgroup - 1, residual);
  }
#endif
}

/// The kernel for nvcc-compiled instantiations (the GPU tests), built for sm_90a.
template <class Tile, class Epi, Dtype D, int HAZARDS = kWgmmaHazardNone>
__global__ void __launch_bounds__(detail::WgmmaBounds<Tile, Epi>::threads, detail::WgmmaBounds<Tile, Epi>::min_blocks)
    wgmma_gemm_kernel(const __grid_constant__ TensorMap a_map, const __grid_constant__ TensorMap b_map,
                      const __grid_constant__ TensorMap c_map, const typename GemmOf<D>::Bias* __restrict__ bias,
                      typename GemmOf<D>::C* __restrict__ C, float* __restrict__ workspace, int M, int N, int K,
                      const typename GemmOf<D>::C* __restrict__ residual) {
  wgmma_gemm_device<Tile, Epi, GemmOf<D>, HAZARDS>(&a_map, &b_map, &c_map, bias, C, workspace, M, N, K, residual);
}

}  // namespace coalesce

/// Defines `extern "C" __global__ void SYMBOL(a_map, b_map, c_map, bias, C, workspace, M, N, K, residual)` for one
/// dtype, tile and epilogue: COALESCE_DEFINE_WGMMA_KERNEL(symbol, coalesce::Dtype::bf16,
/// coalesce::WgmmaTile<...>, coalesce::EpilogueX). Variadic because the tile type's template
/// arguments contain commas.
#define COALESCE_DEFINE_WGMMA_KERNEL(SYMBOL, DTYPE, ...)                                                  \
  extern "C" __global__ void __launch_bounds__(::coalesce::detail::WgmmaBounds<__VA_ARGS__>::threads,     \
                                               ::coalesce::detail::WgmmaBounds<__VA_ARGS__>::min_blocks) \
      SYMBOL(const __grid_constant__ ::coalesce::TensorMap a_map,                                        \
             const __grid_constant__ ::coalesce::TensorMap b_map,                                        \
             const __grid_constant__ ::coalesce::TensorMap c_map,                                        \
             const ::coalesce::GemmOf<DTYPE>::Bias* __restrict__ bias,                                   \
             ::coalesce::GemmOf<DTYPE>::C* __restrict__ C, float* __restrict__ workspace, int M, int N, int K, \
             const ::coalesce::GemmOf<DTYPE>::C* __restrict__ residual) {                                \
    ::coalesce::wgmma_gemm_device<__VA_ARGS__, ::coalesce::GemmOf<DTYPE>>(&a_map, &b_map, &c_map, bias, C,    \
                                                                        workspace, M, N, K, residual);   \
  }
