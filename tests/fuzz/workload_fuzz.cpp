// libFuzzer target: a workload (shapes) file (tuner/workload.cpp parse_workload). Any bytes must
// be either refused with a WorkloadError or give problems whose sides a --shape would accept.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "kernels/core/problem.hpp"
#include "tuner/workload.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  try {
    const coalesce::Workload workload = coalesce::parse_workload(in, "fuzz.csv");
    for (const coalesce::Problem& p : workload.problems(coalesce::Dtype::f32, coalesce::Epilogue::none))
      for (int side : {p.m, p.n, p.k})
        if (side < 1 || side > coalesce::kMaxExtent) std::abort();
  } catch (const coalesce::WorkloadError& refused) {
    if (std::string(refused.what()).empty()) std::abort();
  }
  return 0;
}
