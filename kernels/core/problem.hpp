// The host-side vocabulary every layer shares: names of dtypes, epilogues, elements and math
// modes, and the GEMM problem (A M×K, B K×N, both row-major; bias of N; C M×N). C++17, so .cu
// files include it too.
#pragma once

#include <optional>
#include <vector>
#include <string>
#include <string_view>

#include "kernels/core/types.hpp"

namespace coalesce {

std::string_view to_string(Dtype d);
std::string_view to_string(Epilogue e);
std::string_view to_string(Element e);
std::string_view to_string(Math m);
std::optional<Dtype> parse_dtype(std::string_view s);
std::optional<Epilogue> parse_epilogue(std::string_view s);

/// Every dtype and epilogue, in declaration order (for help texts and enumerations).
const std::vector<Dtype>& all_dtypes();
const std::vector<Epilogue>& all_epilogues();
/// The epilogue registry's names, comma-separated, for help texts and usage errors.
std::string epilogue_names();

/// One GEMM problem: A is M×K, B is K×N (both row-major), bias has N entries, C is M×N (M×N/2
/// for a gated epilogue: c_cols()), in the dtype's types (gemm_types()). flops() counts the GEMM's
/// N.
struct Problem {
  int m = 0, n = 0, k = 0;
  Dtype dtype = Dtype::f32;
  Epilogue epilogue = Epilogue::bias_gelu;
  double flops() const { return 2.0 * m * n * k; }
  /// The columns of C: n, or n/2 under a gated epilogue, whose GEMM's n columns are gate and up
  /// interleaved (kernels/core/epilogues.hpp, EpilogueReads::gated).
  int c_cols() const;
  /// The elements of C, m · c_cols().
  long long c_elements() const { return static_cast<long long>(m) * c_cols(); }
  GemmTypes types() const { return gemm_types(dtype); }
  bool operator==(const Problem& o) const {
    return m == o.m && n == o.n && k == o.k && dtype == o.dtype && epilogue == o.epilogue;
  }
};

/// "MxNxK", e.g. "4096x4096x4096".
std::string shape_string(const Problem& p);

/// The largest M, N or K a tool accepts: far above any GEMM the tools run on one GPU, and inside
/// the int extents and leading dimensions cuBLAS and a kernel's grid take.
inline constexpr int kMaxExtent = 1 << 20;

/// M, N and K from the text of a `--shape`: "N" (M = N = K) or "MxNxK", the separator also
/// written "×" as the reports print shapes ("4096×4096×4096"), each side from 1 to kMaxExtent.
/// The dtype and epilogue are left at their defaults. nullopt, with `error` set to what is
/// expected (a clause without the option's name), for anything else.
std::optional<Problem> parse_extents(std::string_view text, std::string* error = nullptr);

}  // namespace coalesce
