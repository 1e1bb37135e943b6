// The hand-picked simt configs (see simt_fixed.hpp): the default; the three best of a 4096³
// bias+GELU probe on the H200 during kernel development; two that vary one knob (a narrow
// block; a thin K slice with a 4-deep ring and 4 blocks per SM); and the best probe's tile with
// 8- and 4-byte copies of B, the only configs that take N % 4 != 0. ptxas 13.0 (sm_90) reports
// no spills for any of them with any epilogue.
#include "simt_fixed.hpp"

#include <tuple>
#include <utility>

#include "kernels/simt/family.hpp"
#include "kernels/simt/gemm.cuh"

namespace coalesce {

namespace {

//                      BM   BN  BK  WM   WN  TM  TN  S  V  G MINB
using FixedTiles = std::tuple<
    SimtTile<128, 128, 16, 64,  32,  8,  8, 3, 4, 8, 2>,  // SimtConfig{}'s defaults
    SimtTile< 64, 128, 16, 32,  64,  8,  8, 3, 4, 8, 3>,  // best 4096³ probe
    SimtTile< 64, 256, 16, 32, 128,  4, 32, 3, 4, 8, 1>,  // 4×32 thread tiles
    SimtTile<128, 256,  8, 64,  64,  8, 16, 4, 4, 8, 1>,  // 8×16 thread tiles, thin K slice
    SimtTile<128,  64, 16, 32,  32,  8,  4, 3, 4, 8, 2>,  // narrow block, 8×4 thread tiles
    SimtTile< 64,  64,  8, 32,  32,  4,  8, 4, 4, 8, 4>,  // 128 threads, 4 blocks per SM
    SimtTile< 64, 128, 16, 32,  64,  8,  8, 3, 2, 8, 3>,  // 8-byte copies of B: even N
    SimtTile< 64, 128, 16, 32,  64,  8,  8, 3, 1, 8, 3>>;  // 4-byte copies of B: any N

template <class Tile>
void add_tile(std::vector<FixedSimtKernel>& out) {
  out.push_back({Tile::config, Epilogue::none,
                 reinterpret_cast<const void*>(&simt_gemm_kernel<Tile, EpilogueNone>)});
  out.push_back({Tile::config, Epilogue::bias,
                 reinterpret_cast<const void*>(&simt_gemm_kernel<Tile, EpilogueBias>)});
  out.push_back({Tile::config, Epilogue::bias_relu,
                 reinterpret_cast<const void*>(&simt_gemm_kernel<Tile, EpilogueFor<Epilogue::bias_relu>>)});
  out.push_back({Tile::config, Epilogue::bias_gelu,
                 reinterpret_cast<const void*>(&simt_gemm_kernel<Tile, EpilogueFor<Epilogue::bias_gelu>>)});
}

template <std::size_t... I>
std::vector<FixedSimtKernel> build(std::index_sequence<I...>) {
  std::vector<FixedSimtKernel> out;
  (add_tile<std::tuple_element_t<I, FixedTiles>>(out), ...);
  return out;
}

bool same(const SimtConfig& a, const SimtConfig& b) { return from_simt(a) == from_simt(b); }

}  // namespace

const std::vector<FixedSimtKernel>& fixed_simt_kernels() {
  static const std::vector<FixedSimtKernel> kernels =
      build(std::make_index_sequence<std::tuple_size_v<FixedTiles>>{});
  return kernels;
}

std::vector<SimtConfig> fixed_simt_configs() {
  std::vector<SimtConfig> configs;
  for (const FixedSimtKernel& k : fixed_simt_kernels())
    if (configs.empty() || !same(configs.back(), k.config)) configs.push_back(k.config);
  return configs;
}

const void* find_fixed_simt_kernel(const SimtConfig& config, Epilogue epilogue) {
  for (const FixedSimtKernel& k : fixed_simt_kernels())
    if (k.epilogue == epilogue && same(k.config, config)) return k.kernel;
  return nullptr;
}

}  // namespace coalesce
