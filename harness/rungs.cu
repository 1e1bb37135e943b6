// The teaching rungs as Methods (see rungs.hpp).
#include "rungs.hpp"

#include <stdexcept>
#include <string>

#include "cuda_check.hpp"
#include "dispatch.cuh"
#include "kernels/rungs/naive.cuh"
#include "kernels/rungs/reg4x4.cuh"
#include "kernels/rungs/tiled.cuh"

namespace coalesce {

std::string_view to_string(Rung r) {
  switch (r) {
    case Rung::naive: return "naive";
    case Rung::tiled: return "tiled";
    case Rung::reg4x4: return "reg4x4";
  }
  return "?";
}

std::string rung_config_name(Rung r, Dtype d, Epilogue e) {
  const std::string suffix = "_" + std::string(to_string(d)) + "_";
  const std::string epi(to_string(e));
  switch (r) {
    case Rung::naive:
      return "naive" + suffix + "b" + std::to_string(kNaiveBlockX) + "x" +
             std::to_string(kNaiveBlockY) + "_" + epi;
    case Rung::tiled: return "tiled" + suffix + "t" + std::to_string(kTiledTile) + "_" + epi;
    case Rung::reg4x4:
      return "reg4x4" + suffix + "bm" + std::to_string(kReg4x4Tile) + "_bn" +
             std::to_string(kReg4x4Tile) + "_bk" + std::to_string(kReg4x4Slice) + "_t" +
             std::to_string(kReg4x4PerThread) + "x" + std::to_string(kReg4x4PerThread) + "_" + epi;
  }
  return "?";
}

namespace {

using GemmLauncher = void (*)(const float*, const float*, const float*, float*, int, int, int,
                              cudaStream_t);

GemmLauncher rung_launcher(Rung r, Epilogue e) {
  return with_epilogue(e, [r](auto epi) -> GemmLauncher {
    using Epi = decltype(epi);
    switch (r) {
      case Rung::naive: return &launch_gemm_naive<Epi>;
      case Rung::tiled: return &launch_gemm_tiled<Epi>;
      case Rung::reg4x4: return &launch_gemm_reg4x4<Epi>;
    }
    return nullptr;
  });
}

}  // namespace

Method rung_method(Rung r, Workspace& ws) {
  const Problem& p = ws.problem();
  if (p.dtype != Dtype::f32)
    throw std::invalid_argument("the teaching rungs compute in f32 only, not " + std::string(to_string(p.dtype)));
  Method m;
  m.method = "coalesce";
  m.family = std::string(to_string(r));
  m.config = rung_config_name(r, p.dtype, p.epilogue);
  m.reference_epilogue = p.epilogue;
  m.launch = [launch = rung_launcher(r, p.epilogue), name = m.config, a = static_cast<const float*>(ws.a()),
              b = static_cast<const float*>(ws.b()), bias = static_cast<const float*>(ws.bias()),
              c = static_cast<float*>(ws.c()), mm = p.m, nn = p.n, kk = p.k](cudaStream_t stream) {
    launch(a, b, bias, c, mm, nn, kk, stream);
    COALESCE_CUDA_CTX(cudaGetLastError(), name);
  };
  return m;
}

}  // namespace coalesce
