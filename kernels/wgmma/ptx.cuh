// The Hopper (sm_90) primitives the wgmma family is built from, one inline-PTX function each:
// mbarriers with transaction counts, TMA bulk-tensor loads and stores, the async-proxy fence,
// warpgroup MMA fences and groups, matrix descriptors, setmaxnreg and shared stores. Shared
// memory is addressed with 32-bit shared-window addresses throughout (what every instruction
// here takes). Device-only; wgmma and setmaxnreg need sm_90a.
#pragma once

#include "kernels/core/tensor_map.hpp"

namespace coalesce::sm90 {

/// The shared-window address of a pointer into shared memory.
__device__ __forceinline__ unsigned smem_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// --- mbarriers ---------------------------------------------------------------------------------

/// Initializes the mbarrier at `bar` to expect `arrivals` arrivals per phase.
__device__ __forceinline__ void mbarrier_init(unsigned bar, unsigned arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(arrivals) : "memory");
}
/// Makes initialized mbarriers visible to other threads and to the async proxy (TMA's
/// complete_tx) before they are used; followed by a block barrier.
__device__ __forceinline__ void fence_mbarrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
/// One arrival that also raises the phase's expected transaction count by `bytes` (the bytes
/// the TMA copies issued next will complete on this barrier).
__device__ __forceinline__ void mbarrier_arrive_expect_tx(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
/// One arrival.
__device__ __forceinline__ void mbarrier_arrive(unsigned bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
/// Whether the phase of parity `parity` has completed (try_wait may suspend the thread for a
/// while before answering no).
__device__ __forceinline__ bool mbarrier_try_wait(unsigned bar, unsigned parity) {
  unsigned done;
  asm volatile(
      "{\n.reg .pred p;\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
      "selp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(done)
      : "r"(bar), "r"(parity)
      : "memory");
  return done != 0;
}
/// Nanoseconds of the GPU's global timer.
__device__ __forceinline__ unsigned long long global_timer_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;\n" : "=l"(t));
  return t;
}
/// A barrier wait longer than this is a protocol bug (a phase that can never complete), not a
/// slow pipeline: no wait in a correct GEMM lasts a millisecond.
constexpr unsigned long long kHangNs = 10ull * 1000 * 1000 * 1000;
/// Runs `done` until it answers yes; past kHangNs it traps, so a deadlock fails the launch with
/// an error the harness reports instead of hanging the GPU.
template <class Done>
__device__ __forceinline__ void wait_or_trap(Done done) {
  if (done()) return;
  const unsigned long long start = global_timer_ns();
  while (!done())
    if (global_timer_ns() - start > kHangNs) __trap();
}
/// Waits until the phase of parity `parity` has completed. A fresh barrier is in phase 0, and
/// the phase before it (parity 1) counts as completed: waiting on parity 1 returns at once.
__device__ __forceinline__ void mbarrier_wait(unsigned bar, unsigned parity) {
  wait_or_trap([&] { return mbarrier_try_wait(bar, parity); });
}

// --- clusters ----------------------------------------------------------------------------------

/// This block's rank in its cluster.
__device__ __forceinline__ unsigned cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
}
/// Every thread of every block of the cluster: arrive (release) and wait (acquire).
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}
/// The two halves of cluster_sync apart, for a block that touches its peers' shared memory only
/// late: every thread arrives without a release (after fence_mbarrier_init, which releases the
/// barriers' initialization at cluster scope: no MEMBAR.GPU here) and waits (acquire) just before
/// its first access to a peer. Not .aligned: the threads of a warp may reach them apart.
__device__ __forceinline__ void cluster_arrive_relaxed() { asm volatile("barrier.cluster.arrive.relaxed;\n" ::: "memory"); }
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait.acquire;\n" ::: "memory"); }
/// The shared::cluster address of this block's shared address `addr` in cluster block `rank`.
__device__ __forceinline__ unsigned cluster_address(unsigned addr, unsigned rank) {
  unsigned remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(remote) : "r"(addr), "r"(rank));
  return remote;
}
/// One arrival on the mbarrier at shared address `bar` of cluster block `rank` (this block's
/// own address of it, mapped into the peer's window). The arrival has the default semantics
/// (release at CTA scope), as CUTLASS's cluster barrier arrives: what it orders is that the
/// wgmmas that read the slot are complete (wgmma.wait_group), not memory this thread wrote; a
/// cluster-scope release fence on every slot release stalls the warpgroup's next wgmma issue.
__device__ __forceinline__ void mbarrier_arrive_cluster(unsigned bar, unsigned rank) {
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];\n" ::"r"(cluster_address(bar, rank)) : "memory");
}

