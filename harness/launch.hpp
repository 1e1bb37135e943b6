// The one launch contract of every kernel family, for the harness (kernel_method), the tuner's
// worker (through kernel_method) and the runtime library (compiler/runtime/): from a config, a
// problem and a target, what a launch is (LaunchPlan: geometry, cluster, dynamic shared memory,
// the kernel's arguments in the family's order, its tensor maps, its workspace and split-K's
// reduce), then that plan bound to buffers and a kernel handle (BoundLaunch) and enqueued on a
// stream. The family plug-in answers every question (kernels/core/family.hpp); nothing here
// names a family. Library `coalesce_launch`: the CUDA runtime only (no cuBLAS, no Workspace).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <vector>

#include "kernels/core/family.hpp"
#include "kernels/core/tensor_map.hpp"

namespace coalesce {

/// The most parameters a family's kernel may take (plan_launch refuses more): every KernelArg
/// once, with room to grow.
inline constexpr std::size_t kMaxKernelArgs = 16;

/// How one config is launched on one problem and target; derived from the family alone, so it
/// needs no GPU.
struct LaunchPlan {
  const Family* family = nullptr;
  Config config;
  Problem problem;   ///< with the epilogue the kernel applies
  /// The padded copies of a problem whose rows the family cannot read in place (Staging in
  /// kernels/core/family.hpp); staging.kernel is the problem the kernel, its grid, its tensor
  /// maps and split-K's reduce compute.
  Staging staging;
  std::string name;  ///< config_name(config, dtype, epilogue), for messages
  Geometry geometry;
  /// The kernel's parameters in order (Family::kernel_args()).
  std::vector<KernelArg> args;
  /// The tensor map of each tensor-map parameter, in the order args names them.
  std::vector<TensorMapSpec> tensor_maps;
  int slices = 1;  ///< split-K's factor (the grid's z extent), 1 unsplit
  /// Whether split-K's reduce kernel runs after the GEMM (split > 1, reduction not in the kernel).
  bool reduce_after = false;
  /// Bytes of workspace the launch needs (workspace_bytes(): the family's, then the staged
  /// copies); 0 for none.
  long long workspace_bytes = 0;
  /// Whether the workspace is passed as the kernel's C (split-K's partials in a family without
  /// KernelArg::workspace) rather than as its own argument.
  bool workspace_as_c = false;
  /// The part of the workspace that must hold zeros before the first launch (the counters and
  /// flags of an in-kernel reduction or stream-K, which the kernel leaves at zero): bytes
  /// [zero_offset, zero_offset + zero_bytes).
  long long zero_offset = 0, zero_bytes = 0;
  /// Whether every block of the grid must be resident at once (stream-K's blocks wait for each
  /// other): the compiled kernel's occupancy must hold the grid (check_residency).
  bool needs_residency = false;
};

/// The plan of `config` with `problem` (its dtype and epilogue) on `target`, for operands whose
/// rows are `strides` apart (0: contiguous; other strides are staged, Staging). Throws
/// std::invalid_argument ("<config name>: <why>") when no family has the config's name or the
/// family refuses the config or the problem, and std::logic_error when the family's own answers
/// contradict each other (a grid whose z is not the split, counters without a workspace argument).
LaunchPlan plan_launch(const Config& config, const Problem& problem, const Target& target,
                       const RowStrides& strides = {});

/// Whether `config` can run `problem` on `target`, as the compiler's verifier judges a tile on
/// a target: the family's rule, its problem rule, its architecture and the device's limits with
/// the family's predicted registers. The runtime's choice of a config asks this.
Verdict fits(const Config& config, const Problem& problem, const Target& target);

/// Once per kernel handle, before its first launch: allows the plan's dynamic shared memory
/// (cudaFuncSetAttribute) and, where every block must be resident (stream-K), asks the CUDA
/// occupancy API whether the compiled kernel holds the grid on target.sm_count SMs. Throws
/// std::invalid_argument (one sentence) when it does not, CudaError when a call fails.
void prepare_kernel(const LaunchPlan& plan, const void* kernel, const Target& target);

/// Enqueues the zeroing of the part of `workspace` the kernel expects at zero (plan.zero_*;
/// nothing when there is none) on `stream`.
void zero_workspace(const LaunchPlan& plan, void* workspace, cudaStream_t stream);

/// The operands of one launch in device memory: A, B, bias (null for the empty epilogue), C,
/// the workspace (plan.workspace_bytes of it; null when 0) and the M×N residual in C's type
/// (for an epilogue that reads one, kernels/core/epilogues.hpp; null otherwise).
struct LaunchBuffers {
  const void* a = nullptr;
  const void* b = nullptr;
  const void* bias = nullptr;
  void* c = nullptr;
  void* workspace = nullptr;
  const void* residual = nullptr;
};

/// Why `buffers` cannot be bound to `plan` (a null A, B or C, a bias missing or given against
/// the epilogue, a workspace missing); empty when they can.
std::string buffers_refusal(const LaunchPlan& plan, const LaunchBuffers& buffers);

/// A plan bound to its buffers and a kernel handle (a __global__ function's address, or a
/// cudaKernel_t of a loaded cubin as CubinKernel::function() gives it): the argument values in
/// the family's order, tensor maps encoded once over the buffers. The buffers and the kernel
/// must outlive it. Copyable (the values are plain data).
class BoundLaunch {
 public:
  /// Throws std::invalid_argument ("<config name>: <why>") when buffers_refusal() or the driver
  /// refuses the buffers (a tensor map), CudaError when a device query fails.
  BoundLaunch(const LaunchPlan& plan, const void* kernel, const LaunchBuffers& buffers);

  /// Enqueues the kernel on `stream` and, for split-K with a separate reduce, the reduce (a
  /// programmatic dependent launch on sm_90 and later); for a staged problem the copies into
  /// the padded buffers first and the copy of C out of its padded rows last. Throws CudaError
  /// when a launch or a copy fails.
  void enqueue(cudaStream_t stream) const;

  /// The pointer to each kernel argument's value, in the kernel's order (what cudaLaunchKernel
  /// reads); valid while this object lives and is not moved.
  std::vector<void*> argument_pointers() const;

 private:
  struct Values {
    const void *a, *b, *bias;
    void* c;
    int m, n, k;
    TensorMap a_map, b_map, c_map;
    void* workspace;
    const void* residual;
  };
  void fill_arguments(void** out) const;
  void stage(const LaunchPlan& plan, const LaunchBuffers& buffers);
  struct Copy;
  void copy(const std::vector<Copy>& copies, cudaStream_t stream) const;

  const void* kernel_;
  Geometry geometry_;
  std::vector<KernelArg> args_;
  std::string name_;
  Values values_;
  // Split-K's reduce after the kernel: the problem (dtype, epilogue), the partials and where C goes.
  bool reduce_after_ = false;
  Problem problem_;
  int slices_ = 1;
  const float* partials_ = nullptr;
  const void* bias_ = nullptr;
  void* c_ = nullptr;
  int reduce_blocks_ = 0;
  bool programmatic_ = false;
  // A staged problem's copies (cudaMemcpy2DAsync: rows of `width` bytes, `src_pitch` apart in
  // the source and `dst_pitch` in the destination), before the kernel and after it.
  struct Copy {
    void* dst;
    std::size_t dst_pitch;
    const void* src;
    std::size_t src_pitch, width, rows;
  };
  std::vector<Copy> copies_in_, copies_out_;
  void* staged_c_ = nullptr;  // the padded C the kernel stores, or null
};

}  // namespace coalesce
