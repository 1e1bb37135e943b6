// libFuzzer target: a `--shape`'s text (kernels/core/problem.hpp parse_extents). Any bytes must be
// either refused with a reason or give sides from 1 to kMaxExtent that print back as a shape the
// parser reads to the same problem.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "kernels/core/problem.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string error;
  std::optional<coalesce::Problem> problem = coalesce::parse_extents(text, &error);
  if (!problem) {
    if (error.empty()) std::abort();  // a refusal must say what is expected
    return 0;
  }
  for (int side : {problem->m, problem->n, problem->k})
    if (side < 1 || side > coalesce::kMaxExtent) std::abort();
  std::optional<coalesce::Problem> again = coalesce::parse_extents(coalesce::shape_string(*problem));
  if (!again || !(*again == *problem)) std::abort();
  return 0;
}