/// Distributed shared memory (split-K reduced in the cluster): two f32 into the shared address
/// `addr` of cluster block `rank` (this block's own addresses, mapped into the peer's window),
/// stored asynchronously: the store completes 8 bytes of transactions on that block's mbarrier
/// `bar`, whose waiter then sees the data (as a TMA load's), with no fence in the sender.
__device__ __forceinline__ void st_async_v2_f32(unsigned addr, unsigned rank, float a, float b, unsigned bar) {
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.f32 [%0], {%1, %2}, [%3];\n" ::"r"(
                   cluster_address(addr, rank)),
               "f"(a), "f"(b), "r"(cluster_address(bar, rank))
               : "memory");
}
__device__ __forceinline__ float2 ld_shared_v2_f32(unsigned addr) {
  float2 v;
  asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];\n" : "=f"(v.x), "=f"(v.y) : "r"(addr) : "memory");
  return v;
}
// --- named barriers ----------------------------------------------------------------------------

/// Hardware barrier `id` (1..15; 0 is __syncthreads') of `threads` threads: bar.arrive counts this
/// thread's warp in and goes on, bar.sync counts it in and waits for the barrier to complete. One
/// side arriving and the other syncing hands an order from one group of warps to another.
__device__ __forceinline__ void named_barrier_arrive(unsigned id, unsigned threads) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void named_barrier_sync(unsigned id, unsigned threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
/// bar.red.or over `threads` threads of named barrier `id`: every one gets whether any passed true.
__device__ __forceinline__ bool named_barrier_or(unsigned id, unsigned threads, bool p) {
  unsigned r;
  asm volatile(
      "{\n .reg .pred in, out;\n setp.ne.u32 in, %1, 0;\n barrier.red.or.pred out, %2, %3, in;\n"
      " selp.u32 %0, 1, 0, out;\n}\n"
      : "=r"(r)
      : "r"(static_cast<unsigned>(p)), "r"(id), "r"(threads)
      : "memory");
  return r != 0;
}

// --- TMA ---------------------------------------------------------------------------------------

/// Fetches a tensor map (a __grid_constant__ kernel parameter) into the descriptor cache.
__device__ __forceinline__ void prefetch_tensor_map(const TensorMap* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<unsigned long long>(map)) : "memory");
}
/// Copies the box of `map` at element coordinates (c0 inner, c1 outer) to shared memory at `dst`,
/// completing `bar`'s transaction count by the box's bytes. Elements outside the tensor are
/// written as zeros and still count.
__device__ __forceinline__ void tma_load_2d(unsigned dst, const TensorMap* map, int c0, int c1, unsigned bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
      "l"(reinterpret_cast<unsigned long long>(map)), "r"(c0), "r"(c1), "r"(bar)
      : "memory");
}
/// The same copy into shared memory at `dst` of every block of the cluster in `mask` (bit r:
/// cluster rank r), each completing its bytes on its own mbarrier at the offset `bar` names.
__device__ __forceinline__ void tma_load_2d_multicast(unsigned dst, const TensorMap* map, int c0, int c1, unsigned bar,
                                                      unsigned short mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(dst),
      "l"(reinterpret_cast<unsigned long long>(map)), "r"(c0), "r"(c1), "r"(bar), "h"(mask)
      : "memory");
}
/// Copies shared memory at `src` to the box of `map` at (c0, c1); elements outside the tensor
/// are not written. Joins the thread's current bulk group.
__device__ __forceinline__ void tma_store_2d(const TensorMap* map, unsigned src, int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%2, %3}], [%1];\n" ::"l"(
          reinterpret_cast<unsigned long long>(map)),
      "r"(src), "r"(c0), "r"(c1)
      : "memory");
}
__device__ __forceinline__ void bulk_commit_group() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
/// Waits until at most N of the thread's bulk groups still read their shared-memory source.
template <int N>
__device__ __forceinline__ void bulk_wait_group_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}
/// Orders this thread's generic-proxy shared-memory accesses (ordinary loads and stores) before
/// later async-proxy accesses (TMA, wgmma) to shared memory (HOPPER.md, "Ordering").
/// atom.add with acquire and release at GPU scope: the count of one thread that publishes (and
/// then reads) what its CTA wrote before a CTA barrier (release and acquire are cumulative, so
/// one thread's atom orders the writes its barrier partners made before the barrier).
__device__ __forceinline__ unsigned atomic_add_acq_rel_gpu(unsigned* address, unsigned value) {
  unsigned old;
  asm volatile("atom.add.acq_rel.gpu.global.u32 %0, [%1], %2;\n" : "=r"(old) : "l"(address), "r"(value) : "memory");
  return old;
}
__device__ __forceinline__ void fence_proxy_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// --- warpgroup MMA -----------------------------------------------------------------------------

