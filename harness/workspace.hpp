// The buffers of one problem on the GPU: A, B, bias and C in FP32, filled with fresh random
// values on the GPU, and the fp64 reference (cuBLAS DGEMM plus an fp64 epilogue) that outputs
// are checked against.
#pragma once

#include <cuda_runtime.h>

#include <memory>

#include "check.hpp"
#include "cuda_raii.hpp"
#include "kernels/names.hpp"

namespace coalesce {

/// The reference a method is judged against: the problem's epilogue in fp64, with GELU either
/// exact (erf) or cuBLASLt's tanh approximation (tanh_gelu only matters for bias_gelu).
struct ReferenceKind {
  Epilogue epilogue = Epilogue::none;
  bool tanh_gelu = false;
  bool operator==(const ReferenceKind& o) const {
    return epilogue == o.epilogue && tanh_gelu == o.tanh_gelu;
  }
};

/// One problem's device buffers and its reference. Inputs are uniform in [-1, 1), drawn by a
/// counter-based hash of (seed, buffer, index): reproducible from the seed, never constant.
class Workspace {
 public:
  /// Allocates and fills A (M×K), B (K×N), bias (N) and C (M×N) on `stream` (not owned).
  Workspace(const Problem& problem, unsigned long long seed, cudaStream_t stream);
  ~Workspace();
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  const Problem& problem() const { return problem_; }
  cudaStream_t stream() const { return stream_; }
  const float* a() const { return a_.get(); }
  const float* b() const { return b_.get(); }
  const float* bias() const { return bias_.get(); }
  float* c() const { return c_.get(); }
  unsigned long long seed() const { return seed_; }

  /// Redraws A, B and bias from `seed`; the reference is recomputed when next needed.
  void refill(unsigned long long seed);
  /// Redraws the inputs from the next seed (seed() + 1): fresh inputs for the next check.
  void refill_next() { refill(seed_ + 1); }

  /// Sets every float of C to NaN on `stream` (default: the workspace's), so an element a
  /// kernel does not write fails the check.
  void poison_output(cudaStream_t stream = nullptr) const;

  /// The fp64 reference (M×N, row-major, device memory) for the current inputs; computed on
  /// first use after a refill and kept for the same kind.
  const double* reference(const ReferenceKind& kind);

  /// Compares C with the reference on the GPU and judges it with the dtype's tolerance.
  /// Synchronizes the stream.
  CheckResult check(const ReferenceKind& kind);

  /// The error figures alone (for tests that judge with another tolerance).
  ErrorFigures error_figures(const ReferenceKind& kind);

 private:
  struct Reference;  // cuBLAS handle and fp64 buffers, defined in workspace.cu
  Problem problem_;
  unsigned long long seed_;
  cudaStream_t stream_;
  DeviceBuffer<float> a_, b_, bias_, c_;
  std::unique_ptr<Reference> ref_;
};

}  // namespace coalesce
