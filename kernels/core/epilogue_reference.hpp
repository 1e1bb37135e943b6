// The fp64 reference of each epilogue of the registry (kernels/core/epilogues.hpp), written
// independently of the kernels' functors (kernels/core/epilogue.cuh) but with their constants
// (kernels/core/gelu.hpp): what the harness (on the GPU) and the CPU tests check outputs against.
// Host and device (nvcc); not for NVRTC.
#pragma once

#include <cmath>

#include "kernels/core/epilogues.hpp"
#include "kernels/core/gelu.hpp"

namespace coalesce {

/// The activation `a` at x, in fp64.
COALESCE_HD inline double reference_activation(Activation a, double x) {
  switch (a) {
    case Activation::identity: return x;
    case Activation::relu: return x > 0.0 ? x : 0.0;
    case Activation::gelu_erf: return 0.5 * x * (1.0 + erf(x * gelu::kInvSqrt2));
    case Activation::gelu_tanh: return 0.5 * x * (1.0 + tanh(gelu::kSqrt2OverPi * (x + gelu::kCubic * x * x * x)));
    case Activation::silu: return x / (1.0 + exp(-x));
  }
  return x;
}

/// C[m][n] in fp64 of an epilogue that reads `reads` and applies `activation` (a registry row's
/// fields, passed by value so device code needs no access to the host's table), from the exact
/// product acc = (A·B)[m][n], bias[n] and residual[m][n] (each ignored unless read).
COALESCE_HD inline double reference_epilogue(EpilogueReads reads, Activation activation, double acc, double bias,
                                             double residual) {
  const double pre = reads.column_bias ? acc + bias : acc;
  const double out = reference_activation(activation, pre);
  return reads.residual ? out + residual : out;
}
/// The same for a registry epilogue, on the host.
inline double reference_epilogue(Epilogue e, double acc, double bias, double residual) {
  return reference_epilogue(epilogue_spec(e).reads, epilogue_spec(e).activation, acc, bias, residual);
}

/// C[m][j] in fp64 of a gated epilogue (EpilogueReads::gated) applying `activation` to the gate,
/// from the exact products gate = (A·B)[m][2j] and up = (A·B)[m][2j+1].
COALESCE_HD inline double reference_gated(Activation activation, double gate, double up) {
  return reference_activation(activation, gate) * up;
}

}  // namespace coalesce
