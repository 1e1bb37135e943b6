// coalesce-tune: enumerates, compiles, checks and times tile configs of the fused kernel and
// stores every row in the results database; `record` stores measurements taken outside it and
// `record-profile` a profiler's figures of one kernel (docs/tuner.md). Exit status as every tool's (docs/working.md): 0 done, 1 the work failed, 2 bad
// usage or a bad feed line, 3 no CUDA device, 130 interrupted.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "coalesce/version.h"
#include "harness/device.hpp"
#include "checkout.hpp"
#include "history.hpp"
#include "jit.hpp"
#include "kernel_cache.hpp"
#include "record.hpp"
#include "record_profile.hpp"
#include "replay.hpp"
#include "schema/db.hpp"
#include "schema/output_file.hpp"
#include "space.hpp"
#include "strategy.hpp"
#include "sweep.hpp"
#include "worker.hpp"
#include "workload.hpp"

namespace {

using namespace coalesce;

// Bad usage: one sentence on stderr and exit status 2, before anything is opened or written.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// More compile threads than this is a typo, not a machine: each thread holds an NVRTC compile.
constexpr long long kMaxJobs = 1024;
// A measurement that takes a day has hung; an infinite --timeout would be no deadline at all.
constexpr double kMaxTimeoutSeconds = 86400;

std::string cuda_version(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

// `env` on a machine without a GPU: what the tools know without one, and the limits a dry run
// judges configs by. Not an error: a development machine is expected to have no GPU.
int print_env_without_gpu(const std::string& why) {
  const DeviceLimits l{};
  std::printf("device          none: no GPU here (%s)\n", why.c_str());
  std::printf("runtime         CUDA %s (static; the driver would be needed to run a kernel)\n",
              cuda_version(cuda_runtime_version()).c_str());
  std::printf("nvrtc           %s (compiles for sm_90 without a GPU: sweep --dry-run)\n", tuner::nvrtc_version().c_str());
  std::printf("dry run judges  sm_90 with the H200's limits: smem/block (opt-in) %d B, smem/SM %d B, threads/block %d, "
              "threads/SM %d, regs/SM %d, regs/thread %d\n",
              l.smem_per_block_optin, l.smem_per_sm, l.max_threads_per_block, l.max_threads_per_sm, l.regs_per_sm,
              l.max_regs_per_thread);
  std::printf("coalesce        %s (git %s)\n", COALESCE_VERSION, COALESCE_GIT_REVISION);
  return 0;
}

int print_env(int ordinal) {
  if (const DeviceCount devices = count_devices(); devices.count == 0 && !devices.driver_error)
    return print_env_without_gpu(devices.why);
  DeviceInfo d = query_device(ordinal);
  std::printf("device          %s (%s)\n", d.name.c_str(), d.uuid.c_str());
  std::printf("arch            %s, %d SMs, L2 %d KiB, %.1f GiB\n", d.arch().c_str(), d.sm_count,
              d.l2_bytes / 1024, d.global_mem_bytes / double(1 << 30));
  std::printf("limits          smem/block (opt-in) %d B, smem/SM %d B, threads/block %d, regs/SM %d\n",
              d.limits.smem_per_block_optin, d.limits.smem_per_sm, d.limits.max_threads_per_block,
              d.limits.regs_per_sm);
  std::printf("driver          CUDA %d.%d%s%s\n", d.driver_version / 1000, (d.driver_version % 1000) / 10,
              d.driver_release.empty() ? "" : ", release ", d.driver_release.c_str());
  std::printf("runtime         CUDA %d.%d\n", d.runtime_version / 1000, (d.runtime_version % 1000) / 10);
  std::printf("nvrtc           %s\n", tuner::nvrtc_version().c_str());
  auto clock = sm_clock_mhz(ordinal);
  if (clock)
    std::printf("sm clock        %d MHz now, %d MHz max\n", *clock, d.max_sm_clock_mhz);
  else
    std::printf("sm clock        unknown (NVML not available)\n");
  std::printf("coalesce        %s (git %s)\n", COALESCE_VERSION, COALESCE_GIT_REVISION);
  return 0;
}

// A --shape: "4096" (M = N = K), "MxNxK" or "M×N×K" (parse_extents), each side within kMaxExtent.
Problem shape_option(const std::string& text, Dtype dtype, Epilogue epilogue) {
  std::string error;
  std::optional<Problem> p = parse_extents(text, &error);
  if (!p) throw UsageError("--shape '" + text + "': " + error);
  p->dtype = dtype;
  p->epilogue = epilogue;
  return *p;
}

// A whole non-negative number (no sign, no spaces), or nothing.
std::optional<int> whole_number(std::string_view text) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string_view::npos) return {};
  return std::stoi(std::string(text));
}

