// What every kernel family's config is judged against, whatever the family: the device's limits,
// the categories a config can be refused under, and the verdict. Device-safe: compiles under
// nvcc, NVRTC and a plain C++ compiler (no standard headers), so a family's static_asserts, the
// compiler's verifier and the tuner's pruning share one rule.
#pragma once

// Callable from host and device code alike (kernels evaluate configs in constant expressions).
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define COALESCE_HD __host__ __device__
#else
#define COALESCE_HD
#endif

namespace coalesce {

/// What a config must fit into: read from the device at run time (tuner) or from the
/// compiler's target attribute. Defaults are the H200's (sm_90).
struct DeviceLimits {
  int smem_per_block_optin = 232448;  ///< bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin
  int smem_per_sm = 233472;           ///< bytes
  int max_threads_per_block = 1024;
  int max_threads_per_sm = 2048;
  int regs_per_sm = 65536;
  int max_regs_per_thread = 255;
  int max_blocks_per_sm = 32;
};

/// Why a config was refused; the tuner stores the category with every pruned row.
/// `dtype` and `arch` are a family's refusals of a whole problem or device (a simt kernel has no
/// bf16 path; wgmma needs sm_90a), not of one tile. `schedule` and `workspace` are split-K's:
/// a split that cannot help on the problem, or partial sums above the workspace limit.
enum class Violation : int { none = 0, shape, divisibility, threads, smem, registers, occupancy, dtype, arch, schedule, workspace, epilogue };

/// The category's name as stored in the database (`prune_reason`).
COALESCE_HD constexpr const char* violation_name(Violation v) {
  switch (v) {
    case Violation::none: return "none";
    case Violation::shape: return "shape";
    case Violation::divisibility: return "divisibility";
    case Violation::threads: return "threads";
    case Violation::smem: return "smem";
    case Violation::registers: return "registers";
    case Violation::occupancy: return "occupancy";
    case Violation::dtype: return "dtype";
    case Violation::arch: return "arch";
    case Violation::schedule: return "schedule";
    case Violation::workspace: return "workspace";
    case Violation::epilogue: return "epilogue";
  }
  return "unknown";
}

/// A verdict: ok() when the config is legal, otherwise a category and one sentence.
struct Verdict {
  Violation violation = Violation::none;
  const char* why = nullptr;
  COALESCE_HD constexpr bool ok() const { return violation == Violation::none; }
};

/// Whether an M×N×K problem (A M×K, B K×N, C M×N) has a matrix of 2^31 elements or more, whose
/// element offsets a 32-bit int cannot hold (issue 39). A family whose kernel indexes in 32 bits
/// for speed offers a 64-bit variant that its space chooses for exactly these problems.
COALESCE_HD constexpr bool needs_64bit_offsets(int m, int n, int k) {
  return static_cast<long long>(m) * k >= (1LL << 31) || static_cast<long long>(k) * n >= (1LL << 31) ||
         static_cast<long long>(m) * n >= (1LL << 31);
}

/// The most K slices a split-K config may cut K into (every family's `split` rule).
inline constexpr int kMaxSplitSlices = 32;

/// Registers per thread that ptxas may use when `blocks` blocks of `threads` threads must be
/// resident on an SM of `regs_per_sm` registers (__launch_bounds__(threads, blocks)): allocation
/// is per warp in 256-register granules, hence a multiple of 8 per thread, and at most 255.
COALESCE_HD constexpr int register_cap(int threads, int blocks, int regs_per_sm = 65536) {
  int cap = regs_per_sm / (blocks * threads);
  cap -= cap % 8;
  return cap < 255 ? cap : 255;
}

/// Blocks of `threads` threads using `smem_bytes` of shared memory and `registers` per thread
/// that one SM can hold (the occupancy calculator's three limits, plus the block limit). The
/// driver reserves 1 KB of shared memory per block on sm_80 and sm_90.
COALESCE_HD constexpr int resident_blocks(const DeviceLimits& d, int threads, int smem_bytes, int registers) {
  const int warps = (threads + 31) / 32;
  const int by_threads = d.max_threads_per_sm / threads;
  const int by_smem = d.smem_per_sm / (smem_bytes + 1024);
  const int regs_per_warp = ((registers * 32 + 255) / 256) * 256;  // allocation granule
  const int by_regs = regs_per_warp > 0 ? d.regs_per_sm / (regs_per_warp * warps) : d.max_blocks_per_sm;
  int n = by_threads < by_smem ? by_threads : by_smem;
  n = n < by_regs ? n : by_regs;
  return n < d.max_blocks_per_sm ? n : d.max_blocks_per_sm;
}

}  // namespace coalesce
