// The family registry, generic config names and parameter access (see family.hpp).
#include "kernels/core/family.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>

#include "kernels/core/epilogues.hpp"

namespace coalesce {

// The built-in families, in the order sweeps and help texts list them (kernels/families.cpp).
std::vector<const Family*>& builtin_family_list();

namespace {

std::vector<const Family*>& registry() {
  static std::vector<const Family*> all = builtin_family_list();
  return all;
}

const Family& family_of(const Config& c) {
  const Family* f = find_family(c.family);
  if (!f) throw std::invalid_argument("no kernel family named '" + c.family + "' (known: " + family_names() + ")");
  if (c.values.size() != f->params().size())
    throw std::invalid_argument("a " + c.family + " config has " + std::to_string(f->params().size()) +
                                " parameters, not " + std::to_string(c.values.size()));
  return *f;
}

}  // namespace

const std::vector<KernelArg>& Family::kernel_args() const {
  static const std::vector<KernelArg> args = {KernelArg::a, KernelArg::b, KernelArg::bias, KernelArg::c,
                                              KernelArg::m, KernelArg::n, KernelArg::k};
  return args;
}

TensorMapSpec Family::tensor_map(const Config&, const Problem&, KernelArg) const {
  throw std::logic_error("the " + std::string(name()) + " family's kernel takes no tensor map");
}

int Family::row_multiple(const Config&, const Problem&) const { return 1; }

int Family::value(const Config& config, std::string_view param) const {
  auto ps = params();
  for (std::size_t i = 0; i < ps.size() && i < config.values.size(); ++i)
    if (ps[i].name == param) return config.values[i];
  throw std::invalid_argument(std::string(name()) + " has no parameter '" + std::string(param) + "'");
}

Config Family::with(Config config, std::string_view param, int v) const {
  auto ps = params();
  for (std::size_t i = 0; i < ps.size() && i < config.values.size(); ++i)
    if (ps[i].name == param) {
      config.values[i] = v;
      return config;
    }
  throw std::invalid_argument(std::string(name()) + " has no parameter '" + std::string(param) + "'");
}

Resources Family::predict(const Config& config, const DeviceLimits& limits, const Problem&) const {
  return predict(config, limits);
}

Resources Family::resources(const Config& config, const DeviceLimits& limits, int registers) const {
  Resources r = predict(config, limits);
  r.registers = registers;
  r.blocks_per_sm = resident_blocks(limits, r.threads, r.smem_bytes, registers);
  return r;
}

const std::vector<const Family*>& families() { return registry(); }

const Family* find_family(std::string_view name) {
  for (const Family* f : registry())
    if (f->name() == name) return f;
  return nullptr;
}

void register_family(const Family& family) {
  if (find_family(family.name()))
    throw std::logic_error("a kernel family named '" + std::string(family.name()) + "' is already registered");
  registry().push_back(&family);
}

std::string family_names() {
  std::string out;
  for (const Family* f : registry()) out += (out.empty() ? "" : ", ") + std::string(f->name());
  return out;
}

std::string config_name(const Config& config, Dtype dtype, Epilogue epilogue) {
  const Family& f = family_of(config);
  std::string name = config.family + "_" + std::string(to_string(dtype));
  auto ps = f.params();
  for (std::size_t i = 0; i < ps.size(); ++i)
    if (config.values[i] != ps[i].unnamed) name += "_" + std::string(ps[i].abbrev) + std::to_string(config.values[i]);
  return name + "_" + std::string(to_string(epilogue));
}

std::optional<NamedConfig> parse_config_name(std::string_view name) {
  const std::size_t cut = name.find('_');
  if (cut == std::string_view::npos) return std::nullopt;
  const Family* f = find_family(name.substr(0, cut));
  if (!f) return std::nullopt;
  std::string_view rest = name.substr(cut + 1);
  const std::size_t dcut = rest.find('_');
  if (dcut == std::string_view::npos) return std::nullopt;
  auto dtype = parse_dtype(rest.substr(0, dcut));
  if (!dtype) return std::nullopt;
  rest = rest.substr(dcut + 1);
  NamedConfig out{{std::string(f->name()), {}}, *dtype, Epilogue::none};
  for (const ParamSpec& p : f->params()) {
    if (rest.substr(0, p.abbrev.size()) != p.abbrev) {
      // A parameter at its unnamed value is absent from the name.
      if (p.unnamed == kAlwaysNamed) return std::nullopt;
      out.config.values.push_back(p.unnamed);
      continue;
    }
    rest = rest.substr(p.abbrev.size());
    int v = 0;
    auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), v);
    if (ec != std::errc() || end == rest.data() || end == rest.data() + rest.size() || *end != '_')
      return std::nullopt;
    out.config.values.push_back(v);
    rest = rest.substr(static_cast<std::size_t>(end - rest.data()) + 1);
  }
  auto epilogue = parse_epilogue(rest);
  if (!epilogue) return std::nullopt;
  out.epilogue = *epilogue;
  // Only the canonical spelling parses ("s03" or "+3" would name the same config twice).
  if (config_name(out.config, out.dtype, out.epilogue) != name) return std::nullopt;
  return out;
}