/// Orders earlier register accesses of the warpgroup before the wgmma.mma_async issued next.
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
/// Closes the group of wgmma.mma_async issued since the last commit.
__device__ __forceinline__ void wgmma_commit_group() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
/// Waits until at most N of the warpgroup's committed wgmma groups are pending.
template <int N>
__device__ __forceinline__ void wgmma_wait_group() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
/// Pins a register the async MMAs write: nothing that reads or writes `r` moves across this
/// point (the compiler does not know wgmma.wait_group completes the accumulators).
__device__ __forceinline__ void fence_operand(float& r) { asm volatile("" : "+f"(r)::"memory"); }

/// A wgmma shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format"):
///   bits  0-13  start address >> 4
///   bits 16-29  leading dimension byte offset >> 4
///   bits 32-45  stride dimension byte offset >> 4
///   bits 49-51  base offset (0: every operand here starts on its swizzle period, 1024 or 512 bytes)
///   bits 62-63  swizzle mode: 1 = 128-byte, 2 = 64-byte (`SWIZZLE_BYTES`)
/// Built from a run-time shared address, so it is a run-time value (see kernels/wgmma/ops.cuh).
/// Addresses below 256 KB fit the 14-bit field, so advancing the start address by a multiple
/// of 16 bytes is adding to the descriptor.
template <int SWIZZLE_BYTES>
__device__ __forceinline__ unsigned long long matrix_descriptor(unsigned address, unsigned leading_bytes,
                                                                unsigned stride_bytes) {
  static_assert(SWIZZLE_BYTES == 128 || SWIZZLE_BYTES == 64, "the kernels use the 128- and 64-byte swizzles");
  constexpr unsigned long long kLayout = SWIZZLE_BYTES == 128 ? 1ull : 2ull;
  return static_cast<unsigned long long>((address & 0x3FFFF) >> 4) |
         (static_cast<unsigned long long>((leading_bytes & 0x3FFFF) >> 4) << 16) |
         (static_cast<unsigned long long>((stride_bytes & 0x3FFFF) >> 4) << 32) | (kLayout << 62);
}
/// The 128-byte swizzle's descriptor (A always; B but for the narrow tile).
__device__ __forceinline__ unsigned long long matrix_descriptor_128b(unsigned address, unsigned leading_bytes,
                                                                     unsigned stride_bytes) {
  return matrix_descriptor<128>(address, leading_bytes, stride_bytes);
}

// --- registers and shared memory ----------------------------------------------------------------

/// Raises this warpgroup's per-thread register limit to N (all warps of the warpgroup).
template <int N>
__device__ __forceinline__ void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
}
/// Lowers this warpgroup's per-thread register limit to N, freeing registers for the others.
template <int N>
__device__ __forceinline__ void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
}
/// A 32-bit store to shared memory.
__device__ __forceinline__ void st_shared_b32(unsigned address, unsigned value) {
  asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(address), "r"(value) : "memory");
}
/// A 32-bit load from shared memory (ordered after the mbarrier wait that made it valid).
__device__ __forceinline__ unsigned ld_shared_b32(unsigned address) {
  unsigned v;
  asm volatile("ld.shared.b32 %0, [%1];\n" : "=r"(v) : "r"(address) : "memory");
  return v;
}
/// Four f32 values to shared memory in one 16-byte store (the address 16-byte aligned).
__device__ __forceinline__ void st_shared_v4_f32(unsigned address, float x, float y, float z, float w) {
  asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"r"(address), "f"(x), "f"(y), "f"(z), "f"(w)
               : "memory");
}
/// Four f32 values from shared memory in one 16-byte load (the address 16-byte aligned).
__device__ __forceinline__ float4 ld_shared_v4_f32(unsigned address) {
  float4 v;
  asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];\n"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "r"(address)
               : "memory");
  return v;
}

// --- flags between blocks (stream-K) -------------------------------------------------------------

/// Stores `value` to a global flag with release semantics at GPU scope: every write this thread
/// has made or observed before (after a barrier, its block's writes) is visible to a thread that
/// reads the value with ld_acquire_gpu.
__device__ __forceinline__ void st_release_gpu(unsigned* flag, unsigned value) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;\n" ::"l"(flag), "r"(value) : "memory");
}
/// Loads a global flag with acquire semantics at GPU scope (pairs with st_release_gpu).
__device__ __forceinline__ unsigned ld_acquire_gpu(const unsigned* flag) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n" : "=r"(v) : "l"(flag) : "memory");
  return v;
}
/// Waits until a global flag is nonzero, acquiring what its writer released. A wait past
/// kHangNs traps (a flag that is never raised is a schedule bug; the harness reports the error).
__device__ __forceinline__ void wait_flag_gpu(const unsigned* flag) {
  if (ld_acquire_gpu(flag) != 0) return;
  const unsigned long long start = global_timer_ns();
  while (ld_acquire_gpu(flag) == 0)
    if (global_timer_ns() - start > kHangNs) __trap();
}

}  // namespace coalesce::sm90
