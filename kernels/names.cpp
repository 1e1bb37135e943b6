// Derivation and parsing of config names (see names.hpp).
#include "names.hpp"

#include <cstdio>
#include <string>

namespace coalesce {

std::string_view to_string(Dtype d) {
  switch (d) {
    case Dtype::f32: return "f32";
    case Dtype::tf32: return "tf32";
    case Dtype::bf16: return "bf16";
  }
  return "?";
}

std::string_view to_string(Epilogue e) {
  switch (e) {
    case Epilogue::none: return "none";
    case Epilogue::bias: return "bias";
    case Epilogue::bias_relu: return "bias_relu";
    case Epilogue::bias_gelu: return "bias_gelu";
  }
  return "?";
}

std::optional<Dtype> parse_dtype(std::string_view s) {
  for (Dtype d : {Dtype::f32, Dtype::tf32, Dtype::bf16})
    if (to_string(d) == s) return d;
  return std::nullopt;
}

std::optional<Epilogue> parse_epilogue(std::string_view s) {
  for (Epilogue e : {Epilogue::none, Epilogue::bias, Epilogue::bias_relu, Epilogue::bias_gelu})
    if (to_string(e) == s) return e;
  return std::nullopt;
}

std::string config_name(const SimtConfig& c, Dtype d, Epilogue e) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "simt_%s_bm%d_bn%d_bk%d_wm%d_wn%d_tm%d_tn%d_s%d_v%d_g%d_o%d_%s",
                std::string(to_string(d)).c_str(), c.bm, c.bn, c.bk, c.wm, c.wn, c.tm, c.tn,
                c.stages, c.vec, c.group_m, c.min_blocks, std::string(to_string(e)).c_str());
  return buf;
}

std::string simt_tile_type(const SimtConfig& c) {
  char buf[140];
  std::snprintf(buf, sizeof buf, "coalesce::SimtTile<%d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d>",
                c.bm, c.bn, c.bk, c.wm, c.wn, c.tm, c.tn, c.stages, c.vec, c.group_m, c.min_blocks);
  return buf;
}

std::string epilogue_type(Epilogue e) {
  switch (e) {
    case Epilogue::none: return "coalesce::EpilogueNone";
    case Epilogue::bias: return "coalesce::EpilogueBias";
    case Epilogue::bias_relu: return "coalesce::EpilogueBiasRelu";
    case Epilogue::bias_gelu: return "coalesce::EpilogueBiasGeluErf";
  }
  return "?";
}

std::optional<NamedSimtConfig> parse_config_name(std::string_view name) {
  std::string s(name);
  char dtype[8] = {}, epi[16] = {};
  SimtConfig c;
  int consumed = 0;
  int fields = std::sscanf(s.c_str(), "simt_%7[a-z0-9]_bm%d_bn%d_bk%d_wm%d_wn%d_tm%d_tn%d_s%d_v%d_g%d_o%d_%n",
                           dtype, &c.bm, &c.bn, &c.bk, &c.wm, &c.wn, &c.tm, &c.tn, &c.stages,
                           &c.vec, &c.group_m, &c.min_blocks, &consumed);
  if (fields != 12 || consumed == 0) return std::nullopt;
  std::string_view rest = std::string_view(s).substr(consumed);
  if (rest.size() >= sizeof epi) return std::nullopt;
  auto d = parse_dtype(dtype);
  auto e = parse_epilogue(rest);
  if (!d || !e) return std::nullopt;
  NamedSimtConfig out{c, *d, *e};
  if (config_name(out.config, out.dtype, out.epilogue) != name) return std::nullopt;
  return out;
}

}  // namespace coalesce
