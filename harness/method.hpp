// A measured "method" (a fused kernel, a rung, a baseline or a floor) as the harness sees it: a
// launch on a stream plus the reference it is judged against. Every method, whether compiled by
// nvcc or loaded from an NVRTC cubin, is checked and timed through run_method(); a floor, which
// computes no GEMM, is the one kind that is timed without a check (MethodRole).
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "check.hpp"
#include "timing.hpp"
#include "workspace.hpp"

namespace coalesce {

/// What a method computes, which decides whether run_method checks it.
enum class MethodRole {
  /// Computes C (the problem, or its GEMM alone): checked against reference() before it is
  /// timed and again after, so a wrong answer is never a timing.
  gemm,
  /// A physical floor of the problem, not a GEMM (read_b, harness/floors.hpp: reads B once). It
  /// writes no C, so there is nothing to compare with the fp64 reference: run_method times it
  /// with the same cold harness and no check, and MethodResult::check stays empty. The database
  /// stores such a row ok without error figures (schema/vocabulary.hpp, MethodKind::floor);
  /// a method that computes anything of C is never a floor.
  floor,
};

/// One runnable method on one workspace's buffers.
struct Method {
  std::string method;  ///< coalesce | cublas_gemm | eager | unfused | cublaslt_fused | read_b
  std::string family;  ///< naive | tiled | reg4x4 | simt | cublas | cublaslt
  std::string config;  ///< derived name of the kernel and its parameters
  /// Enqueues the whole method (every kernel of it) on the stream; reports launch errors.
  std::function<void(cudaStream_t)> launch;
  Epilogue reference_epilogue = Epilogue::none;  ///< what the output is checked against
  bool tanh_reference = false;                   ///< GELU reference is the tanh form (cuBLASLt)
  int kernels = 1;                               ///< launches per run (eager: 3), each storing C once
  /// Device memory the method allocates beside A, B, bias and C (split-K's partial sums).
  long long workspace_bytes = 0;
  /// Must give bit-identical C run to run on the same inputs: run_method compares the output of
  /// the last timed run with the first checked one and calls any difference a wrong result.
  bool deterministic = false;
  MethodRole role = MethodRole::gemm;            ///< floor: timed only, never checked

  ReferenceKind reference() const { return {reference_epilogue, tanh_reference, kernels}; }
};

/// "method/family config", the context every CUDA error of a method carries.
std::string describe(const Method& m);

/// What became of a method on one problem (the CSV's `status` column).
enum class Status { ok, wrong_result, skipped, error };
std::string_view to_string(Status s);

/// The outcome of run_method: a timing only when the output was right.
struct MethodResult {
  Status status = Status::skipped;
  std::string detail;                ///< why it was skipped, wrong or failed; empty when ok
  unsigned long long input_seed = 0;  ///< the seed of the inputs it was checked on
  std::optional<CheckResult> check;   ///< the check before timing (or after it, if that failed)
  std::optional<Timing> timing;
};

/// Runs `m` once on fresh inputs (ws.refill_next(inputs)) into a poisoned output and checks it
/// against m.reference(); no timing. CUDA errors propagate (naming the method); a floor, which
/// has no output, is refused with std::logic_error.
CheckResult check_method(const Method& m, Workspace& ws, Inputs inputs = Inputs::normal);

/// Checks and times one method. For an epilogue with an activation, first a check on bend
/// inputs (pre-activations in [-3, 3], where ReLU, erf-GELU and tanh-GELU differ); then fresh
/// normal inputs, output poisoned, one run, check against m.reference(); if right, time_cold
/// through `timer`, then check the output of the last timed run again (a race shows up under
/// repetition) and, for a method marked deterministic, compare its bits with the first run's. A
/// floor (MethodRole::floor) is only timed, with no output to reset: ok with a timing and no
/// check. A CUDA error that leaves the context usable becomes Status::error; a sticky one
/// (illegal address, ...) is rethrown, since nothing after it can run.
MethodResult run_method(const Method& m, Workspace& ws, ColdTimer& timer);

}  // namespace coalesce