// --devices: "all" (every GPU of this host) or ordinals "0,1,3", each present and named once.
// The list is checked before the devices are counted, so a typo is bad usage on any machine.
std::vector<int> parse_devices(const std::string& text) {
  std::vector<int> out;
  if (text != "all") {
    std::string_view rest = text;
    while (true) {
      const std::size_t comma = rest.find(',');
      const std::string_view item = rest.substr(0, comma);
      const std::optional<int> d = whole_number(item);
      if (!d)
        throw UsageError("--devices '" + text + "': '" + std::string(item) + "' is not a device ordinal (all, or e.g. 0,1)");
      if (std::find(out.begin(), out.end(), *d) != out.end())
        throw UsageError("--devices '" + text + "' names device " + std::to_string(*d) + " twice");
      out.push_back(*d);
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  const int available = tuner::available_devices();
  if (available == 0) throw NoDeviceError("--devices " + text + ": no CUDA device here");
  if (text == "all")
    for (int d = 0; d < available; ++d) out.push_back(d);
  for (int d : out)
    if (d >= available)
      throw UsageError("--devices '" + text + "': device " + std::to_string(d) + " is not here (this host has " +
                       std::to_string(available) + ", ordinals 0 to " + std::to_string(available - 1) + ")");
  return out;
}

// --shard I/N: 0 <= I < N.
std::pair<int, int> parse_shard(const std::string& text) {
  const std::size_t slash = text.find('/');
  const std::optional<int> i = whole_number(std::string_view(text).substr(0, slash));
  const std::optional<int> n =
      slash == std::string::npos ? std::nullopt : whole_number(std::string_view(text).substr(slash + 1));
  if (!i || !n || *n < 1 || *i >= *n)
    throw UsageError("--shard '" + text + "' is not I/N with 0 <= I < N (e.g. 0/4, the first of four shards)");
  return {*i, *n};
}

// The shard of a Slurm array task: its index among the array's tasks, from SLURM_ARRAY_TASK_ID,
// _MIN, _STEP and _COUNT (e.g. --array=0-7 gives shards 0/8 to 7/8); 0/1 outside an array.
std::pair<int, int> shard_from_slurm() {
  const auto env = [](const char* name) -> std::optional<int> {
    const char* v = std::getenv(name);
    return v ? whole_number(v) : std::nullopt;
  };
  const std::optional<int> id = env("SLURM_ARRAY_TASK_ID"), count = env("SLURM_ARRAY_TASK_COUNT");
  if (!id || !count) return {0, 1};
  const int min = env("SLURM_ARRAY_TASK_MIN").value_or(0), step = std::max(1, env("SLURM_ARRAY_TASK_STEP").value_or(1));
  const int index = (*id - min) / step;
  if (*id < min || (*id - min) % step != 0 || index >= *count)
    throw UsageError("SLURM_ARRAY_TASK_ID " + std::to_string(*id) + " is not one of the array's " +
                     std::to_string(*count) + " tasks (min " + std::to_string(min) + ", step " +
                     std::to_string(step) + "): pass --shard I/N");
  std::fprintf(stderr, "coalesce-tune: shard %d/%d (Slurm array task %d)\n", index, *count, *id);
  return {index, *count};
}

std::string dtype_names() {
  std::string out;
  for (Dtype d : all_dtypes()) out += (out.empty() ? "" : ", ") + std::string(to_string(d));
  return out;
}

// The dtypes some registered family computes: what a help text offers.
std::string computed_dtype_names() {
  std::string out;
  for (Dtype d : all_dtypes()) {
    bool computed = false;
    for (const Family* f : families()) computed = computed || f->supports(d).ok();
    if (computed) out += (out.empty() ? "" : ", ") + std::string(to_string(d));
  }
  return out;
}

Dtype parse_dtype_option(const std::string& text) {
  auto d = parse_dtype(text);
  if (!d) throw UsageError("--dtype '" + text + "' is not a dtype (" + dtype_names() + ")");
  return *d;
}

Epilogue parse_epilogue_option(const std::string& text) {
  auto e = parse_epilogue(text);
  if (!e) throw UsageError("--epilogue '" + text + "' is not an epilogue (" + epilogue_names() + ")");
  return *e;
}

// `--family all` or a registered family that computes `dtype` (its device is judged later);
// `source` says where the dtype came from: "--dtype bf16", or a workload file's line.
void check_family(const std::string& family, Dtype dtype, const std::string& source) {
  if (family == "all") {
    for (const Family* f : families())
      if (f->supports(dtype).ok()) return;
    throw UsageError("no kernel family computes " + source + " (families: " + family_names() + ")");
  }
  const Family* f = find_family(family);
  if (!f) throw UsageError("--family '" + family + "' is not a kernel family (" + family_names() + ", or all)");
  if (Verdict v = f->supports(dtype); !v.ok())
    throw UsageError("--family " + family + " cannot compute " + source + ": " + v.why);
}

// The problem options shared by `space` and `sweep`.
struct ProblemOptions {
  std::vector<std::string> shapes, shapes_files;
  std::string dtype = "f32";
  std::string epilogue = "bias_gelu";
  std::string family = "all";

  void add_to(CLI::App* app) {
    app->add_option("--shape", shapes,
                    "M=N=K (e.g. 4096) or MxNxK (x or ×), each side 1 to " + std::to_string(kMaxExtent) + "; repeatable");
    app->add_option("--shapes-file", shapes_files,
                    "a workload file: lines m,n,k,dtype,epilogue[,name][,count], an empty dtype or epilogue taking "
                    "--dtype / --epilogue (workloads/, docs/scale.md); repeatable");
    app->add_option("--dtype", dtype, "the GEMM's types: " + computed_dtype_names() + " (those a family computes)")
        ->capture_default_str();
    app->add_option("--epilogue", epilogue, "one of " + epilogue_names())->capture_default_str();
    app->add_option("--family", family, "kernel family (" + family_names() + "), or all: every family that computes the dtype")
        ->capture_default_str();
  }
  // Every --shape, then every line of every --shapes-file, each problem once; each dtype they
  // use is checked against --family once, named as it was given.
  std::vector<Problem> problems() const {
    if (shapes.empty() && shapes_files.empty()) throw UsageError("--shape or --shapes-file is required (see --help)");
    const Dtype d = parse_dtype_option(dtype);
    const Epilogue e = parse_epilogue_option(epilogue);
    std::vector<Problem> out;
    std::vector<Dtype> checked;
    auto add = [&](const Problem& p, const std::string& source) {
      if (std::find(checked.begin(), checked.end(), p.dtype) == checked.end()) {
        check_family(family, p.dtype, source);
        checked.push_back(p.dtype);
      }
      add_unique(out, p);
    };
    const std::string option_dtype = "--dtype " + std::string(to_string(d));
    for (const std::string& s : shapes) add(shape_option(s, d, e), option_dtype);
    for (const std::string& file : shapes_files) {
      Workload w;
      try {
        w = read_workload(file);
      } catch (const WorkloadError& error) {
        throw UsageError(error.what());
      }
      for (const WorkloadLine& l : w.lines)
        add(l.problem(d, e), l.dtype ? std::string(to_string(*l.dtype)) + " (" + file + ":" + std::to_string(l.line) + ")"
                                     : option_dtype);
    }
    return out;
  }
};

// One line of `space`: a candidate, a list combination that is no config, or a family refused.
struct SpaceRow {
  const Problem* problem;
  std::string family, config, verdict;  // verdict: legal, pruned, not_a_config, refused
  std::optional<Resources> predicted;
  std::string reason, message;
};

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// `space`: every candidate of every family with its verdict before compiling, as text (a header
// line per problem and family), CSV (one header, one row per line) or JSON.
int print_space(const std::vector<Problem>& problems, const std::string& family_option, int ordinal, bool all,
                const std::string& format, long long max_workspace_bytes) {
  Target target{9, 0, true, DeviceLimits{}};
  std::string judged_by = "device " + std::to_string(ordinal);
  if (device_count() > 0) {
    const DeviceInfo d = query_device(ordinal);
    target = d.target();
    judged_by = d.name + " (" + d.arch() + ")";
  } else {
    judged_by = "no GPU here: the H200's limits (sm_90)";
    std::fprintf(stderr, "coalesce-tune: no GPU here: judging against the H200's limits (sm_90)\n");
  }
  target.max_workspace_bytes = max_workspace_bytes;
  std::vector<SpaceRow> rows;
  for (const Problem& p : problems) {
    for (const Family* family : families()) {
      if (family_option != "all" && family->name() != family_option) continue;
      const std::string name(family->name());
      if (Verdict v = tuner::refused(*family, p, target); !v.ok()) {
        rows.push_back({&p, name, "", "refused", std::nullopt, violation_name(v.violation), v.why});
        if (format == "text")
          std::printf("# %dx%dx%d %s %s %s: refused (%s): %s\n", p.m, p.n, p.k, std::string(to_string(p.dtype)).c_str(),
                      std::string(to_string(p.epilogue)).c_str(), name.c_str(), violation_name(v.violation), v.why);
        continue;
      }
      tuner::Space space = tuner::enumerate(*family, p, target);
      if (format == "text") {
        std::printf("# %dx%dx%d %s %s %s: %zu candidates, %zu legal, %zu pruned; %zu list combinations are not %s configs\n",
                    p.m, p.n, p.k, std::string(to_string(p.dtype)).c_str(), std::string(to_string(p.epilogue)).c_str(),
                    name.c_str(), space.candidates.size(), space.legal(), space.pruned(), space.non_configs.size(),
                    name.c_str());
        if (space.unsplittable)
          std::printf("# split-K not listed for %zu legal configs: their unsplit grid already fills a wave of the %d SMs\n",
                      space.unsplittable, target.sm_count);
        std::printf("# name  verdict  predicted_registers  smem_bytes  blocks_per_sm  [reason]\n");
      }
      for (const tuner::Candidate& c : space.candidates) {
        rows.push_back({&p, name, c.name, c.pruned() ? "pruned" : "legal", c.predicted,
                        c.pruned() ? violation_name(c.verdict.violation) : "", c.pruned() ? c.verdict.why : ""});
        if (format != "text") continue;
        std::printf("%s  %s  %d  %d  %d", c.name.c_str(), c.pruned() ? "pruned" : "legal", c.predicted.registers,
                    c.predicted.smem_bytes, c.predicted.blocks_per_sm);
        if (c.pruned()) std::printf("  %s: %s", violation_name(c.verdict.violation), c.verdict.why);
        std::printf("\n");
      }
      if (all)
        for (const tuner::NonConfig& n : space.non_configs) {
          const std::string config = config_name(n.config, p.dtype, p.epilogue);
          rows.push_back({&p, name, config, "not_a_config", std::nullopt, violation_name(n.verdict.violation),
                          n.verdict.why});
          if (format == "text")
            std::printf("%s  not_a_config  %s: %s\n", config.c_str(), violation_name(n.verdict.violation),
                        n.verdict.why);
        }
    }
  }
  if (format == "csv") {
    std::printf("m,n,k,dtype,epilogue,family,config,verdict,predicted_registers,smem_bytes,blocks_per_sm,reason,message\n");
    for (const SpaceRow& r : rows) {
      std::printf("%d,%d,%d,%s,%s,%s,%s,%s,", r.problem->m, r.problem->n, r.problem->k,
                  std::string(to_string(r.problem->dtype)).c_str(), std::string(to_string(r.problem->epilogue)).c_str(),
                  r.family.c_str(), r.config.c_str(), r.verdict.c_str());
      if (r.predicted) std::printf("%d,%d,%d,", r.predicted->registers, r.predicted->smem_bytes, r.predicted->blocks_per_sm);
      else std::printf(",,,");
      std::printf("%s,%s\n", r.reason.c_str(), csv_field(r.message).c_str());
    }
  } else if (format == "json") {
    nlohmann::ordered_json j;
    j["format"] = "coalesce-tune/space";
    j["format_version"] = 1;
    j["tool"] = std::string("coalesce-tune ") + COALESCE_VERSION;
    j["tool_git_revision"] = COALESCE_GIT_REVISION;
    j["judged_by"] = judged_by;
    j["rows"] = nlohmann::ordered_json::array();
    for (const SpaceRow& r : rows) {
      nlohmann::ordered_json row = {{"m", r.problem->m}, {"n", r.problem->n}, {"k", r.problem->k},
                                    {"dtype", to_string(r.problem->dtype)}, {"epilogue", to_string(r.problem->epilogue)},
                                    {"family", r.family}, {"config", r.config}, {"verdict", r.verdict}};
      row["predicted_registers"] = r.predicted ? nlohmann::ordered_json(r.predicted->registers) : nullptr;
      row["smem_bytes"] = r.predicted ? nlohmann::ordered_json(r.predicted->smem_bytes) : nullptr;
      row["blocks_per_sm"] = r.predicted ? nlohmann::ordered_json(r.predicted->blocks_per_sm) : nullptr;
      row["reason"] = r.reason.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.reason);
      row["message"] = r.message.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.message);
      j["rows"].push_back(std::move(row));
    }
    std::printf("%s\n", j.dump(1).c_str());
  }
  return 0;
}

