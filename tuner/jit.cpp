// NVRTC compilation, ptxas report parsing and the on-disk kernel cache.
#include "jit.hpp"

#include <nvrtc.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "sha256.hpp"

namespace coalesce::tuner {

namespace fs = std::filesystem;

namespace {

// Bumped when the layout of a cache entry changes, so old entries are simply misses.
constexpr int kCacheFormat = 1;

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

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return {};
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Writes `bytes` to `path` through a temporary file in the same directory and a rename, which
// POSIX makes atomic: readers see the old entry, no entry, or the whole new one.
void write_atomically(const fs::path& path, std::string_view bytes) {
  fs::create_directories(path.parent_path());
  std::ostringstream tmp_name;
  tmp_name << path.filename().string() << ".tmp." << getpid() << "."
           << std::hash<std::thread::id>{}(std::this_thread::get_id());
  fs::path tmp = path.parent_path() / tmp_name.str();
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) {
      std::error_code ignored;
      fs::remove(tmp, ignored);
      throw std::runtime_error("cannot write the kernel cache entry " + path.string());
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw std::runtime_error("cannot write the kernel cache entry " + path.string());
  }
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

Jit::Jit(fs::path cache_dir, std::string arch)
    : dir_(std::move(cache_dir)), arch_(std::move(arch)), options_(nvrtc_options(arch_)) {}

std::string Jit::source_hash(const std::string& source) {
  return Sha256().field(source).field(headers_digest()).hex();
}

std::string Jit::cache_key(const std::string& source) const {
  Sha256 h;
  h.field(std::to_string(kCacheFormat)).field(source_hash(source)).field(arch_).field(nvrtc_version());
  for (const std::string& o : options_) h.field(o);
  return h.hex();
}

fs::path Jit::entry_path(const std::string& key, const char* ext) const {
  return dir_ / key.substr(0, 2) / (key + ext);
}

CompileResult Jit::compile(const std::string& symbol, const std::string& source) const {
  CompileResult r;
  r.source_hash = source_hash(source);
  r.key = cache_key(source);
  const fs::path meta_path = entry_path(r.key, ".json");
  const fs::path cubin_path = entry_path(r.key, ".cubin");

  // A hit needs the metadata (written last) and, for a successful compile, the cubin.
  if (std::string meta = read_file(meta_path); !meta.empty()) {
    auto j = nlohmann::json::parse(meta, nullptr, /*allow_exceptions=*/false);
    if (j.is_object() && j.value("format", 0) == kCacheFormat && j.value("symbol", "") == symbol) {
      r.ok = j.value("ok", false);
      r.log = j.value("log", "");
      r.compile_seconds = j.value("compile_seconds", 0.0);
      if (!r.ok || fs::exists(cubin_path)) {
        if (r.ok) {
          r.cubin_path = cubin_path;
          r.ptxas = parse_ptxas_report(r.log, symbol);
        }
        r.cache_hit = true;
        return r;
      }
    }
  }

  std::vector<const char*> names, texts;
  for (const KernelHeader& k : kernel_headers()) {
    names.push_back(k.name);
    texts.push_back(k.text);
  }
  std::vector<const char*> opts;
  for (const std::string& o : options_) opts.push_back(o.c_str());

  auto t0 = std::chrono::steady_clock::now();
  nvrtcProgram prog = nullptr;
  if (nvrtcCreateProgram(&prog, source.c_str(), (symbol + ".cu").c_str(), static_cast<int>(names.size()),
                         texts.data(), names.data()) != NVRTC_SUCCESS)
    throw std::runtime_error("NVRTC could not create a program for " + symbol);
  nvrtcResult rc = nvrtcCompileProgram(prog, static_cast<int>(opts.size()), opts.data());
  r.compile_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::size_t log_size = 0;
  nvrtcGetProgramLogSize(prog, &log_size);
  r.log.assign(log_size, '\0');
  nvrtcGetProgramLog(prog, r.log.data());
  while (!r.log.empty() && r.log.back() == '\0') r.log.pop_back();
  std::string cubin;
  if (rc == NVRTC_SUCCESS) {
    std::size_t size = 0;
    nvrtcGetCUBINSize(prog, &size);
    cubin.assign(size, '\0');
    nvrtcGetCUBIN(prog, cubin.data());
  } else {
    r.log += std::string(nvrtcGetErrorString(rc)) + "\n";
  }
  nvrtcDestroyProgram(&prog);

  r.ok = rc == NVRTC_SUCCESS && !cubin.empty();
  if (r.ok) {
    r.ptxas = parse_ptxas_report(r.log, symbol);
    if (!r.ptxas) {
      // Without ptxas' figures the kernel cannot be checked against the device: a failure.
      r.ok = false;
      r.log += "ptxas reported no resource usage for entry '" + symbol + "' (is it defined?)\n";
    }
  }
  if (r.ok) {
    write_atomically(cubin_path, cubin);
    r.cubin_path = cubin_path;
  }
  nlohmann::json meta = {{"format", kCacheFormat}, {"symbol", symbol},   {"ok", r.ok},
                         {"log", r.log},           {"arch", arch_},      {"nvrtc", nvrtc_version()},
                         {"compile_seconds", r.compile_seconds}};
  write_atomically(meta_path, meta.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  return r;
}

}  // namespace coalesce::tuner
