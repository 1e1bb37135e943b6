// Prints harness/stats.cpp's summary and stopping decision for samples given on the command line,
// so that tests/unit/reports/torch_peers_test.py can hold scripts/torch_peers.py's statistics to
// the C++ definitions bit for bit.
//
// Usage: stats_dump MIN_SAMPLES MAX_SAMPLES MAX_REL_STD_ERROR BUDGET_MS ELAPSED_MS SAMPLE...
// Prints "key value" lines (values with 17 significant digits) and "stop <reason>|none".
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "harness/stats.hpp"

int main(int argc, char** argv) {
  if (argc < 7) {
    std::fprintf(stderr, "usage: stats_dump MIN MAX MAX_RSE BUDGET_MS ELAPSED_MS SAMPLE...\n");
    return 2;
  }
  const coalesce::StoppingRule rule{std::atoi(argv[1]), std::atoi(argv[2]), std::atof(argv[3]),
                                    std::atof(argv[4])};
  const double elapsed_ms = std::atof(argv[5]);
  std::vector<double> samples;
  for (int i = 6; i < argc; ++i) samples.push_back(std::strtod(argv[i], nullptr));
  const coalesce::SampleStats s = coalesce::summarize(samples);
  std::printf("count %d\n", s.count);
  const struct {
    const char* key;
    double value;
  } fields[] = {{"median", s.median}, {"min", s.min},   {"max", s.max},
                {"p10", s.p10},       {"p90", s.p90},   {"mean", s.mean},
                {"stdev", s.stdev},   {"rel_spread", s.rel_spread},
                {"rel_std_error", s.rel_std_error}};
  for (const auto& f : fields) std::printf("%s %.17g\n", f.key, f.value);
  const auto stop = coalesce::should_stop(rule, s, elapsed_ms);
  std::printf("stop %s\n", stop ? std::string(coalesce::to_string(*stop)).c_str() : "none");
  return 0;
}