// The sweep's kernel cache, checked before any work: created when missing (as the sweep would),
// refused in one sentence naming the flag when it is not a directory the sweep can write.
void check_cache_dir(const std::string& given) {
  const std::filesystem::path dir =
      given.empty() ? tuner::default_cache_dir().value_or(std::filesystem::path()) : std::filesystem::path(given);
  const std::string what = given.empty() ? "the default kernel cache " + dir.string() + " (pass --cache-dir)"
                                          : "--cache-dir " + given;
  if (dir.empty()) throw UsageError("no kernel cache directory: set XDG_CACHE_HOME or HOME, or pass --cache-dir");
  std::error_code ec;
  const bool exists = std::filesystem::exists(dir, ec);
  if (exists && !std::filesystem::is_directory(dir, ec)) throw tuner::CacheDirError(what + ": not a directory");
  if (!exists && !std::filesystem::create_directories(dir, ec))
    throw tuner::CacheDirError(what + ": cannot create it (" + ec.message() + ")");
  if (access(dir.c_str(), W_OK | X_OK) != 0)
    throw tuner::CacheDirError(what + ": not writable (" + std::strerror(errno) + ")");
}

// `cache stats|verify|clear`: the kernel cache at --cache-dir, else the sweep's default.
int run_cache_verb(const std::string& verb, const std::string& cache_dir) {
  std::filesystem::path dir = cache_dir;
  if (dir.empty()) dir = tuner::default_cache_dir().value_or(std::filesystem::path());
  if (dir.empty()) throw UsageError("no kernel cache directory: set XDG_CACHE_HOME or HOME, or pass --cache-dir");
  const tuner::KernelCache cache(dir);
  if (verb == "stats") {
    const tuner::KernelCache::Stats s = cache.stats();
    std::printf("kernel cache  %s\n", dir.c_str());
    std::printf("entries       %zu: %zu ok, %zu failed (alone too), %zu unreadable or of another format\n",
                s.entries, s.ok, s.failed, s.unreadable);
    std::printf("retried       %zu entries needed a second compile, run alone\n", s.retried);
    std::printf("size          %.1f MiB (%ju bytes)\n", static_cast<double>(s.bytes) / (1 << 20), s.bytes);
    return 0;
  }
  if (verb == "verify") {
    const tuner::KernelCache::Verified v = cache.verify();
    std::printf("kernel cache %s: %zu entries checked, %zu kept, %zu dropped, %zu stray files removed\n",
                dir.c_str(), v.checked, v.kept, v.dropped.size(), v.stray_removed);
    for (const std::string& d : v.dropped) std::printf("dropped %s\n", d.c_str());
    return 0;
  }
  const std::size_t removed = cache.clear();
  std::printf("kernel cache %s: %zu entries removed\n", dir.c_str(), removed);
  return 0;
}

