// Host-side vocabulary shared by the compiler, tuner, harness and reports: dtypes, epilogues,
// families, methods, and the one function that derives a config's name (DESIGN.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "simt_config.hpp"

namespace coalesce {

enum class Dtype { f32, tf32, bf16 };
enum class Epilogue { none, bias, bias_relu, bias_gelu };

std::string_view to_string(Dtype d);
std::string_view to_string(Epilogue e);
std::optional<Dtype> parse_dtype(std::string_view s);
std::optional<Epilogue> parse_epilogue(std::string_view s);

/// One GEMM problem: A is M×K, B is K×N (both row-major), bias has N entries, C is M×N.
struct Problem {
  int m = 0, n = 0, k = 0;
  Dtype dtype = Dtype::f32;
  Epilogue epilogue = Epilogue::bias_gelu;
  double flops() const { return 2.0 * m * n * k; }
};

/// The derived name of a simt config, e.g.
/// `simt_f32_bm128_bn128_bk16_wm64_wn32_tm8_tn8_s3_v4_g8_o2_bias_gelu`. It is the kernel symbol,
/// the test name and the database key; never typed by hand.
std::string config_name(const SimtConfig& c, Dtype d, Epilogue e);

/// The inverse of config_name(); nullopt when `name` is not a simt config name.
struct NamedSimtConfig {
  SimtConfig config;
  Dtype dtype;
  Epilogue epilogue;
};
std::optional<NamedSimtConfig> parse_config_name(std::string_view name);

/// The C++ type naming a config in the kernel template, e.g.
/// `coalesce::SimtTile<128, 128, 16, 64, 32, 8, 8, 3, 4, 8, 2>` (kernels/simt_gemm.cuh).
std::string simt_tile_type(const SimtConfig& c);

/// The epilogue's C++ type in kernels/epilogue.cuh, e.g. `coalesce::EpilogueBiasGeluErf`.
std::string epilogue_type(Epilogue e);

/// Blocks in the 1-D grid of a simt launch (the kernel rasterizes them itself).
constexpr long long simt_grid_blocks(const SimtConfig& c, int m, int n) {
  return static_cast<long long>((m + c.bm - 1) / c.bm) * ((n + c.bn - 1) / c.bn);
}

}  // namespace coalesce
