// Run-time values to compile-time types, for .cu files that instantiate one kernel per case:
// the epilogue (kernels/core/epilogue.cuh's EpilogueFor, the one map) and the storage type.
#pragma once

#include <stdexcept>
#include <string>

#include "kernels/core/epilogue.cuh"
#include "kernels/core/numeric.cuh"
#include "kernels/core/problem.hpp"

namespace coalesce {

/// Calls f(EpilogueFor<e>{}) and returns its result, for every registry epilogue whose operands
/// the harness's elementwise kernels read (a column bias), or with kGated the gated ones
/// (EpilogueReads::gated: their kernels read column pairs and write N/2 columns, so only callers
/// that handle Epi::kGated ask for them). Any other throws std::invalid_argument.
template <bool kGated = false, int I = 0, class F>
auto with_epilogue(Epilogue e, F&& f) -> decltype(f(EpilogueFor<Epilogue::none>{})) {
  if constexpr (I == kEpilogueCount) {
    const int i = static_cast<int>(e);
    if (i < 0 || i >= kEpilogueCount) throw std::invalid_argument("unknown epilogue");
    if (kEpilogues[i].reads.gated)
      throw std::invalid_argument("epilogue " + std::string(kEpilogues[i].name) +
                                  " is gated (act(gate) * up of column pairs), which this harness kernel does not apply");
    throw std::invalid_argument("epilogue " + std::string(kEpilogues[i].name) +
                                " reads an M×N residual, which no harness kernel reads yet");
  } else {
    constexpr Epilogue kE = static_cast<Epilogue>(I);
    if constexpr (!epilogue_spec(kE).reads.residual && (kGated || !epilogue_spec(kE).reads.gated)) {
      if (e == kE) return f(EpilogueFor<kE>{});
    }
    return with_epilogue<kGated, I + 1>(e, static_cast<F&&>(f));
  }
}

/// Calls f(T{}) with the storage type T of `e` (float, bf16_t or f16_t) and returns its result.
template <class F>
auto with_storage(Element e, F&& f) {
  switch (e) {
    case Element::f32: return f(float{});
    case Element::bf16: return f(bf16_t{});
    case Element::f16: return f(f16_t{});
  }
  throw std::invalid_argument("unknown element type");
}

}  // namespace coalesce