// --peers, --peers-modes and --peers-script, checked; the script found beside this program
// (build/bin or dist/bin, two levels below the tree's scripts/) unless given.
void configure_peers(tuner::SweepOptions& so, const std::string& modes, const std::string& script) {
  if (!so.peers.enabled) {
    if (!modes.empty()) throw UsageError("--peers-modes chooses the peers of --peers; give that too");
    if (!script.empty()) throw UsageError("--peers-script names the script of --peers; give that too");
    return;
  }
  if (so.dry_run) throw UsageError("--peers times the peers on the GPU; a --dry-run measures nothing");
  if (so.timing.l2_flush != L2FlushMode::write)
    throw UsageError("--peers: the peers flush L2 by writing (the default --l2-flush write), not by reading");
  const std::vector<std::string>& known = tuner::peer_modes();
  std::string list;
  for (const std::string& m : known) list += (list.empty() ? "" : ", ") + m;
  if (!modes.empty() && modes != "all") {
    std::string_view rest = modes;
    while (true) {
      const std::size_t comma = rest.find(',');
      const std::string mode(rest.substr(0, comma));
      if (std::find(known.begin(), known.end(), mode) == known.end())
        throw UsageError("--peers-modes '" + modes + "': '" + mode + "' is not a peer (" + list + ", or all)");
      if (std::find(so.peers.modes.begin(), so.peers.modes.end(), mode) == so.peers.modes.end())
        so.peers.modes.push_back(mode);
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  std::error_code ec;
  if (!script.empty()) {
    if (!std::filesystem::is_regular_file(script, ec))
      throw UsageError("--peers-script '" + script + "' is not a file");
    so.peers.script = std::filesystem::absolute(script);
    return;
  }
  const std::filesystem::path checkout = tuner::program_checkout();
  if (auto found = tuner::find_peers_script(checkout)) {
    so.peers.script = *found;
    return;
  }
  throw UsageError("--peers: no scripts/torch_peers.py in the checkout of this program (" + checkout.string() +
                   "); pass --peers-script PATH");
}

// What a learning strategy learns from when no --history is given, beside --db: the project's
// published database (results/coalesce.db, --db's default path) and its stored-sweeps file
// (results/history.tsv, `coalesce-tune history`), each under the working directory, else under
// the checkout this program was built in (tuner::program_checkout()). Those found.
std::vector<std::filesystem::path> published_history() {
  std::error_code ec;
  const std::filesystem::path checkout = tuner::program_checkout();
  std::vector<std::filesystem::path> found;
  for (const std::filesystem::path relative : {tuner::SweepOptions{}.db_path, std::filesystem::path("results/history.tsv")}) {
    if (std::filesystem::is_regular_file(relative, ec)) found.push_back(std::filesystem::absolute(relative, ec));
    else if (!checkout.empty() && std::filesystem::is_regular_file(checkout / relative, ec)) found.push_back(checkout / relative);
  }
  return found;
}

// The strategies `sweep --strategy` takes: those that search (steady-top is --steady-top's).
std::string search_strategy_names() {
  std::string names;
  for (const tuner::StrategyInfo* s : tuner::strategies())
    if (s->searches) names += (names.empty() ? "" : ", ") + std::string(s->name);
  return names;
}

// "random or model": the search strategies that measure part of the space.
std::string budget_strategy_names() {
  std::vector<std::string> names;
  for (const tuner::StrategyInfo* s : tuner::strategies())
    if (s->searches && s->takes_budget) names.emplace_back(s->name);
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

double parse_time_budget(const std::string& text) {
  if (auto seconds = tuner::parse_time_budget(text)) return *seconds;
  throw UsageError("--time-budget '" + text +
                   "' is not a duration: give seconds (60 or 60s), minutes (5m) or hours (1h), more than 0 and at most a week");
}

std::string joined(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) s += (i ? " " : "") + std::string(argv[i]);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"coalesce-tune: tune the fused GEMM+bias+activation kernel for the GPU in hand"};
  app.set_version_flag("--version", std::string("coalesce-tune ") + COALESCE_VERSION + " (git " +
                                        COALESCE_GIT_REVISION + ")");
  app.require_subcommand(1);
  app.footer("Exit status: 0 done, 1 the work failed, 2 bad usage or a bad feed line, 3 no CUDA device, 130 "
             "interrupted (docs/working.md).");

  int env_device = 0;
  auto* env = app.add_subcommand("env", "Print the device, its limits and the environment");
  env->add_option("--device", env_device, "CUDA device ordinal")->capture_default_str();

  ProblemOptions space_problem;
  int space_device = 0;
  bool space_all = false;
  std::string space_format = "text";
  auto* space = app.add_subcommand("space", "List the search space, each pruned config with its reason");
  space_problem.add_to(space);
  space->add_option("--device", space_device, "CUDA device whose limits judge the configs")->capture_default_str();
  space->add_flag("--all", space_all, "also list the list combinations that are not configs of their family");
  space->add_option("--format", space_format, "text (a header per problem and family), csv or json")
      ->check(CLI::IsMember({"text", "csv", "json"}))
      ->capture_default_str();
  int space_max_workspace_mib = 1024;
  space->add_option("--max-workspace", space_max_workspace_mib,
                    "MiB of workspace (split-K's partial sums) a config may ask for; larger ones are pruned")
      ->check(CLI::Range(0, 1 << 20))
      ->capture_default_str();

  ProblemOptions sweep_problem;
  tuner::SweepOptions so;
  std::string strategy(tuner::default_strategy());
  std::optional<std::string> time_budget_text;
  std::vector<std::string> history_dbs;
  std::string db_path = so.db_path.string(), cache_dir;
  std::optional<int> budget;
  std::optional<long long> jobs;
  std::string seed_text;
  auto* sweep = app.add_subcommand("sweep", "Compile, check and time every config; store each row");
  sweep_problem.add_to(sweep);
  sweep->add_option("--strategy", strategy, "the search strategy (" + search_strategy_names() + "; docs/tuner.md, \"Strategies\")")
      ->capture_default_str();
  sweep->add_option("--budget", budget,
                    "configs to measure per problem and family (random: required; model: default 5% of the legal configs, at least 16)");
  sweep->add_option("--seed", seed_text, "the strategy's seed (random's draw, model's exploration), 0 to 2^64 - 1 (default 1)");
  sweep->add_option("--time-budget", time_budget_text,
                    "stop measuring once this much time is spent (e.g. 60s, 90, 5m; shared evenly among the problems and "
                    "families) and say how close the strategy expects the best to be");
  sweep->add_option("--history", history_dbs,
                    "database or stored-sweeps file (coalesce-tune history) a learning strategy (model) learns from, read "
                    "only (repeatable; default: --db, the published results/coalesce.db and results/history.tsv)");
  sweep->add_option("--config", so.configs, "only this config (its name; repeatable): re-measure a known config");
  sweep->add_flag("--dry-run", so.dry_run, "enumerate and compile only: no GPU, no database");
  std::optional<int> sweep_device;
  std::string devices_option, shard_option;
  sweep->add_option("--device", sweep_device, "CUDA device ordinal (default 0)");
  sweep->add_option("--devices", devices_option,
                    "several GPUs of this host: all, or ordinals (0,1,3); problem i is measured on the (i mod D)-th device listed");
  sweep->add_option("--shard", shard_option,
                    "I/N: only problem i with i mod N = I (default: from SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT when set)");
  sweep->add_option("--db", db_path, "results database")->capture_default_str();
  sweep->add_option("--cache-dir", cache_dir, "kernel cache (default $XDG_CACHE_HOME/coalesce/kernels)");
  sweep->add_option("-j,--jobs", jobs, "compile threads, 1 to " + std::to_string(kMaxJobs) + " (default: every core)");
  sweep->add_option("--timeout", so.timeout_s,
                    "seconds one measurement may take before its worker is killed (more than 0, at most a day)")
      ->capture_default_str();
  std::string l2_flush = "write";
  sweep->add_option("--l2-flush", l2_flush,
                    "how each sample's L2 flush evicts: write (overwrite a buffer of twice the L2, nvbench's way; it "
                    "leaves L2 dirty) or read (read it through L2, leaving L2 clean)")
      ->check(CLI::IsMember({"write", "read"}))
      ->capture_default_str();
  sweep->add_option("--sample-gap-ms", so.timing.sample_gap_ms,
                    "milliseconds the GPU rests after each timed sample (0: samples back to back, the kernel timed "
                    "as a loaded GPU runs it)")
      ->check(CLI::Range(0.0, 1000.0))
      ->capture_default_str();
  sweep->add_option("--min-samples", so.timing.min_samples, "timed samples per kernel at least")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  sweep->add_option("--max-samples", so.timing.max_samples,
                    "timed samples per kernel at most (it stops earlier once the mean is known to 0.5% or its 2 s budget is spent)")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  sweep->add_option("--steady-top", so.steady_top,
                    "then time each problem's and family's N fastest configs again in the steady state, with the "
                    "baselines, as a run the ranking prefers (docs/tuner.md, \"The steady state\")")
      ->check(CLI::Range(1, 1000));
  std::optional<int> steady_samples;
  sweep->add_option("--steady-samples", steady_samples,
                    "--steady-top: samples of each method, back to back (default 3000; at least " +
                        std::to_string(kSteadyStateMinSamples) + ")");
  so.timing.spin_cycles = kDefaultSpinCycles;
  sweep->add_option("--spin-cycles", so.timing.spin_cycles,
                    "SM clock cycles of a GPU spin before each sample, of every method (0: none; the window then opens "
                    "right behind the L2 flush). The shared timing protocol: docs/tuner.md")
      ->check(CLI::Range(0LL, 1000000000LL))
      ->capture_default_str();
  sweep->add_flag("--peers", so.peers.enabled,
                  "after each problem, time PyTorch eager, torch.compile (default and max-autotune) and Triton on the "
                  "same GPU by the same protocol (scripts/torch_peers.py; skipped, said in one line, when python3 "
                  "cannot import torch)");
  std::string peers_modes, peers_script;
  sweep->add_option("--peers-modes", peers_modes,
                    "--peers: which peers, comma-separated: torch_eager, torch_compile, torch_compile_max_autotune, "
                    "triton, or all (default all; max-autotune can take minutes per shape)");
  sweep->add_option("--peers-script", peers_script,
                    "--peers: the script to run (default scripts/torch_peers.py of this build's or dist's tree)");
  int sweep_max_workspace_mib = 1024;
  sweep->add_option("--max-workspace", sweep_max_workspace_mib,
                    "MiB of workspace (split-K's partial sums) a config may ask for; larger ones are pruned")
      ->check(CLI::Range(0, 1 << 20))
      ->capture_default_str();

  std::string cache_dir_of_verb;
  auto* cache = app.add_subcommand("cache", "Inspect or empty the kernel cache the sweeps compile into");
  cache->add_option("--cache-dir", cache_dir_of_verb, "kernel cache (default $XDG_CACHE_HOME/coalesce/kernels)");
  cache->fallthrough();  // --cache-dir before or after the verb
  cache->require_subcommand(1);
  cache->add_subcommand("stats", "Count the entries (ok, failed, retried) and their bytes");
  cache->add_subcommand("verify", "Re-check every entry (metadata, cubin, its figures); drop the broken ones");
  cache->add_subcommand("clear", "Remove every entry (only the cache's own files) and say how many");
  std::string record_db = "results/coalesce.db";
  auto* record = app.add_subcommand(
      "record", "Store measurements taken outside the tools (peers): JSON lines on stdin, one answer per line on stdout");
  record->add_option("--db", record_db, "results database")->capture_default_str();
  std::string profile_db = "results/coalesce.db", profile_shape, profile_dtype, profile_epilogue = "bias_gelu";
  tuner::ProfileTarget profile;
  auto* record_profile = app.add_subcommand(
      "record-profile",
      "Store what a profiler saw of one kernel (a JSON object on stdin: scripts/ncu_summary.py --db) beside the "
      "device, problem and config it explains");
  record_profile->add_option("--db", profile_db, "results database (it must exist)")->capture_default_str();
  record_profile->add_option("--device", profile.device, "the profiled GPU's UUID (GPU-...), as the database holds it")
      ->required();
  record_profile->add_option("--shape", profile_shape, "the problem: M=N=K or MxNxK")->required();
  record_profile->add_option("--dtype", profile_dtype, "the problem's dtype (" + dtype_names() + ")")->required();
  record_profile->add_option("--epilogue", profile_epilogue, "the problem's epilogue")->capture_default_str();
  record_profile->add_option("--method", profile.method,
                             "the method whose kernel was profiled (coalesce, cublas_gemm, ...)")
      ->required();
  record_profile->add_option("--config", profile.config,
                             "the config's name (tuned and peer methods; none for a library kernel)");
  record_profile->add_option("--source-hash", profile.source_hash,
                             "the start of the config's source hash, where its name is stored with several");

  tuner::ReplayOptions replay_options;
  std::vector<std::string> replay_dbs;
  std::string replay_seeds = "20";
  auto* replay = app.add_subcommand(
      "replay", "Run a strategy against the database's exhaustive sweeps, offline: evaluations to reach within 1%, "
                "2% and 5% of each sweep's best (the model never sees the sweep it replays)");
  replay->add_option("--strategy", replay_options.strategy, "the strategy to replay (" + tuner::strategy_names() + ")")
      ->required();
  replay->add_option("--db", replay_dbs, "database to read (repeatable; default results/coalesce.db); read only");
  replay->add_option("--seeds", replay_seeds, "seeds per sweep, 1 to 1000 (default 20)");
  replay->add_option("--holdout", replay_options.holdout,
                     "what the model does not see: sweep (the replayed run x problem x family), problem (every "
                     "sweep of that problem and family) or shape (every sweep of that M, N, K and family)")
      ->capture_default_str();
  replay->add_option("--family", replay_options.family, "only this family's sweeps");

  std::vector<std::string> history_in;
  std::string history_out;
  auto* history = app.add_subcommand(
      "history", "Write the stored sweeps the model-guided strategy learns from (those with at least " +
                     std::to_string(tuner::kMinTrainingConfigs) +
                     " configs measured ok) to a text file that a sweep's --history reads like a database");
  history->add_option("--db", history_in, "database to read (repeatable); read only")->required();
  history->add_option("--out", history_out, "the file to write (whole or not at all), e.g. results/history.tsv")
      ->required();

  // The measuring worker the sweep starts (worker.hpp); not for people.
  auto* worker = app.add_subcommand("worker", "")->group("");

  // The first word is the command: one that is not gets named, with the list.
  if (argc > 1 && argv[1][0] == '-') {
    const std::string_view first = argv[1];
    if (first != "-h" && first != "--help" && first != "--version") {
      std::fprintf(stderr, "coalesce-tune: The following argument was not expected: %s (see --help)\n", argv[1]);
      return 2;
    }
  } else if (argc > 1) {
    std::string names;
    bool known = false;
    const std::function<bool(const CLI::App*)> listed = [](const CLI::App* s) { return !s->get_group().empty(); };
    for (const CLI::App* sub : std::as_const(app).get_subcommands(listed)) {
      names += (names.empty() ? "" : ", ") + sub->get_name();
      known = known || sub->get_name() == argv[1];
    }
    if (!known && std::string_view(argv[1]) != "worker") {
      std::fprintf(stderr, "coalesce-tune: '%s' is not a command (%s)\n", argv[1], names.c_str());
      return 2;
    }
  }
  // `cache` without its verb, or with one it lacks: name the verbs (CLI11 would only say that
  // "A subcommand is required").
  if (argc > 1 && std::string_view(argv[1]) == "cache") {
    std::optional<std::string_view> verb;
    bool help = false;
    for (int i = 2; i < argc && !verb; ++i) {
      const std::string_view a = argv[i];
      if (a == "--cache-dir") ++i;  // its value
      else if (a == "-h" || a == "--help") help = true;
      else if (a.rfind('-', 0) != 0) verb = a;
    }
    const std::string verbs = "stats, verify, clear";
    if (!verb && !help) {
      std::fprintf(stderr, "coalesce-tune: cache needs a command (%s)\n", verbs.c_str());
      return 2;
    }
    if (verb && *verb != "stats" && *verb != "verify" && *verb != "clear") {
      std::fprintf(stderr, "coalesce-tune: '%s' is not a cache command (%s)\n", std::string(*verb).c_str(), verbs.c_str());
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::fprintf(stderr, "coalesce-tune: %s (see --help)\n", e.what());
    return 2;
  }

  try {
    if (*worker) return tuner::run_worker();
    if (*env) return print_env(env_device);
    if (*space)
      return print_space(space_problem.problems(), space_problem.family, space_device, space_all, space_format,
                         static_cast<long long>(space_max_workspace_mib) << 20);
    if (*cache) return run_cache_verb(cache->get_subcommands().front()->get_name(), cache_dir_of_verb);
    if (*sweep) {
      so.problems = sweep_problem.problems();
      so.families = {sweep_problem.family};
      // --config names what to measure: without --strategy it measures every config it names.
      if (!so.configs.empty() && sweep->count("--strategy") == 0) strategy = "exhaustive";
      const tuner::StrategyInfo* chosen = tuner::find_strategy(strategy);
      if (!chosen || !chosen->searches)
        throw UsageError("--strategy '" + strategy + "' is not a strategy (" + search_strategy_names() + ")");
      so.strategy = strategy;
      if (budget && !chosen->takes_budget)
        throw UsageError("--budget needs --strategy " + budget_strategy_names() + " (" + strategy + " measures every legal config)");
      if (strategy == "random" && !budget)
        throw UsageError("--strategy random needs --budget N, the configs to measure per problem");
      if (budget && *budget < 1) throw UsageError("--budget must be at least 1");
      if (budget) so.budget = *budget;
      if (time_budget_text) so.time_budget_s = parse_time_budget(*time_budget_text);
      if (!history_dbs.empty() && !chosen->reads_history)
        throw UsageError("--history is what a learning strategy learns from; --strategy " + strategy + " learns nothing");
      for (const std::string& h : history_dbs) {
        if (h.empty()) throw UsageError("--history must name a file");
        so.history.push_back(h);
      }
      if (chosen->reads_history && history_dbs.empty()) so.published_history = published_history();
      // inf and nan pass a "> 0" test; a worker's deadline is then no time at all (issue 45).
      if (!(so.timeout_s > 0 && so.timeout_s <= kMaxTimeoutSeconds))
        throw UsageError("--timeout " + sweep->get_option("--timeout")->as<std::string>() +
                         ": give the seconds one measurement may take, more than 0 and at most 86400 (a day)");
      if (!seed_text.empty()) {
        const std::optional<unsigned long long> seed = parse_seed(seed_text);
        if (!seed) throw UsageError("--seed '" + seed_text + "' is not " + kSeedRange);
        so.seed = *seed;
      }
      if (jobs && (*jobs < 1 || *jobs > kMaxJobs))
        throw UsageError("-j " + std::to_string(*jobs) + ": give 1 to " + std::to_string(kMaxJobs) + " compile threads");
      so.timing.l2_flush = *parse_l2_flush_mode(l2_flush);
      if (so.timing.max_samples < so.timing.min_samples)
        throw UsageError("--max-samples (" + std::to_string(so.timing.max_samples) + ") is below --min-samples (" +
                         std::to_string(so.timing.min_samples) + ")");
      if (steady_samples) {
        if (so.steady_top == 0) throw UsageError("--steady-samples sets the samples of --steady-top N; give that too");
        if (*steady_samples < kSteadyStateMinSamples)
          throw UsageError("--steady-samples " + std::to_string(*steady_samples) + " is below " +
                           std::to_string(kSteadyStateMinSamples) + ", the fewest samples the steady state is timed with");
        so.steady_samples = *steady_samples;
      }
      if (so.steady_top > 0 && so.dry_run)
        throw UsageError("--steady-top times configs again on the GPU; a --dry-run measures nothing");
      if (so.steady_top > 0 && steady_state(so.timing))
        throw UsageError("--min-samples " + std::to_string(so.timing.min_samples) +
                         " already times this sweep in the steady state; --steady-top re-times a sweep of the default sampling");
      for (const std::string& name : so.configs) {
        auto named = parse_config_name(name);
        if (!named) throw UsageError("--config '" + name + "' is not the name of a config of any family (" + family_names() + ")");
        bool matches = false;
        for (const Problem& p : so.problems) matches = matches || (p.dtype == named->dtype && p.epilogue == named->epilogue);
        if (!matches)
          throw UsageError("--config " + name + " is for " + std::string(to_string(named->dtype)) + " " +
                           std::string(to_string(named->epilogue)) + ", which no --shape of this sweep computes");
        if (so.strategy != "exhaustive")
          throw UsageError("--config names the configs to measure: it takes no --strategy " + so.strategy);
      }
      if (db_path.empty()) throw UsageError("--db must name a file");
      std::vector<files::Input> read;
      for (const std::string& file : sweep_problem.shapes_files) read.push_back({file, "--shapes-file", false});
      files::refuse_output_onto_inputs("--db", db_path, read);
      configure_peers(so, peers_modes, peers_script);
      if (sweep_device) so.device = *sweep_device;
      if (!devices_option.empty()) {
        if (sweep_device) throw UsageError("--device and --devices: give one of them");
        if (so.dry_run) throw UsageError("--devices measures on several GPUs; a --dry-run measures nothing");
        if (!so.configs.empty()) throw UsageError("--config re-measures named configs on one GPU: it takes no --devices");
        so.devices = parse_devices(devices_option);
      }
      if (so.dry_run && sweep->count("--db"))
        std::fprintf(stderr, "coalesce-tune: --dry-run stores nothing: --db %s is ignored (not opened, not created)\n",
                     db_path.c_str());
      std::tie(so.shard, so.shards) = shard_option.empty() ? shard_from_slurm() : parse_shard(shard_option);
      so.db_path = db_path;
      so.max_workspace_bytes = static_cast<long long>(sweep_max_workspace_mib) << 20;
      check_cache_dir(cache_dir);
      so.cache_dir = cache_dir;
      so.jobs = jobs ? static_cast<unsigned>(*jobs) : 0;
      so.command_line = joined(argc, argv);
      return tuner::run_sweep(so, std::cout);
    }
    if (*replay) {
      if (!tuner::find_strategy(replay_options.strategy))
        throw UsageError("--strategy '" + replay_options.strategy + "' is not a strategy (" + tuner::strategy_names() + ")");
      if (replay_options.holdout != "sweep" && replay_options.holdout != "problem" && replay_options.holdout != "shape")
        throw UsageError("--holdout '" + replay_options.holdout + "' is not sweep, problem or shape");
      if (!tuner::find_strategy(replay_options.strategy)->searches)
        throw UsageError("--strategy " + replay_options.strategy + " re-times configs already measured: it has no search to replay");
      if (!replay_options.family.empty() && !find_family(replay_options.family))
        throw UsageError("--family '" + replay_options.family + "' is not a kernel family (" + family_names() + ")");
      const std::optional<unsigned long long> seeds = parse_seed(replay_seeds);
      if (!seeds || *seeds < 1 || *seeds > 1000)
        throw UsageError("--seeds '" + replay_seeds + "' is not a whole number from 1 to 1000");
      replay_options.seeds = static_cast<int>(*seeds);
      if (replay_dbs.empty()) replay_dbs = {"results/coalesce.db"};
      for (const std::string& d : replay_dbs) {
        if (d.empty()) throw UsageError("--db must name a file");
        replay_options.dbs.push_back(d);
      }
      const int rc = tuner::run_replay(replay_options, std::cout);
      if (rc == 1)
        std::fprintf(stderr, "coalesce-tune: no exhaustive sweep in the databases given (docs/tuner.md, \"Exhaustive sweeps\")\n");
      return rc;
    }
    if (*history) {
      std::vector<files::Input> read;
      for (const std::string& d : history_in) {
        if (d.empty()) throw UsageError("--db must name a file");
        read.push_back({d, "the database (--db)", true});
      }
      if (history_out.empty()) throw UsageError("--out must name a file");
      files::refuse_output_onto_inputs("--out", history_out, read);
      std::vector<tuner::StoredSweep> sweeps;
      for (const std::string& d : history_in) {
        std::vector<tuner::StoredSweep> more = tuner::stored_sweeps(db::Database::open(d, db::Mode::read_only));
        sweeps.insert(sweeps.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
      }
      files::PendingFile out(history_out);
      const std::size_t written = tuner::write_sweeps_file(sweeps, out.stream());
      if (written == 0)
        throw std::runtime_error("no stored sweep with " + std::to_string(tuner::kMinTrainingConfigs) +
                                 " or more configs measured ok in the databases given: " + history_out + " not written");
      out.commit();
      std::printf("history: %zu of %zu stored sweeps written to %s\n", written, sweeps.size(), history_out.c_str());
      return 0;
    }
    if (*record) {
      if (record_db.empty()) throw UsageError("--db must name a file");
      return tuner::run_record(record_db, std::cin, std::cout);
    }
    if (*record_profile) {
      if (profile_db.empty()) throw UsageError("--db must name a file");
      profile.problem =
          shape_option(profile_shape, parse_dtype_option(profile_dtype), parse_epilogue_option(profile_epilogue));
      return tuner::record_profile(profile_db, profile, std::cin, std::cout);
    }
  } catch (const UsageError& e) {
    std::fprintf(stderr, "coalesce-tune: %s\n", e.what());
    return 2;
  } catch (const files::OutputIsInput& e) {
    std::fprintf(stderr, "coalesce-tune: %s\n", e.what());
    return 2;
  } catch (const tuner::FeedError& e) {
    std::fprintf(stderr, "coalesce-tune: %s\n", e.what());
    return 2;
  } catch (const tuner::ProfileInputError& e) {
    std::fprintf(stderr, "coalesce-tune: %s\n", e.what());
    return 2;
  } catch (const tuner::ProfileRefused& e) {
    std::fprintf(stderr, "coalesce-tune: %s\n", e.what());
    return 1;
  } catch (const NoDeviceError& e) {
    std::fprintf(stderr, "coalesce-tune: %s\n", e.what());
    return 3;
  } catch (const db::Error& e) {
    std::fprintf(stderr, "coalesce-tune: %s\n", e.what());
    return 1;
  } catch (const tuner::CacheDirError& e) {
    std::fprintf(stderr, "coalesce-tune: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "coalesce-tune: %s\n", e.what());
    return 1;
  }
  return 0;
}
