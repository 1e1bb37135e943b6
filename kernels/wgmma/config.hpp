// The tile configuration of the `wgmma` family and its one validity rule. The tuner's pruning
// (through the plug-in, kernels/wgmma/family.cpp), the kernel template's static_asserts, the
// compiler's verifier and the tests all call WgmmaConfig::check(); nothing else decides whether
// a config is legal.
//
// Device-safe: compiles under nvcc, NVRTC and a plain C++ compiler (no standard headers).
#pragma once

#include "kernels/core/limits.hpp"
#include "kernels/core/types.hpp"

namespace coalesce {

/// 16-bit GEMM on Hopper's warpgroup tensor cores (sm_90a): TMA copies BM×BK slices of A and
/// BK×BN slices of B into a STAGES-deep ring of 128-byte-swizzled shared memory guarded by
/// full/empty mbarriers; one producer warpgroup issues the copies, CONSUMERS warpgroups each own
/// BM/CONSUMERS rows of the tile and multiply with wgmma.mma_async m64nBNk16 (f32 accumulators
/// in registers), then apply the fused epilogue and store C (kernels/wgmma/gemm.cuh). With
/// pingpong = 1 the two consumers instead take the block's tiles in turn, each a whole BM×BN
/// tile, so one consumer's epilogue runs while the other's MMAs keep the tensor cores busy. With
/// split > 1 (split-K) block z of the grid multiplies only its share of K and stores the raw f32
/// sums into the partials workspace; the harness's reduce applies the epilogue (or, with
/// reduce = 1, the tile's last block in this kernel; with reduce = 2 the S blocks of a tile run
/// as one thread block cluster and add each other's sums through distributed shared memory, each
/// block a share of the tile, with no workspace and no second kernel). With epilogue_slots > 0 the producer
/// warpgroup's three idle warps apply the epilogue: the consumers hand them their raw f32 sums
/// through that many 64-column slots of shared memory and go on to their next tile's MMAs, so
/// the epilogue runs under the tensor cores' work instead of between it. With stream_k = S > 0
/// (stream-K) the persistent grid first shares the K steps of the tiles that would make a last,
/// partial wave evenly among its blocks (each such tile cut between at most S blocks), then
/// takes the other tiles whole: a block whose share ends inside a tile stores its f32 sums in
/// the workspace, and the block holding the tile's first K steps adds them before its epilogue.
/// With swap_ab = 1 the 16-bit kernel multiplies the transposed tile, C^T = B^T A^T, from the
/// same slots: wgmma's A operand is B's N-major slot (64 columns per consumer, transposed in the
/// instruction) and its B operand A's K-major slot (BM rows, 16 to 64), so a tile may have fewer
/// rows than wgmma's 64 (cuBLAS's M = 64 kernel is such a tile, 64 columns by 32 rows: run JG),
/// and C is stored from the transposed fragments as the tf32 kernel stores it. BM = 48 (wgmma's
/// n48) is cuBLAS's bf16 512^3 tile, "64x48" in its naming (run LC: 96 blocks of two consumers);
/// with k_interleave its two consumers take alternate K slices of one 64-column tile, as there.
/// With k_interleave = 1 the two consumers split the K steps instead of the rows: each multiplies
/// the whole BM×BN tile over the ring slots of its parity (consumer c the slots s with s % 2 ==
/// c, so each slot keeps one consumer), consumer 1 hands its f32 sums to consumer 0 through
/// shared memory, and consumer 0 adds them and runs the epilogue. For problems of few tiles,
/// where one consumer's handshake per 64-deep slice could pace the block (at M = 32 and 8 it is
/// the fastest config, run JC; at M = 64 it changes nothing). With k_interleave = 2 the consumers
/// finish the tile together: each hands the other the rows it does not keep (consumer c keeps
/// rows 8c..8c+7 of every warp's 16) and runs the epilogue on its own half, so each moves and
/// finishes half the sums, and the epilogue runs on both warpgroups, two warps per scheduler
/// instead of one (where a block holds one tile, as at 512^3, the epilogue is the block's tail).
///
/// BK names the operands' width: a K slice is one 128-byte swizzle row, so BK = 64 is the 16-bit
/// kernel above and BK = 32 the tf32 kernel (f32 storage). wgmma reads tf32 operands from shared
/// memory only K-major, and B (K x N row-major) is N-major, so the tf32 kernel multiplies the
/// transposed tile, C^T = B^T A^T: wgmma's M side is the tile's N (the consumers split BN, 64 or
/// 128 rows of C^T each), its N side the tile's BM, its A operand B^T read from the B slot into
/// registers, and its B operand the A slot as TMA loaded it (K-major). The tf32 kernel stores C
/// from registers (tma_store = 0), without clusters, ping-pong, split-K or epilogue warps.
struct WgmmaConfig {
  int bm = 128, bn = 256, bk = 64;  ///< block tile
  int stages = 4;                   ///< shared-memory ring depth
  int consumers = 2;                ///< consumer warpgroups (1 or 2), each owning bm/consumers rows (pingpong: all bm)
  int cluster_m = 1, cluster_n = 1; ///< thread block cluster: 2x1 shares B, 1x2 shares A (TMA multicast)
  int persistent = 0;               ///< 1: one block per SM walks the tiles (epilogue overlaps the next loads)
  int group_m = 8;                  ///< tile rasterization: tile rows per group (1 = row order)
  int tma_store = 0;                ///< 1: C goes registers -> swizzled shared memory -> TMA store
  int split = 1;                    ///< split-K: K slices, one per grid z (kernels/core/family.hpp kSplitParam)
  int pingpong = 0;                 ///< 1: the two consumers take whole tiles in turn (epilogue overlaps MMAs)
  int reduce = 0;                   ///< split-K: 1 adds the partial sums in this kernel, 2 in the tile's cluster (kernels/core/family.hpp kReduceParam)
  int epilogue_slots = 0;           ///< >0: epilogue warps, fed f32 sums through this many 64-column slots
  int stream_k = 0;                 ///< >0: stream-K over the tiles past the last whole wave, at most this many blocks per tile (kernels/core/family.hpp kStreamKParam)
  int k_interleave = 0;             ///< 1: the two consumers take alternate K slices of the whole tile (consumer 0 adds the other's sums); 2: as 1, each adding and finishing half the tile's rows
  int swap_ab = 0;                  ///< 1: the 16-bit tile swapped, C^T = B^T A^T: wgmma's M side is BN (64 columns per consumer), its N side BM (16, 32, 48 or 64)

