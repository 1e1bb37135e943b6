// The values of `measurements.method` and `measurements.status` (docs/database.md, "Methods"
// and "Statuses"): one list of each for the sweep, the report, the diff and `coalesce-tune
// record`. Header-only and free of CUDA and SQLite, so any layer may include it.
#pragma once

#include <optional>
#include <string_view>

namespace coalesce::db {

/// Who measures a method, which decides how its rows are keyed (docs/database.md, "Uniqueness
/// and resume").
enum class MethodOrigin {
  tuned,     ///< coalesce-tune sweep, with a config: once per device × problem × method × config
  baseline,  ///< coalesce-tune sweep, a library call without a config: once per run
  peer,      ///< an outside tool through `coalesce-tune record`, with a config, in runs of its own
};

/// What a method's rows measure, which decides whether they are checked and compared.
enum class MethodKind {
  /// Computes the problem (or its GEMM): checked against the fp64 reference, so its ok and
  /// wrong_result rows carry error figures, and compared with the fused kernel.
  gemm,
  /// A physical floor of the problem, not a GEMM (`read_b`: the time to read B once). It has no
  /// output to check, so its rows are ok without error figures (the schema holds the same list:
  /// migration 0005); the report never compares it as a peer, only shows it as a bound.
  floor,
};

/// One method a measurement row may name; docs/database.md says what each one runs.
struct MethodInfo {
  std::string_view name;
  MethodOrigin origin;
  MethodKind kind = MethodKind::gemm;
};

/// Every method, in the order the report lists them beside a family's best.
inline constexpr MethodInfo kMethods[] = {
    {"coalesce", MethodOrigin::tuned},          // one fused kernel, a tuned config
    {"cublas_gemm", MethodOrigin::baseline},    // cuBLAS GEMM alone, the ceiling
    {"eager", MethodOrigin::baseline},          // cuBLAS GEMM, bias add, activation
    {"unfused", MethodOrigin::baseline},        // cuBLAS GEMM, one bias+activation kernel
    {"cublaslt_fused", MethodOrigin::baseline}, // cuBLASLt's fused epilogue (tanh GELU)
    {"read_b", MethodOrigin::baseline, MethodKind::floor},  // reads B once: the floor of a B-bound GEMM
    {"coalesce_unfused", MethodOrigin::tuned},  // the winner's GEMM, then the epilogue kernel
    {"torch_eager", MethodOrigin::peer},        // scripts/torch_peers.py: PyTorch eager,
    {"torch_compile", MethodOrigin::peer},      //   torch.compile (Inductor),
    {"triton", MethodOrigin::peer},             //   its Triton matmul with the epilogue fused
};

/// The method named `name`, or nullptr when it is none of kMethods.
constexpr const MethodInfo* find_method(std::string_view name) {
  for (const MethodInfo& m : kMethods)
    if (m.name == name) return &m;
  return nullptr;
}

/// True when `name` is a floor (MethodKind::floor): timed, never checked, never a peer.
constexpr bool is_floor(std::string_view name) {
  const MethodInfo* m = find_method(name);
  return m && m->kind == MethodKind::floor;
}

/// Where `name` sorts in kMethods; unknown methods sort after every known one.
constexpr int method_rank(std::string_view name) {
  int i = 0;
  for (const MethodInfo& m : kMethods) {
    if (m.name == name) return i;
    ++i;
  }
  return i;
}

/// The outcome of one candidate, baseline or peer (`measurements.status`); the schema's CHECK
/// holds the same closed set (a test compares them).
enum class Status { pruned, compile_failed, launch_failed, wrong_result, timeout, ok };

/// Every status, in the order of the schema's CHECK.
inline constexpr Status kStatuses[] = {Status::pruned,       Status::compile_failed,
                                       Status::launch_failed, Status::wrong_result,
                                       Status::timeout,      Status::ok};

constexpr std::string_view to_string(Status s) {
  switch (s) {
    case Status::pruned: return "pruned";
    case Status::compile_failed: return "compile_failed";
    case Status::launch_failed: return "launch_failed";
    case Status::wrong_result: return "wrong_result";
    case Status::timeout: return "timeout";
    case Status::ok: return "ok";
  }
  return "?";
}

/// The status spelled `name`, or nullopt.
constexpr std::optional<Status> parse_status(std::string_view name) {
  for (Status s : kStatuses)
    if (to_string(s) == name) return s;
  return std::nullopt;
}

}  // namespace coalesce::db
