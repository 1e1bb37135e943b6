// Run-time values to compile-time types, for .cu files that instantiate one kernel per case:
// the epilogue (kernels/core/epilogue.cuh's EpilogueFor, the one map) and the storage type.
#pragma once

#include <stdexcept>

#include "kernels/core/epilogue.cuh"
#include "kernels/core/numeric.cuh"
#include "kernels/core/problem.hpp"

namespace coalesce {

/// Calls f(EpilogueFor<e>{}) (tanh GELU for bias_gelu when `tanh_gelu`) and returns its result.
template <class F>
auto with_epilogue(Epilogue e, bool tanh_gelu, F&& f) {
  switch (e) {
    case Epilogue::none: return f(EpilogueFor<Epilogue::none>{});
    case Epilogue::bias: return f(EpilogueFor<Epilogue::bias>{});
    case Epilogue::bias_relu: return f(EpilogueFor<Epilogue::bias_relu>{});
    case Epilogue::bias_gelu:
      return tanh_gelu ? f(EpilogueFor<Epilogue::bias_gelu, true>{}) : f(EpilogueFor<Epilogue::bias_gelu>{});
  }
  throw std::invalid_argument("unknown epilogue");
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