  /// The swizzle span: the TMA and wgmma layouts are 128-byte swizzled, so a shared-memory row
  /// of A (K-major) or of B (N-major) is 128 bytes.
  static constexpr int kSwizzleBytes = 128;
  static constexpr int kElementBytes = 2;                         ///< bf16 and f16 (the 16-bit kernel)
  static constexpr int kRowElements = kSwizzleBytes / kElementBytes;  ///< 64: one swizzle row of 16-bit values
  static constexpr int kTf32Bk = kSwizzleBytes / 4;               ///< 32: BK of the tf32 kernel
  static constexpr int kWarpgroup = 128;                          ///< threads per warpgroup
  static constexpr int kWgmmaM = 64;                              ///< rows of one wgmma
  static constexpr int kWarpRows = 16;                            ///< rows of one wgmma a warp holds
  static constexpr int kWgmmaK = 16;                              ///< K of one 16-bit wgmma
  static constexpr int kTf32WgmmaK = 8;                           ///< K of one tf32 wgmma
  static constexpr int kMaxBox = 256;                             ///< TMA box limit per dimension
  static constexpr int kMaxTileSide = 4096;                       ///< bound before products of the sides
  static constexpr int kMaxStages = 16;                           ///< the deepest ring (a 64 x 64 ring of 13 fills 227 KB)
  /// Problems of at most this many 64 x 64 tiles also list the deep rings (wgmma_deep_rings).
  static constexpr int kDeepRingTiles = 256;
  /// The fewest registers a consumer thread needs besides its accumulators (descriptors,
  /// barrier addresses, loop state, epilogue temporaries): 192 accumulators compile without
  /// spills in the 232 registers two consumers get (ptxas 13.0, bm 256 x bn 192).
  static constexpr int kRegisterOverhead = 40;
  /// What ptxas 13.0 uses besides the accumulators when it may (one consumer, direct stores):
  /// 45 to 48 registers over bn 64 to 256, so the model predicts 48.
  static constexpr int kPredictedOverhead = 48;
  /// What stream-K's walk and fix-up add (ptxas 13.0, one consumer): 64 x 64 compiled to 101
  /// registers where the model without them says 80, 64 x 128 to 166 where it says 112. With 24
  /// more the model gives both kernels' blocks per SM (2 and 1), which stream-K's grid assumes.
  static constexpr int kStreamKOverhead = 24;
  /// setmaxnreg budgets with two consumers: 128·40 + 256·232 = 64,512 of the SM's 65,536
  /// registers (the split CUTLASS's warp-specialized kernels use). With one consumer the
  /// 256-thread block already gets 255 registers per thread and setmaxnreg is not used.
  static constexpr int kProducerRegisters = 40;
  static constexpr int kConsumerRegisters = 232;
  /// With epilogue warps (epilogue_slots > 0) the producer warpgroup's other three warps apply
  /// the epilogue, so that warpgroup gets more: 128·104 + 256·200 = 64,512, the registers a
  /// 384-thread block launches with (its 168-register cap). The consumers no longer evaluate the
  /// epilogue (128 accumulators and the main loop's state); the epilogue warps work through 16
  /// values at a time. (A fourth warpgroup instead would cap the kernel at 128 registers, and
  /// ptxas needs 154 for one m64n256 wgmma.)
  static constexpr int kEpilogueProducerRegisters = 104;
  static constexpr int kEpilogueConsumerRegisters = 200;
  /// The producer warpgroup's warps that apply the epilogue (all but the TMA producer's warp 0).
  static constexpr int kEpilogueWarps = 3;
  /// f32 bytes of one epilogue slot per row of the tile: 64 columns of 4 bytes.
  static constexpr int kSlotRowBytes = kRowElements * 4;