std::string params_json(const Config& config) {
  const Family& f = family_of(config);
  std::string json = "{";
  auto ps = f.params();
  bool first = true;
  for (std::size_t i = 0; i < ps.size(); ++i) {
    if (config.values[i] == ps[i].unnamed) continue;
    json += (first ? "\"" : ",\"") + std::string(ps[i].name) + "\":" + std::to_string(config.values[i]);
    first = false;
  }
  return json + "}";
}

namespace {

// The index of the parameter named `name` in the config's family, or -1.
int param_index(const Config& config, std::string_view name) {
  const auto& ps = family_of(config).params();
  for (std::size_t i = 0; i < ps.size(); ++i)
    if (ps[i].name == name) return static_cast<int>(i);
  return -1;
}
int split_index(const Config& config) { return param_index(config, kSplitParam); }

}  // namespace

int split_slices(const Config& config) {
  const int i = split_index(config);
  return i < 0 ? 1 : config.values[static_cast<std::size_t>(i)];
}

namespace {
int reduce_method(const Config& config) {
  const int i = param_index(config, kReduceParam);
  return i >= 0 && split_slices(config) > 1 ? config.values[static_cast<std::size_t>(i)] : 0;
}
}  // namespace

bool reduces_in_kernel(const Config& config) { return reduce_method(config) != 0; }
bool reduces_through_counters(const Config& config) { return reduce_method(config) == 1; }
bool reduces_in_cluster(const Config& config) { return reduce_method(config) == 2; }

int stream_k_segments(const Config& config) {
  const int i = param_index(config, kStreamKParam);
  return i < 0 ? 0 : config.values[static_cast<std::size_t>(i)];
}

bool workspace_needs_zeros(const Config& config) {
  return reduces_through_counters(config) || stream_k_segments(config) > 0;
}

long long Family::workspace_bytes(const Config& config, const Problem& problem, const Target& target) const {
  const int s = split_slices(config);
  if (s <= 1 || reduces_in_cluster(config)) return 0;  // the cluster's sums stay on chip
  long long bytes = static_cast<long long>(s) * problem.m * problem.n * 4;
  if (reduces_through_counters(config)) bytes += 4LL * geometry(config, problem, target).grid_x;
  return bytes;
}

Verdict Family::check_schedule(const Config&, const Problem&, const Target&) const { return {}; }

Problem kernel_problem(const Family& family, const Config& config, const Problem& problem) {
  const int r = family.row_multiple(config, problem);
  if (r <= 1) return problem;
  auto up = [r](int x) { return static_cast<int>((static_cast<long long>(x) + r - 1) / r * r); };
  Problem kernel = problem;
  kernel.n = up(problem.n);
  kernel.k = up(problem.k);
  return kernel;
}

