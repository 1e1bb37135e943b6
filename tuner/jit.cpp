// NVRTC compilation: the attempts, the serialized retry, figures from the cubin, and the cache.
#include "jit.hpp"

#include <nvrtc.h>

#include <chrono>
#include <future>
#include <map>
#include <mutex>
#include <cstdlib>
#include <stdexcept>

#include "sha256.hpp"

namespace coalesce::tuner {

namespace fs = std::filesystem;

namespace {

// Part of every cache key, so that a change in how a key's entry is made misses: 2 since the
// figures come from the cubin and failures are retried alone before they are cached.
constexpr int kKeyVersion = 2;

// The unsigned integer that ends right before `suffix` in `line` ("256 bytes stack frame"),
// or nullopt when `suffix` is absent or not preceded by a number.
std::optional<int> number_before(std::string_view line, std::string_view suffix) {
  std::size_t at = line.find(suffix);
  if (at == std::string_view::npos) return std::nullopt;
  std::size_t end = at;
  while (end > 0 && line[end - 1] == ' ') --end;
  std::size_t begin = end;
  while (begin > 0 && line[begin - 1] >= '0' && line[begin - 1] <= '9') --begin;
  if (begin == end) return std::nullopt;
  return std::stoi(std::string(line.substr(begin, end - begin)));
}

std::optional<int> number_after(std::string_view line, std::string_view prefix) {
  std::size_t at = line.find(prefix);
  if (at == std::string_view::npos) return std::nullopt;
  std::size_t begin = at + prefix.size();
  std::size_t end = begin;
  while (end < line.size() && line[end] >= '0' && line[end] <= '9') ++end;
  if (begin == end) return std::nullopt;
  return std::stoi(std::string(line.substr(begin, end - begin)));
}

// The digest of every embedded header, computed once: part of each source hash.
const std::string& headers_digest() {
  static const std::string digest = [] {
    Sha256 h;
    for (const KernelHeader& k : kernel_headers()) h.field(k.name).field(k.text);
    return h.hex();
  }();
  return digest;
}

// Every compile of the process passes this gate: shared for a first attempt, exclusive for a
// retry, whichever Jit runs it (NVRTC's state is per process).
CompileGate& process_gate() {
  static CompileGate gate;
  return gate;
}

}  // namespace

std::optional<PtxasReport> parse_ptxas_report(std::string_view log, std::string_view entry) {
  const std::string start = "Compiling entry function '" + std::string(entry) + "'";
  PtxasReport r;
  bool in_entry = false, have_frame = false, have_used = false;
  std::size_t pos = 0;
  while (pos <= log.size()) {
    std::size_t nl = log.find('\n', pos);
    std::string_view line = log.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? log.size() + 1 : nl + 1;
    if (line.find("Compiling entry function '") != std::string_view::npos) {
      if (in_entry) break;  // the next entry's report begins
      in_entry = line.find(start) != std::string_view::npos;
      continue;
    }
    if (!in_entry) continue;
    if (line.find("bytes stack frame") != std::string_view::npos) {
      auto frame = number_before(line, "bytes stack frame");
      auto stores = number_before(line, "bytes spill stores");
      auto loads = number_before(line, "bytes spill loads");
      if (!frame || !stores || !loads) return std::nullopt;
      r.stack_bytes = *frame;
      r.spill_store_bytes = *stores;
      r.spill_load_bytes = *loads;
      have_frame = true;
    } else if (auto regs = number_after(line, "Used ")) {
      if (line.find(" registers") == std::string_view::npos) return std::nullopt;
      r.registers = *regs;
      r.smem_bytes = number_before(line, "bytes smem").value_or(0);
      have_used = true;
    }
  }
  if (!have_frame || !have_used) return std::nullopt;
  return r;
}

std::string nvrtc_version() {
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  return std::to_string(major) + "." + std::to_string(minor);
}

std::vector<std::string> nvrtc_options(const std::string& arch) {
  return {"--gpu-architecture=" + arch, "-std=c++17", "-default-device", "-Xptxas=-v"};
}

std::optional<fs::path> default_cache_dir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return fs::path(xdg) / "coalesce" / "kernels";
  if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "coalesce" / "kernels";
  return std::nullopt;
}