  /// The tf32 kernel (BK = 32): the transposed tile, C^T = B^T A^T (see the struct's comment).
  COALESCE_HD constexpr bool transposed() const { return bk == kTf32Bk; }
  /// Bytes of one operand element: 2, or 4 in the tf32 kernel (f32 storage).
  COALESCE_HD constexpr int element_bytes() const { return transposed() ? 4 : kElementBytes; }
  /// Elements of one 128-byte swizzle row: a B chunk's columns and a C staging chunk's (64, or 32).
  COALESCE_HD constexpr int row_elements() const { return kSwizzleBytes / element_bytes(); }
  /// The narrow 16-bit tile's BN: B's slot is one 64-byte swizzle row of 32 columns per k
  /// (the 64-byte swizzle), for problems of few tiles (cuBLAS's 64 x 32 tile at M = 64, run IA).
  static constexpr int kNarrowBn = 32;
  /// Columns of one B chunk in the slot (a TMA box's inner side): a swizzle row, or the whole
  /// narrow tile (BN = 32 in the 16-bit kernel).
  COALESCE_HD constexpr int b_chunk_cols() const { return !transposed() && bn < row_elements() ? bn : row_elements(); }
  /// The swizzle span of B's slot and its rows: 128 bytes, or 64 for the narrow tile.
  COALESCE_HD constexpr int b_swizzle_bytes() const { return b_chunk_cols() * element_bytes(); }
  /// K of one wgmma: 16, or 8 in tf32.
  COALESCE_HD constexpr int wgmma_k() const { return transposed() ? kTf32WgmmaK : kWgmmaK; }
  /// The 16-bit tile swapped (swap_ab = 1): C^T = B^T A^T from shared memory.
  COALESCE_HD constexpr bool swapped() const { return swap_ab != 0 && !transposed(); }
  /// wgmma's M side, which the consumers split (BM; BN in the tf32 kernel and the swapped
  /// tile), and its N side.
  COALESCE_HD constexpr int mma_rows() const { return transposed() || swapped() ? bn : bm; }
  COALESCE_HD constexpr int mma_cols() const { return transposed() || swapped() ? bm : bn; }
  /// Registers of the tf32 kernel's A fragments (B^T from shared memory): four per m64 block
  /// per K step, for the two halves of a K slice, which alternate so that one half's loads do
  /// not overwrite registers the other half's wgmmas may still read. None in the 16-bit kernel.
  COALESCE_HD constexpr int fragment_registers() const {
    return transposed() ? 4 * m_iters() * (bk / kTf32WgmmaK) : 0;
  }