Staging staging_of(const Config& config, const Problem& problem, const Target& target, const RowStrides& strides) {
  const Family& family = family_of(config);
  Staging s;
  s.kernel = kernel_problem(family, config, problem);
  s.strides = strides;
  const int c_cols = problem.c_cols();
  auto strided = [](long long stride, long long width, const char* what) {
    if (stride != 0 && stride < width)
      throw std::invalid_argument(std::string(what) + "'s rows are " + std::to_string(stride) +
                                  " elements apart, fewer than its " + std::to_string(width) + " columns");
    return stride != 0 && stride != width;
  };
  const bool a_strided = strided(strides.a, problem.k, "A");
  const bool b_strided = strided(strides.b, problem.n, "B");
  const bool c_strided = strided(strides.c, c_cols, "C");
  s.n = s.kernel.n != problem.n;
  s.a = a_strided || s.kernel.k != problem.k;
  s.b = b_strided || s.n;
  s.c = c_strided || s.n;
  s.family_bytes = family.workspace_bytes(config, s.kernel, target);
  s.bytes = s.family_bytes;
  if (!s.any()) return s;
  const EpilogueReads reads = epilogue_spec(problem.epilogue).reads;
  if (reads.gated && s.n)
    throw std::logic_error("the " + std::string(family.name()) +
                           " family pads a gated problem's N: its row_multiple() must be 1 there");
  const GemmTypes t = problem.types();
  auto place = [&s](long long bytes) {
    const long long at = (s.bytes + 255) / 256 * 256;
    s.bytes = at + bytes;
    return at;
  };
  const long long m = problem.m;
  if (s.a) s.a_offset = place(m * s.kernel.k * element_bytes(t.a));
  if (s.b) s.b_offset = place(static_cast<long long>(problem.k) * s.kernel.n * element_bytes(t.b));
  if (s.n && reads.column_bias) s.bias_offset = place(static_cast<long long>(s.kernel.n) * element_bytes(t.bias));
  if (s.n && reads.residual) s.residual_offset = place(m * s.kernel.c_cols() * element_bytes(t.c));
  if (s.c) s.c_offset = place(m * s.kernel.c_cols() * element_bytes(t.c));
  return s;
}

long long workspace_bytes(const Config& config, const Problem& problem, const Target& target) {
  return staging_of(config, problem, target).bytes;
}

Config kernel_config(const Config& config) {
  const int i = split_index(config);
  Config out = config;
  // The reduction in the cluster is specialized on the split (its sums' layout and count).
  if (i >= 0 && out.values[static_cast<std::size_t>(i)] > 1 && !reduces_in_cluster(config))
    out.values[static_cast<std::size_t>(i)] = 2;
  return out;
}

Verdict supports_epilogue(const Family& family, Epilogue epilogue) {
  const std::vector<KernelArg>& args = family.kernel_args();
  if (epilogue_spec(epilogue).reads.residual &&
      std::find(args.begin(), args.end(), KernelArg::residual) == args.end())
    return {Violation::epilogue, "the family's kernels read no M×N residual (no KernelArg::residual argument)"};
  if (epilogue_spec(epilogue).reads.gated && !family.stores_gated())
    return {Violation::epilogue, "the family's kernels store no gated epilogue (act(gate) * up of column pairs)"};
  return {};
}

Verdict supports_epilogue(const Family& family, const Problem& problem) {
  if (Verdict v = supports_epilogue(family, problem.epilogue); !v.ok()) return v;
  if (epilogue_spec(problem.epilogue).reads.gated && problem.n % 2 != 0)
    return {Violation::divisibility, "a gated epilogue needs an even N: its columns are gate and up pairs"};
  return {};
}

Verdict check_schedule(const Family& family, const Config& config, const Problem& user_problem, const Target& target) {
  // The schedule is the kernel's: on the padded problem where the launch stages one.
  const Problem problem = kernel_problem(family, config, user_problem);
  const int s = split_slices(config);
  if (s > 1) {
    // The unsplit config: split = 1 and no in-kernel reduction (which means nothing unsplit, and
    // whose cluster would change the grid and the blocks per SM this judges).
    Config whole = config;
    whole.values[static_cast<std::size_t>(split_index(config))] = 1;
    if (const int r = param_index(config, kReduceParam); r >= 0) whole.values[static_cast<std::size_t>(r)] = 0;
    const long long blocks = family.geometry(whole, problem, target).blocks();
    const int per_sm = std::max(1, family.predict(whole, target.limits, problem).blocks_per_sm);
    if (blocks >= static_cast<long long>(target.sm_count) * per_sm)
      return {Violation::schedule, "split-K cannot help: the unsplit grid already fills a wave of the GPU's SMs"};
  }
  if (workspace_bytes(config, user_problem, target) > target.max_workspace_bytes)
    return {Violation::workspace, s > 1 ? "split-K's partial sums (split x M x N floats) exceed the workspace limit"
                                        : "the schedule's workspace exceeds the workspace limit"};
  return family.check_schedule(config, problem, target);
}

}  // namespace coalesce
