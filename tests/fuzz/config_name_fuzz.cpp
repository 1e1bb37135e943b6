// libFuzzer target: a config name (kernels/core/family.cpp parse_config_name, each family's
// parameters). A name that parses is put through what the tools do with one: the family's rules
// first (check), then, for a config they accept, its resources, geometry and workspace on a few
// problems, as the tuner, the compiler and the runtime ask for them. Nothing may trap, divide by
// zero or overflow on the way.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "kernels/core/family.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view name(reinterpret_cast<const char*>(data), size);
  std::optional<coalesce::NamedConfig> named = coalesce::parse_config_name(name);
  if (!named) return 0;
  if (coalesce::config_name(named->config, named->dtype, named->epilogue) != name) std::abort();
  const coalesce::Family* family = coalesce::find_family(named->config.family);
  if (!family) std::abort();
  if (!family->check(named->config).ok()) return 0;
  const coalesce::Target target{9, 0, true, coalesce::DeviceLimits{}};
  const coalesce::Resources resources = family->predict(named->config, target.limits);
  if (!family->check(named->config, target.limits, resources.registers).ok()) return 0;
  (void)family->tile_type(named->config);
  (void)coalesce::params_json(named->config);
  for (coalesce::Problem problem : {coalesce::Problem{1, 1, 1}, coalesce::Problem{4096, 4096, 4096},
                                    coalesce::Problem{coalesce::kMaxExtent, coalesce::kMaxExtent, 1}}) {
    problem.dtype = named->dtype;
    problem.epilogue = named->epilogue;
    if (!family->check_problem(named->config, problem).ok()) continue;
    (void)family->predict(named->config, target.limits, problem);
    (void)family->geometry(named->config, problem, target);
    (void)coalesce::workspace_bytes(named->config, problem, target);
    (void)coalesce::check_schedule(*family, named->config, problem, target);
  }
  return 0;
}
