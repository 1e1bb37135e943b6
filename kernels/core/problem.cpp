// Names of the shared vocabulary (see problem.hpp).
#include "kernels/core/problem.hpp"

namespace coalesce {

const std::vector<Dtype>& all_dtypes() {
  static const std::vector<Dtype> all = {Dtype::f32, Dtype::tf32, Dtype::bf16, Dtype::f16};
  return all;
}

const std::vector<Epilogue>& all_epilogues() {
  static const std::vector<Epilogue> all = {Epilogue::none, Epilogue::bias, Epilogue::bias_relu, Epilogue::bias_gelu};
  return all;
}

std::string_view to_string(Dtype d) {
  switch (d) {
    case Dtype::f32: return "f32";
    case Dtype::tf32: return "tf32";
    case Dtype::bf16: return "bf16";
    case Dtype::f16: return "f16";
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

std::string_view to_string(Element e) {
  switch (e) {
    case Element::f32: return "f32";
    case Element::bf16: return "bf16";
    case Element::f16: return "f16";
  }
  return "?";
}

std::string_view to_string(Math m) {
  switch (m) {
    case Math::f32: return "f32";
    case Math::tf32: return "tf32";
    case Math::bf16: return "bf16";
    case Math::f16: return "f16";
  }
  return "?";
}

std::optional<Dtype> parse_dtype(std::string_view s) {
  for (Dtype d : all_dtypes())
    if (to_string(d) == s) return d;
  return std::nullopt;
}

std::optional<Epilogue> parse_epilogue(std::string_view s) {
  for (Epilogue e : all_epilogues())
    if (to_string(e) == s) return e;
  return std::nullopt;
}

std::string shape_string(const Problem& p) {
  return std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k);
}

}  // namespace coalesce