  COALESCE_HD constexpr int threads() const { return kWarpgroup * (1 + consumers); }
  /// Blocks of a cluster: 2x1 (two tiles of one column, sharing B) or 1x2 (one row, sharing A).
  COALESCE_HD constexpr int cluster_size() const { return cluster_m * cluster_n; }
  /// The most K slices one tile's cluster may hold with reduce = 2 (a portable cluster size).
  static constexpr int kMaxClusterSlices = 8;
  /// Blocks of the cluster along the grid's z (the K slices of one tile): split with reduce = 2,
  /// else 1. Separate from cluster_size(), the multicast peers that share a ring's slots.
  COALESCE_HD constexpr int k_cluster() const { return reduce == 2 ? split : 1; }
  /// Rows of A one block loads per K slice: all BM, or with a 1x2 cluster its half, multicast.
  COALESCE_HD constexpr int a_box_rows() const { return bm / cluster_n; }
  /// The swapped tile in a 2x1 cluster: its two blocks (two tiles of rows, one column) share B's
  /// one 64-column chunk by K rows, each loading half of a slice's rows for both (cuBLAS pairs
  /// its swapped tiles so, runs JG and LC).
  COALESCE_HD constexpr bool b_split_by_rows() const { return swapped() && cluster_m == 2 && bn == kRowElements; }
  /// K rows of B one block loads per slice: all BK, or half with b_split_by_rows().
  COALESCE_HD constexpr int b_box_rows() const { return b_split_by_rows() ? bk / 2 : bk; }
  /// The TMA store's box of C: a warp's 16 rows, or with k_interleave = 2 the 8 of them that one
  /// consumer finishes.
  COALESCE_HD constexpr int c_box_rows() const { return k_interleave == 2 ? kWarpRows / 2 : kWarpRows; }
  /// The tiles of an M x N problem in the kernel's walk: pairs of tiles with a cluster of two
  /// (2x1 pairs tile rows, 1x2 tile columns; the edge's pairs counted whole), else tiles.
  COALESCE_HD constexpr int tile_pairs_m(int m) const { return ((m + bm - 1) / bm + cluster_m - 1) / cluster_m; }
  COALESCE_HD constexpr int tile_pairs_n(int n) const { return ((n + bn - 1) / bn + cluster_n - 1) / cluster_n; }
  /// Blocks of a grid with one per tile of every pair (a whole number of clusters).
  COALESCE_HD constexpr long long grid_blocks(int m, int n) const {
    return static_cast<long long>(tile_pairs_m(m)) * tile_pairs_n(n) * cluster_size();
  }
  /// The setmaxnreg split (with two consumers): the producer warpgroup, each consumer.
  COALESCE_HD constexpr int producer_registers() const {
    return epilogue_slots > 0 ? kEpilogueProducerRegisters : kProducerRegisters;
  }
  COALESCE_HD constexpr int consumer_registers() const {
    return epilogue_slots > 0 ? kEpilogueConsumerRegisters : kConsumerRegisters;
  }
  COALESCE_HD constexpr int register_split() const {
    return kWarpgroup * (producer_registers() + consumers * consumer_registers());
  }
  /// Whether every consumer multiplies whole tiles: with pingpong (tiles in turn) or
  /// k_interleave (K slices in turn).
  COALESCE_HD constexpr bool whole_tile_consumers() const { return pingpong || k_interleave; }
  /// Rows of a tile one consumer multiplies: its share of the tile, or with pingpong or
  /// k_interleave the whole tile.
  COALESCE_HD constexpr int rows_per_consumer() const {
    return whole_tile_consumers() ? mma_rows() : (consumers > 0 ? mma_rows() / consumers : 0);
  }
  /// The first row of the tile that consumer `c` owns (0 for both with pingpong or k_interleave).
  COALESCE_HD constexpr int consumer_row(int c) const { return whole_tile_consumers() ? 0 : c * rows_per_consumer(); }
  /// Tiles of C being stored at once: with pingpong each consumer stages its own.
  COALESCE_HD constexpr int tiles_in_flight() const { return pingpong ? consumers : 1; }
  /// m64 wgmmas per consumer per K step (1 or 2).
  COALESCE_HD constexpr int m_iters() const { return rows_per_consumer() / kWgmmaM; }
  /// f32 accumulators a consumer thread holds: its rows × wgmma's N side over 128 threads.
  COALESCE_HD constexpr int accumulators() const { return rows_per_consumer() * mma_cols() / kWarpgroup; }
  /// Registers one consumer thread may use (setmaxnreg with two consumers, the launch cap with one).
  COALESCE_HD constexpr int consumer_register_budget(int regs_per_sm = 65536) const {
    return consumers == 2 ? consumer_registers() : register_cap(threads(), 1, regs_per_sm);
  }
  COALESCE_HD constexpr int a_stage_bytes() const { return bm * bk * element_bytes(); }
  COALESCE_HD constexpr int b_stage_bytes() const { return bk * bn * element_bytes(); }
  COALESCE_HD constexpr int stage_bytes() const { return a_stage_bytes() + b_stage_bytes(); }
  /// Stream-K: the f32 sums of one tile that a block stores for the tile's first block to add.
  COALESCE_HD constexpr int partial_floats() const { return bm * bn; }
  /// Stream-K's grid on `tiles` tiles of `steps` K steps each, on a GPU that holds `capacity`
  /// blocks at once: every block resident (the first block of a tile waits for the others'
  /// sums), and no more blocks than the shared tiles have segments.
  COALESCE_HD constexpr long long stream_k_grid(long long tiles, long long steps, long long capacity) const {
    const long long per_tile = stream_k < steps ? stream_k : steps;
    const long long wanted = tiles < capacity ? tiles * per_tile : capacity;
    return wanted < capacity ? wanted : capacity;
  }
  /// Stream-K's sharing blocks on `tiles` tiles of `steps` K steps each and a grid of `grid`
  /// blocks: the tiles past the last whole wave (tiles % grid) are shared by at most stream_k
  /// blocks each and at most one per K step, and by no more blocks than the grid has. 0: the
  /// tiles fill whole waves. The kernel's plan (kernels/wgmma/gemm.cuh, WgmmaStreamK) and the
  /// schedule rule (kernels/wgmma/family.cpp) both read it.
  COALESCE_HD constexpr int stream_k_sharing(int tiles, int steps, int grid) const {
    const int shared = tiles % grid;
    const int per_tile = stream_k < steps ? stream_k : steps;
    return shared * per_tile < grid ? shared * per_tile : grid;
  }
  /// One epilogue slot: the tile's BM rows x 64 columns of f32 sums (the epilogue warps
  /// writes the rounded C chunk over its first half and stores it from there).
  COALESCE_HD constexpr int slot_bytes() const { return bm * kSlotRowBytes; }
  /// reduce = 2: the pairs of f32 sums a consumer thread holds (accumulators 2i and 2i+1: two
  /// adjacent columns of one row), and how many of them each block of the cluster adds up.
  COALESCE_HD constexpr int sum_pairs() const { return accumulators() / 2; }
  COALESCE_HD constexpr int pairs_per_block() const { return (sum_pairs() + split - 1) / split; }
  /// reduce = 2: the block's receiving area, a slot per block of the cluster (its own included)
  /// of pairs_per_block() pairs for each consumer thread, 8 bytes a pair.
  COALESCE_HD constexpr int cluster_sums_bytes() const {
    return reduce == 2 ? split * pairs_per_block() * consumers * kWarpgroup * 8 : 0;
  }
  /// k_interleave = 1: consumer 1's f32 sums of a tile, handed to consumer 0 (4 bytes per value);
  /// k_interleave = 2: each consumer's half for the other, the same bytes in all.
  COALESCE_HD constexpr int interleave_bytes() const { return k_interleave ? bm * bn * 4 : 0; }
  /// The C tile staged for the TMA store (none for direct stores), the epilogue slots, or with
  /// reduce = 2 the cluster's sums (which store C directly).
  COALESCE_HD constexpr int store_bytes() const {
    if (epilogue_slots > 0) return epilogue_slots * slot_bytes();
    if (reduce == 2) return cluster_sums_bytes();
    return tma_store ? tiles_in_flight() * bm * bn * element_bytes() : 0;
  }
  /// Two mbarriers (full, empty) of 8 bytes per stage and per epilogue slot, and with
  /// reduce = 2 one that counts the cluster's sums in.
  COALESCE_HD constexpr int barrier_bytes() const { return (stages + epilogue_slots) * 2 * 8 + (reduce == 2 ? 8 : 0); }
  /// Dynamic shared memory per block: the ring, the C staging tile, k_interleave's hand-off of
  /// sums, the barriers, and 1 KB of slack to align the ring to the 1024-byte period of the
  /// 128-byte swizzle at run time.
  COALESCE_HD constexpr int smem_bytes() const {
    return stages * stage_bytes() + store_bytes() + interleave_bytes() + barrier_bytes() + 1024;
  }

  /// The register model before compiling: accumulators plus an overhead, within the budget.
  COALESCE_HD constexpr int predicted_registers() const {
    const int model = accumulators() + fragment_registers() + kPredictedOverhead + (stream_k ? kStreamKOverhead : 0);
    const int entry = register_cap(threads(), 1);
    // With two consumers ptxas reports the entry cap; setmaxnreg then moves registers.
    if (consumers == 2) return entry;
    return model < entry ? model : entry;
  }

