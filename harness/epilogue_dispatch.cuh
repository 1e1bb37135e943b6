// Maps the run-time Epilogue to its compile-time type in kernels/epilogue.cuh, for .cu files
// that instantiate one kernel per epilogue.
#pragma once

#include <stdexcept>

#include "kernels/epilogue.cuh"
#include "kernels/names.hpp"

namespace coalesce {

/// Calls f(EpilogueX{}) with the type of `e` (erf GELU for bias_gelu, unless tanh_gelu) and
/// returns its result.
template <class F>
auto with_epilogue(Epilogue e, bool tanh_gelu, F&& f) {
  switch (e) {
    case Epilogue::none: return f(EpilogueNone{});
    case Epilogue::bias: return f(EpilogueBias{});
    case Epilogue::bias_relu: return f(EpilogueBiasRelu{});
    case Epilogue::bias_gelu: return tanh_gelu ? f(EpilogueBiasGeluTanh{}) : f(EpilogueBiasGeluErf{});
  }
  throw std::invalid_argument("unknown epilogue");
}

}  // namespace coalesce