CompileGate::Hold::Hold(CompileGate& gate, bool exclusive) : gate_(gate), exclusive_(exclusive) {
  std::unique_lock lock(gate_.mutex_);
  if (exclusive_) {
    ++gate_.exclusive_waiting_;
    gate_.changed_.wait(lock, [&] { return !gate_.exclusive_ && gate_.shared_ == 0; });
    --gate_.exclusive_waiting_;
    gate_.exclusive_ = true;
  } else {
    gate_.changed_.wait(lock, [&] { return !gate_.exclusive_ && gate_.exclusive_waiting_ == 0; });
    ++gate_.shared_;
  }
}

CompileGate::Hold::~Hold() {
  {
    std::lock_guard lock(gate_.mutex_);
    if (exclusive_)
      gate_.exclusive_ = false;
    else
      --gate_.shared_;
  }
  gate_.changed_.notify_all();
}

std::optional<int> CompileResult::spill_store_bytes() const {
  if (ptxas) return ptxas->spill_store_bytes;
  if (resources && !resources->uses_local_memory()) return 0;
  return std::nullopt;
}

std::optional<int> CompileResult::spill_load_bytes() const {
  if (ptxas) return ptxas->spill_load_bytes;
  if (resources && !resources->uses_local_memory()) return 0;
  return std::nullopt;
}

Jit::Jit(fs::path cache_dir, std::string arch, JitFaults faults)
    : cache_(std::move(cache_dir)), arch_(std::move(arch)), options_(nvrtc_options(arch_)), faults_(faults) {}

std::string Jit::source_hash(const std::string& source) {
  return Sha256().field(source).field(headers_digest()).hex();
}

std::string Jit::cache_key(const std::string& source) const {
  Sha256 h;
  h.field(std::to_string(kKeyVersion)).field(source_hash(source)).field(arch_).field(nvrtc_version());
  for (const std::string& o : options_) h.field(o);
  return h.hex();
}

// One run of NVRTC over a source: its log, its cubin and the entry's figures, or why not.
struct Jit::Attempt {
  bool ok = false;
  std::string log;
  std::string cubin;
  std::optional<KernelResources> resources;
  double seconds = 0;
  std::string failure;  // one line: what made the attempt unusable
};

Jit::Attempt Jit::attempt(const std::string& symbol, const std::string& source, bool alone) const {
  std::vector<const char*> names, texts;
  for (const KernelHeader& k : kernel_headers()) {
    names.push_back(k.name);
    texts.push_back(k.text);
  }
  std::vector<const char*> opts;
  for (const std::string& o : options_) opts.push_back(o.c_str());

  Attempt a;
  const CompileGate::Hold hold(process_gate(), alone);
  const auto t0 = std::chrono::steady_clock::now();
  nvrtcProgram prog = nullptr;
  if (nvrtcCreateProgram(&prog, source.c_str(), (symbol + ".cu").c_str(), static_cast<int>(names.size()),
                         texts.data(), names.data()) != NVRTC_SUCCESS)
    throw std::runtime_error("NVRTC could not create a program for " + symbol);
  const nvrtcResult rc = nvrtcCompileProgram(prog, static_cast<int>(opts.size()), opts.data());
  a.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::size_t log_size = 0;
  if (nvrtcGetProgramLogSize(prog, &log_size) == NVRTC_SUCCESS && log_size > 0) {
    a.log.assign(log_size, '\0');
    if (nvrtcGetProgramLog(prog, a.log.data()) != NVRTC_SUCCESS) a.log.clear();
  }
  while (!a.log.empty() && a.log.back() == '\0') a.log.pop_back();
  if (faults_.empty_log) a.log.clear();
  if (rc == NVRTC_SUCCESS) {
    std::size_t size = 0;
    if (nvrtcGetCUBINSize(prog, &size) == NVRTC_SUCCESS && size > 0) {
      a.cubin.assign(size, '\0');
      if (nvrtcGetCUBIN(prog, a.cubin.data()) != NVRTC_SUCCESS) a.cubin.clear();
    }
    if (faults_.first_attempt_fails && !alone) a.cubin.resize(a.cubin.size() / 2);
  }
  nvrtcDestroyProgram(&prog);

  if (rc != NVRTC_SUCCESS) {
    a.failure = nvrtcGetErrorString(rc);
  } else if (a.cubin.empty()) {
    a.failure = "NVRTC returned no cubin";
  } else {
    try {
      a.resources = read_kernel_resources(a.cubin, symbol);
      a.ok = true;
    } catch (const CubinError& e) {
      a.failure = e.what();
    }
  }
  return a;
}

