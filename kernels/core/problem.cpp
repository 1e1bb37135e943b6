// Names of the shared vocabulary (see problem.hpp).
#include "kernels/core/problem.hpp"

#include "kernels/core/epilogues.hpp"

namespace coalesce {

const std::vector<Dtype>& all_dtypes() {
  static const std::vector<Dtype> all = {Dtype::f32, Dtype::tf32, Dtype::bf16, Dtype::f16};
  return all;
}

const std::vector<Epilogue>& all_epilogues() {
  static const std::vector<Epilogue> all = [] {
    std::vector<Epilogue> out;
    for (const EpilogueSpec& e : kEpilogues) out.push_back(e.id);
    return out;
  }();
  return all;
}

std::string epilogue_names() {
  std::string out;
  for (const EpilogueSpec& e : kEpilogues) out += (out.empty() ? "" : ", ") + std::string(e.name);
  return out;
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
  const int i = static_cast<int>(e);
  return i >= 0 && i < kEpilogueCount ? kEpilogues[i].name : "?";
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

int Problem::c_cols() const { return static_cast<int>(output_columns(epilogue_spec(epilogue).reads, n)); }

std::string shape_string(const Problem& p) {
  return std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k);
}

std::optional<Problem> parse_extents(std::string_view text, std::string* error) {
  static constexpr std::string_view kTimes = "\xc3\x97";  // "×" in UTF-8
  std::vector<long long> sides;
  std::size_t pos = 0;
  bool ok = !text.empty();
  while (ok) {
    std::size_t end = pos;
    long long v = 0;
    while (end < text.size() && text[end] >= '0' && text[end] <= '9' && v <= kMaxExtent)
      v = v * 10 + (text[end++] - '0');
    if (end == pos || (end < text.size() && text[end] >= '0' && text[end] <= '9')) {
      ok = false;  // no digits, or more digits than any allowed side has
      break;
    }
    sides.push_back(v);
    if (end == text.size()) break;
    if (text[end] == 'x') pos = end + 1;
    else if (text.substr(end, kTimes.size()) == kTimes) pos = end + kTimes.size();
    else ok = false;
  }
  ok = ok && (sides.size() == 1 || sides.size() == 3);
  for (long long v : sides) ok = ok && v >= 1 && v <= kMaxExtent;
  if (!ok) {
    if (error)
      *error = "expected N (M = N = K) or MxNxK, e.g. 4096 or 1024x2048x512 (x or ×), each side a whole number "
               "from 1 to " + std::to_string(kMaxExtent);
    return std::nullopt;
  }
  if (sides.size() == 1) sides = {sides[0], sides[0], sides[0]};
  Problem p;
  p.m = static_cast<int>(sides[0]);
  p.n = static_cast<int>(sides[1]);
  p.k = static_cast<int>(sides[2]);
  return p;
}

}  // namespace coalesce