  /// The config's own rules, independent of device and problem.
  COALESCE_HD constexpr Verdict check() const {
    if (bm <= 0 || bn <= 0 || bk <= 0) return {Violation::shape, "every tile side must be positive"};
    // Bounded before any rule forms a product of them (the accumulators are BM x BN / 128):
    // 257 x 21282856 wraps in int. The family's own limits (256) come below, by kind.
    if (bm > kMaxTileSide || bn > kMaxTileSide) return {Violation::shape, "BM and BN must be at most 4096"};
    if (consumers != 1 && consumers != 2)
      return {Violation::threads, "consumers must be 1 or 2 warpgroups"};
    if (stages < 2 || stages > kMaxStages)
      return {Violation::shape, "stages must be between 2 and 16 (the ring needs a slot to fill while one is read)"};
    if (group_m < 1) return {Violation::shape, "group_m must be at least 1"};
    if (persistent != 0 && persistent != 1) return {Violation::shape, "persistent must be 0 or 1"};
    if (tma_store != 0 && tma_store != 1) return {Violation::shape, "tma_store must be 0 or 1"};
    // Each side bounded before their product is formed: 2 x 1444444444 wraps negative in int.
    if (cluster_m < 1 || cluster_n < 1 || cluster_m > 2 || cluster_n > 2 || cluster_size() > 2)
      return {Violation::shape, "the cluster must be 1x1, 2x1 or 1x2 (two blocks at most)"};
    if (cluster_size() > 1 && (split > 1 || pingpong))
      return {Violation::shape, "a cluster of two needs split = 1 and pingpong = 0"};
    // 2x1: the two blocks share B's chunks, each loading half of them for both.
    if (cluster_m == 2 && (bn / kRowElements) % 2 != 0 && !b_split_by_rows())
      return {Violation::shape, "a 2x1 cluster splits B's 64-column chunks between its blocks: BN must be 128 or 256 (or 64 in the swapped tile, split by K rows)"};
    if (split < 1 || split > kMaxSplitSlices) return {Violation::shape, "split must be between 1 and 32 K slices"};
    if (split > 1 && tma_store)
      return {Violation::shape, "split-K stores f32 partial sums, and C from registers after the reduction: it needs tma_store = 0"};
    // Split-K is only tried where the unsplit grid leaves SMs idle (check_schedule), and there a
    // persistent grid is one block per tile: the same launch as persistent = 0.
    if (split > 1 && persistent)
      return {Violation::shape, "split-K needs persistent = 0 (where a split can help, a persistent grid is one block per tile, the same kernel run)"};
    if (pingpong != 0 && pingpong != 1) return {Violation::shape, "pingpong must be 0 or 1"};
    if (reduce < 0 || reduce > 2)
      return {Violation::shape, "reduce must be 0 (a separate reduce kernel), 1 (in the kernel) or 2 (in the tile's cluster)"};
    if (reduce && split == 1) return {Violation::shape, "reduce = 1 or 2 adds split-K's partial sums: it needs split > 1"};
    if (reduce == 2 && split > kMaxClusterSlices)
      return {Violation::shape, "reduce = 2 runs a tile's K slices as one cluster: split must be at most 8 (a portable cluster)"};
    // The reduction keeps the accumulators live while it reads the slices back: with 128 per
    // thread ptxas 13.0 spilled (200 bytes at bm 128, bn 128, one consumer).
    if (reduce == 1 && accumulators() > 64)
      return {Violation::registers, "reduce = 1 needs at most 64 accumulators per consumer thread (BM/consumers x BN / 128): ptxas spills the reduction beyond"};
    // Ping-pong alternates whole tiles between two consumers of one block, so a block must walk
    // several tiles (a persistent grid) and have two consumers to alternate.
    if (pingpong && (consumers != 2 || !persistent))
      return {Violation::shape, "pingpong needs two consumers and persistent = 1 (the consumers take a block's tiles in turn)"};
    if (epilogue_slots < 0 || epilogue_slots > kMaxBox / kRowElements)
      return {Violation::shape, "epilogue_slots must be between 0 and 4 (64-column slots of a tile at most 256 wide)"};
    if (epilogue_slots > 0 && (consumers != 2 || pingpong || split > 1 || !tma_store))
      return {Violation::shape, "epilogue warps (epilogue_slots > 0) need two consumers, pingpong = 0, split = 1 and tma_store = 1 (it stores C through TMA)"};
    if (epilogue_slots > 0 && epilogue_slots * kRowElements > bn)
      return {Violation::shape, "epilogue_slots must be at most BN / 64 (a slot holds 64 columns of the tile)"};
    if (bk != kRowElements && bk != kTf32Bk)
      return {Violation::shape, "BK must be 64 (bf16, f16) or 32 (tf32): a K slice of A is one 128-byte swizzle row (TMA's inner box for 128B swizzle)"};
    if (stream_k < 0 || stream_k == 1 || stream_k > kMaxSplitSlices)
      return {Violation::shape, "stream_k must be 0 (off) or 2 to 32 (the most blocks that share one tile's K steps)"};
    if (stream_k && (!persistent || cluster_size() > 1 || split > 1 || pingpong || epilogue_slots > 0 || transposed()))
      return {Violation::shape, "stream-K (stream_k > 0) needs persistent = 1, a 1x1 cluster, split = 1, pingpong = 0, no epilogue warps and BK = 64 (bf16, f16)"};
    // The fix-up adds another block's sums into live accumulators: with one consumer and 128 per
    // thread ptxas 13.0 spilled 8 bytes (128 x 128); two consumers of 128 each compile clean.
    if (stream_k && consumers == 1 && accumulators() > 64)
      return {Violation::registers, "stream-K with one consumer needs at most 64 accumulators per thread (BM x BN / 128): ptxas spills the fix-up beyond"};
    if (k_interleave < 0 || k_interleave > 2) return {Violation::shape, "k_interleave must be 0, 1 or 2"};
    // Each consumer keeps the slots of one parity, so the ring must hold both parities equally;
    // the schedules that split a block's work otherwise (ping-pong, epilogue warps, stream-K, the
    // in-kernel reductions) and the tf32 kernel are not built for it.
    if (k_interleave && (consumers != 2 || stages % 2 != 0 || pingpong || epilogue_slots > 0 || stream_k || reduce ||
                         transposed()))
      return {Violation::shape, "k_interleave = 1 or 2 needs two consumers, an even number of stages, BK = 64 (bf16, f16), no ping-pong, epilogue warps or stream-K, and split-K reduced by the separate kernel"};
    if (swap_ab != 0 && swap_ab != 1) return {Violation::shape, "swap_ab must be 0 or 1"};
    if (swap_ab) {
      // The swapped tile: one or two consumers of 64 columns each, or two taking alternate K
      // slices of one 64-column tile (k_interleave), BM 16, 32, 48 or 64, the direct store and
      // the plain schedules (split-K reduced by the separate kernel).
      if (transposed() || cluster_n > 1 || tma_store || pingpong || epilogue_slots > 0 || stream_k || reduce)
        return {Violation::shape, "swap_ab = 1 needs BK = 64 (bf16, f16), a 1x1 or 2x1 cluster, tma_store = 0, no ping-pong, epilogue warps or stream-K, and split-K reduced by the separate kernel"};
      if (bn != kWgmmaM * (k_interleave ? 1 : consumers) || (bm != 16 && bm != 32 && bm != 48 && bm != 64))
        return {Violation::divisibility, "the swapped tile (swap_ab = 1) takes BN = 64 per consumer (64 in all with k_interleave) and BM = 16, 32, 48 or 64 (wgmma's N side)"};
    }
    if (transposed() && (cluster_size() > 1 || pingpong || split > 1 || epilogue_slots > 0 || tma_store))
      return {Violation::shape, "the tf32 kernel (BK = 32) takes no cluster, ping-pong, split-K, epilogue warps or TMA store: it stores C^T's registers directly"};
    if (transposed()) {
      if (rows_per_consumer() % kWgmmaM != 0 || rows_per_consumer() * consumers != bn ||
          (m_iters() != 1 && m_iters() != 2))
        return {Violation::divisibility,
                "the tf32 kernel's consumers own 64 or 128 columns of the tile each (rows of C^T): BN must be 64 or 128 times consumers"};
      if (bm % kWgmmaM != 0 || bm > kMaxBox)
        return {Violation::divisibility, "the tf32 kernel's BM (wgmma's N) must be 64, 128, 192 or 256"};
    } else if (!swapped()) {
      if (rows_per_consumer() % kWgmmaM != 0 || rows_per_consumer() * (whole_tile_consumers() ? 1 : consumers) != bm ||
          (m_iters() != 1 && m_iters() != 2))
        return {Violation::divisibility,
                "each consumer owns 64 or 128 rows: BM must be 64 or 128 times consumers (with pingpong or k_interleave, 64 or 128)"};
      if (bm > kMaxBox) return {Violation::shape, "BM must be at most 256 (A's TMA box)"};
      if ((bn % kRowElements != 0 && bn != kNarrowBn) || bn > kMaxBox)
        return {Violation::divisibility, "BN must be 32, 64, 128, 192 or 256 (whole 128-byte rows of B, or one 64-byte row; wgmma N <= 256)"};
      // The narrow tile is built for the direct store and the plain schedules only: the TMA
      // store, the 2x1 cluster (which splits B's 64-column chunks), ping-pong, epilogue warps,
      // stream-K and the in-kernel reductions all assume whole 128-byte rows of B or C.
      if (bn == kNarrowBn && (tma_store || cluster_m > 1 || pingpong || epilogue_slots > 0 || stream_k || reduce))
        return {Violation::shape, "BN = 32 (a 64-byte swizzled B) takes only tma_store = 0, a 1x1 or 1x2 cluster, no ping-pong, epilogue warps or stream-K, and split-K reduced by the separate kernel"};
    }
    if (accumulators() + fragment_registers() + kRegisterOverhead > consumer_register_budget())
      return {Violation::registers, "the accumulators (rows per consumer x wgmma's N / 128, with tf32's A fragments) do not fit a consumer's registers"};
    return {};
  }