namespace {

// The compiles in flight in this process, by cache key. A second request for a key being compiled
// (two devices of one sweep planning the same kernel for their problems) waits for the first and
// shares its result instead of compiling again: one compile per kernel, and one set of figures
// (ptxas has given the same source different register counts in two concurrent compiles).
std::mutex g_inflight_mutex;
std::map<std::string, std::shared_future<CompileResult>> g_inflight;

}  // namespace

CompileResult Jit::compile(const std::string& symbol, const std::string& source) const {
  const std::string key = cache_key(source);
  std::promise<CompileResult> promise;
  {
    std::unique_lock lock(g_inflight_mutex);
    if (auto it = g_inflight.find(key); it != g_inflight.end()) {
      std::shared_future<CompileResult> first = it->second;
      lock.unlock();
      CompileResult shared = first.get();
      shared.cache_hit = true;  // compiled once, by the request that came first
      return shared;
    }
    g_inflight.emplace(key, promise.get_future().share());
  }
  auto done = [&] {
    std::lock_guard lock(g_inflight_mutex);
    g_inflight.erase(key);
  };
  try {
    CompileResult r = compile_once(symbol, source);
    promise.set_value(r);
    done();
    return r;
  } catch (...) {
    promise.set_exception(std::current_exception());
    done();
    throw;
  }
}

CompileResult Jit::compile_once(const std::string& symbol, const std::string& source) const {
  CompileResult r;
  r.source_hash = source_hash(source);
  r.key = cache_key(source);
  auto finish = [&](const CacheEntry& e) {
    r.ok = e.ok;
    r.log = e.log;
    r.compile_seconds = e.compile_seconds;
    r.attempts = e.attempts;
    if (r.ok) r.ptxas = parse_ptxas_report(r.log, symbol);
    return r;
  };
  if (std::optional<CachedKernel> hit = cache_.load(r.key, symbol)) {
    r.cache_hit = true;
    r.cubin_path = hit->cubin_path;
    r.resources = hit->resources;
    return finish(hit->entry);
  }

  Attempt a = attempt(symbol, source, /*alone=*/false);
  CacheEntry e{.symbol = symbol, .ok = a.ok, .log = a.log, .compile_seconds = a.seconds, .attempts = 1,
               .arch = arch_, .nvrtc = nvrtc_version()};
  if (!a.ok) {
    // Under many parallel compiles NVRTC has returned results it does not return alone (issue
    // 13: an empty log on the H200). Whatever failed, the retry alone decides what is cached.
    const std::string first_failure = a.failure;
    a = attempt(symbol, source, /*alone=*/true);
    e.ok = a.ok;
    e.log = a.log;
    e.compile_seconds += a.seconds;
    e.attempts = 2;
    if (!e.log.empty() && e.log.back() != '\n') e.log += '\n';
    e.log += "coalesce: the first attempt, among parallel compiles, failed (" + first_failure +
             "); this is the log of the retry, run alone\n";
  }
  // The reason first: the sweep's row quotes the log's first error line, else its first line.
  if (!a.ok) e.log = a.failure + "\n" + e.log;
  const fs::path cubin_path = cache_.store(r.key, e, a.cubin);
  if (a.ok) {
    r.cubin_path = cubin_path;
    r.resources = a.resources;
  }
  return finish(e);
}

}  // namespace coalesce::tuner
