// The buffers of one problem on the GPU: A, B, bias and C in the dtype's storage types, filled
// with fresh random values on the GPU, and the fp64 reference (cuBLAS DGEMM on the inputs as
// stored, plus an fp64 epilogue) that outputs are checked against.
#pragma once

#include <cuda_runtime.h>

#include <memory>

#include "check.hpp"
#include "cuda_raii.hpp"
#include "kernels/core/problem.hpp"

namespace coalesce {

/// The reference a method is judged against: the problem's epilogue in fp64 (kernels/core/
/// epilogue_reference.hpp), with an erf GELU replaced by the tanh GELU when `tanh_gelu` (cuBLASLt's
/// GELU_BIAS standing in for bias_gelu), and how
/// many times the method rounds C to its storage type (the tolerance grows with it).
struct ReferenceKind {
  Epilogue epilogue = Epilogue::none;
  bool tanh_gelu = false;
  int roundings = 1;
  bool operator==(const ReferenceKind& o) const {
    return epilogue == o.epilogue && tanh_gelu == o.tanh_gelu && roundings == o.roundings;
  }
};

/// How the inputs are drawn. `normal`: A, B and bias uniform in [-1, 1), so the products grow
/// like sqrt(K) and the pre-activations sit far out where ReLU, erf-GELU and tanh-GELU nearly
/// agree. `bend`: A is scaled by 3/sqrt(K) so most pre-activations fall in [-3, 3], where a
/// wrong activation formula shows (the check's second pass for activation epilogues).
enum class Inputs { normal, bend };

/// One problem's device buffers and its reference. Inputs are drawn in f32 by a counter-based
/// hash of (seed, buffer, index), reproducible from the seed and never constant, then rounded
/// once to the storage type: the reference is computed from exactly what the kernels read.
class Workspace {
 public:
  /// Allocates and fills A (M×K), B (K×N), bias (N) and C (M×N) on `stream` (not owned).
  Workspace(const Problem& problem, unsigned long long seed, cudaStream_t stream);
  ~Workspace();
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  const Problem& problem() const { return problem_; }
  GemmTypes types() const { return problem_.types(); }
  cudaStream_t stream() const { return stream_; }
  /// The buffers, in the storage types of types() (float, or 16-bit bf16/f16 bit patterns).
  const void* a() const { return a_.get(); }
  const void* b() const { return b_.get(); }
  const void* bias() const { return bias_.get(); }
  /// The M×N residual in C's type, for an epilogue that reads one (kernels/core/epilogues.hpp);
  /// nullptr for the others.
  const void* residual() const { return residual_.get(); }
  /// C: M×N elements of C's type, so a method judged against the GEMM alone (cublas_gemm) has
  /// room for the product under every epilogue; a gated epilogue's output is its first M×N/2
  /// (row-major, N/2 columns: Problem::c_cols()), and only those are checked.
  void* c() const { return c_.get(); }
  /// The M×N product in C's type that a gated epilogue's unfused baseline (the merged GEMM, then
  /// act-and-multiply into C) stores between its two kernels; nullptr for other epilogues.
  void* intermediate() const { return intermediate_.get(); }
  std::size_t c_bytes() const { return c_.bytes(); }
  unsigned long long seed() const { return seed_; }
  Inputs inputs() const { return inputs_; }

  /// Redraws A, B and bias from `seed`; the reference is recomputed when next needed.
  void refill(unsigned long long seed, Inputs inputs = Inputs::normal);
  /// Redraws the inputs from the next seed (seed() + 1): fresh inputs for the next check.
  void refill_next(Inputs inputs = Inputs::normal) { refill(seed_ + 1, inputs); }

  /// Sets every element of C to NaN on `stream` (default: the workspace's), so an element a
  /// kernel does not write fails the check. All-ones bytes are a NaN in f32, bf16 and f16.
  void poison_output(cudaStream_t stream = nullptr) const;

  /// Keeps a copy of C's bytes as they are now (the output of a run), for output_differs().
  void snapshot_output();
  /// The number of 32-bit words of C whose bits differ from the last snapshot_output():
  /// 0 for a deterministic method run twice on the same inputs. Synchronizes the stream.
  long long output_differs();

  /// The fp64 reference (M×N, row-major, device memory; M×N/2 for a gated kind) for the current
  /// inputs; computed on first use after a refill and kept for the same kind.
  const double* reference(const ReferenceKind& kind);

  /// Compares C with the reference on the GPU and judges it with the tolerance of the problem
  /// and the kind's roundings. Synchronizes the stream.
  CheckResult check(const ReferenceKind& kind);

  /// The error figures alone (for tests that judge with another tolerance).
  ErrorFigures error_figures(const ReferenceKind& kind);

 private:
  struct Reference;  // cuBLAS handle and fp64 buffers, defined in workspace.cu
  Problem problem_;
  unsigned long long seed_;
  Inputs inputs_ = Inputs::normal;
  cudaStream_t stream_;
  DeviceBuffer<unsigned char> a_, b_, bias_, c_, residual_, intermediate_, c_snapshot_;
  std::unique_ptr<Reference> ref_;
};

}  // namespace coalesce