  /// The rules above plus the device's limits, with `registers` per thread (the model's before
  /// compiling, ptxas' figure after).
  COALESCE_HD constexpr Verdict check(const DeviceLimits& d, int registers) const {
    Verdict v = check();
    if (!v.ok()) return v;
    if (threads() > d.max_threads_per_block)
      return {Violation::threads, "the block has more threads than the device allows per block"};
    if (smem_bytes() > d.smem_per_block_optin)
      return {Violation::smem, "the ring, the C staging tile and the barriers exceed the device's per-block shared memory"};
    if (registers > d.max_regs_per_thread)
      return {Violation::registers, "the thread needs more registers than the 255 a thread may have"};
    if (consumers == 2) {
      if (register_split() > d.regs_per_sm)
        return {Violation::registers, "the setmaxnreg split (producer warpgroup, consumers) exceeds the SM's registers"};
      // setmaxnreg.inc takes registers only from what the block launched with: with fewer than
      // the split needs, the consumers would wait for them forever. ptxas gives a kernel that
      // uses setmaxnreg its launch-bounds cap (168 for 384 threads), which is enough.
      if (registers * threads() < register_split())
        return {Violation::registers, "the block launches with fewer registers than the setmaxnreg split takes (the consumers would wait forever)"};
    }
    if (resident_blocks(d, threads(), smem_bytes(), registers) < 1)
      return {Violation::occupancy, "not one block fits on an SM (registers x threads or shared memory)"};
    // Stream-K's grid holds as many blocks as the register model says fit at once, and its
    // blocks wait for each other: a compiled kernel that fits fewer could not run them all.
    if (stream_k && resident_blocks(d, threads(), smem_bytes(), registers) <
                        resident_blocks(d, threads(), smem_bytes(), predicted_registers()))
      return {Violation::occupancy, "stream-K's grid assumes the register model's blocks per SM, and the compiled kernel's registers fit fewer (its blocks wait for each other, so all must be resident)"};
    return {};
  }
  COALESCE_HD constexpr Verdict check(const DeviceLimits& d) const { return check(d, predicted_registers()); }

  /// Problem-dependent rules: the dtype, and what TMA needs of global memory (16-byte aligned
  /// row strides, so N and K multiples of 8 for 16-bit elements).
  /// The dtypes the family multiplies (any tile): bf16 and f16, and tf32 with BK = 32.
  COALESCE_HD static constexpr Verdict check_dtype(Dtype dtype) {
    if (dtype != Dtype::bf16 && dtype != Dtype::f16 && dtype != Dtype::tf32)
      return {Violation::dtype, "the wgmma family multiplies bf16, f16 or tf32 operands on the tensor cores (no f32 path)"};
    return {};
  }
  /// BK of the family's kernel for `dtype`: 64 for 16-bit operands, 32 for tf32's.
  COALESCE_HD static constexpr int bk_for(Dtype dtype) { return dtype == Dtype::tf32 ? kTf32Bk : kRowElements; }

  /// Whether the config's store paths apply a gated epilogue (kernels/core/epilogues.hpp,
  /// EpilogueReads::gated: act(acc[m][2j]) · acc[m][2j+1] at column j of C's N/2). The direct
  /// store from the accumulators' registers does (each thread holds columns 2j, 2j+1 of its rows),
  /// and so do the paths that end in it: split-K's separate reduce and in-kernel reduction (raw
  /// sums until then), stream-K's fix-up, k_interleave's halves. The others are refused: the TMA
  /// store's staging (and the epilogue warps') lays out BN columns of C, the cluster's reduction
  /// stores pairs of its own, and the tf32 and swapped tiles hold C^T (a thread's values of one
  /// column, not column pairs).
  COALESCE_HD constexpr Verdict check_gated() const {
    if (transposed() || swapped())
      return {Violation::epilogue, "a gated epilogue needs the untransposed tile (the tf32 and swapped tiles hold C^T, "
                                   "no (gate, up) column pairs per thread)"};
    if (tma_store)
      return {Violation::epilogue, "a gated epilogue is stored from the registers (tma_store = 0): the TMA store's "
                                   "staging lays out BN columns of C, not the BN/2 of a gated tile"};
    if (split > 1 && reduce == 2)
      return {Violation::epilogue, "the cluster's split-K reduction (reduce = 2) stores no gated epilogue"};
    return {};
  }
  /// EpilogueReads::residual: C = epilogue(acc, bias) + R[m][n]. The direct store from the
  /// accumulators' registers adds it (epilogue_value: a thread's column pair of its rows, R read
  /// beside C), and so do the paths that end in it for the tile's one owner: stream-K's fix-up
  /// and k_interleave's halves. The others are refused: the TMA store's staging and the epilogue
  /// warps read no residual, split-K's reduce kernels add none, and the tf32 and swapped tiles
  /// store C^T from their own path.
  COALESCE_HD constexpr Verdict check_residual() const {
    if (transposed() || swapped())
      return {Violation::epilogue, "a residual epilogue needs the untransposed tile (the tf32 and swapped tiles store "
                                   "C^T from a path that adds no residual)"};
    if (tma_store || epilogue_slots > 0)
      return {Violation::epilogue, "a residual epilogue is stored from the registers (tma_store = 0, no epilogue "
                                   "warps): the TMA store's staging adds no residual"};
    if (split > 1) return {Violation::epilogue, "split-K's reduce adds no residual: the residual epilogue needs split = 1"};
    return {};
  }
  /// check_gated() and the gated problem's own rule: the C tensor map (a kernel argument even
  /// when unused) needs C's row stride, N/2 x 2 bytes, a multiple of 16 bytes.
  COALESCE_HD constexpr Verdict check_gated_problem(int n) const {
    if (Verdict v = check_gated(); !v.ok()) return v;
    if (n % 16 != 0)
      return {Violation::divisibility, "a gated epilogue needs N a multiple of 16: TMA needs C's row stride "
                                       "(N/2 x 2 bytes) to be a multiple of 16 bytes"};
    return {};
  }
  COALESCE_HD constexpr Verdict check_problem(int m, int n, int k, Dtype dtype) const {
    if (Verdict v = check_dtype(dtype); !v.ok()) return v;
    if (bk != bk_for(dtype))
      return {Violation::dtype, dtype == Dtype::tf32 ? "tf32 needs the tf32 kernel, BK = 32 (a 128-byte row of f32)"
                                                     : "bf16 and f16 need the 16-bit kernel, BK = 64 (a 128-byte row of 16-bit values)"};
    if (m <= 0 || n <= 0 || k <= 0) return {Violation::shape, "M, N and K must be positive"};
    if (static_cast<long long>(m) * k >= (1LL << 31) || static_cast<long long>(k) * n >= (1LL << 31) ||
        static_cast<long long>(m) * n >= (1LL << 31))
      return {Violation::shape, "each matrix must have fewer than 2^31 elements (the kernel indexes with 32 bits)"};
    if (transposed()) {
      if (k % 4 != 0)
        return {Violation::divisibility, "K must be a multiple of 4: TMA needs A's row stride (K x 4 bytes) to be a multiple of 16 bytes"};
      if (n % 4 != 0)
        return {Violation::divisibility, "N must be a multiple of 4: TMA needs the row strides of B and C (N x 4 bytes) to be multiples of 16 bytes"};
    } else {
      if (k % 8 != 0)
        return {Violation::divisibility, "K must be a multiple of 8: TMA needs A's row stride (K x 2 bytes) to be a multiple of 16 bytes"};
      if (n % 8 != 0)
        return {Violation::divisibility, "N must be a multiple of 8: TMA needs the row strides of B and C (N x 2 bytes) to be multiples of 16 bytes"};
    }
    if (split > (k + bk - 1) / bk)
      return {Violation::shape, "split-K needs at least one BK-deep step of K per slice"};
    if (split > 1 && static_cast<long long>(split) * m * n >= (1LL << 31))
      return {Violation::shape, "split-K's partial sums must have fewer than 2^31 elements"};
    return {};
  }
};

/// Planted pipeline hazards (issue 11, item 5): compile-time variants of the kernel that the GPU
/// test (tests/gpu/wgmma_test.cu) runs to show that the correctness check catches each one. The
/// tuner and the emitted kernels never set them.
enum WgmmaHazard : int {
  kWgmmaHazardNone = 0,
  /// wgmma.wait_group waits for too little: the consumer releases slot kb-1 after waiting until
  /// STAGES groups (instead of 1) are pending, while wgmmas may still be reading it.
  kWgmmaHazardShallowWait = 1,
  /// The C tile is written to shared memory with ordinary stores and TMA-stored without
  /// fence.proxy.async (only meaningful with tma_store = 1).
  kWgmmaHazardNoProxyFence = 2,
  /// A slot is reused too early: the consumer releases it as soon as its data has landed, before
  /// the wgmmas that read it are even issued.
  kWgmmaHazardEarlyRelease = 4,
  /// k_interleave = 1: consumer 0 leaves consumer 1's sums out of the tile; k_interleave = 2:
  /// consumer 0 leaves consumer 1's sums out of its half.
  /// Split-K reduced in the kernel (reduce = 1): the last block leaves out slice 0's partial
  /// sums when it is not slice 0 itself (a lost partial sum). Stream-K: the block holding a
  /// shared tile's first K steps leaves out the last other block's sums. Reduced in the cluster
  /// (reduce = 2): every block but slice 0 leaves slice 0's sums out of its share.
  kWgmmaHazardLostPartial = 8,
  /// Split-K reduced in the kernel: the last block applies the epilogue to its own partial sums
  /// before adding the others' (the epilogue applied twice, once on a partial). Stream-K: the
  /// tile's first block applies the activation to its own sums before adding the others'. In the
  /// cluster: each block applies the epilogue to its own sums of its share before adding.
  kWgmmaHazardDoubleEpilogue = 16,
  /// Epilogue warps (epilogue_slots > 0): a slot goes back to the consumers as soon as its TMA
  /// stores are issued, before the TMA engine has read the rounded C out of it.
  kWgmmaHazardEarlySlotRelease = 32,
  /// wgmma.wait_group is one group short for the slot it releases: after committing slice kb's
  /// group the consumer waits until 1 group is pending, which completes the groups before it,
  /// and then releases slot kb itself, whose group may still be queued or reading it (the
  /// kernel waits so and releases slot kb-1; slot kb needs wait_group 0). Its warpgroup meets
  /// at a named barrier first, as with kWgmmaHazardEarlyRelease, so that only the data's
  /// lifetime is broken and not the ring's phases.
  kWgmmaHazardReleaseInFlight = 64,
  /// Not a hazard: the kernel stamps each block's phases (WgmmaPhase) into g_wgmma_stamps, for
  /// the phases test (tests/gpu/wgmma_phases_test.cu), the one translation unit that defines
  /// COALESCE_WGMMA_STAMPS; elsewhere the bit compiles to nothing.
  kWgmmaStampPhases = 128,
};

/// The phases a kWgmmaStampPhases kernel stamps per block (blockIdx.x; split = 1 only), each by
/// one thread: the global timer (ns) at entry and at consumer 0's end, and the SM's clock
/// (cycles) at each step, comparable within a block. Consumer 1's steps follow consumer 0's.
enum WgmmaPhase : int {
  kPhaseEntryNs = 0,     ///< thread 0 enters (global timer)
  kPhaseEntry,           ///< thread 0 enters
  kPhaseSetUp,           ///< thread 0 past the barriers' set-up and the block's (or cluster's) barrier
  kPhaseIssued,          ///< the producer has issued the block's last TMA copy
  kPhaseFirstData,       ///< consumer c's first slot has landed (c = 0; + kPhaseConsumerSteps for 1)
  kPhaseLastData,        ///< consumer c's last slot has landed
  kPhaseMultiplied,      ///< consumer c's wgmmas are complete (wait_group 0)
  kPhaseExchanged,       ///< consumer c holds its finished sums (k_interleave's exchange done)
  kPhaseStored,          ///< consumer c has issued its stores of C
  kPhaseConsumerSteps = kPhaseStored - kPhaseFirstData + 1,
  kPhaseEndNs = kPhaseStored + kPhaseConsumerSteps + 1,  ///< consumer 0 done (global timer)
  kPhaseSlots = 16,
};

}  // namespace coalesce
