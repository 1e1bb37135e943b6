// The kernel cache's files: atomic writes, whole-entry checks, and the maintenance verbs.
#include "kernel_cache.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <thread>

#include "sha256.hpp"

namespace coalesce::tuner {

namespace fs = std::filesystem;

namespace {

// Bumped when the layout of an entry changes, so old entries are misses (and `cache verify`
// drops them). 2: figures come from the cubin, whose size and SHA-256 the metadata records,
// and the metadata says how many attempts the compile took.
constexpr int kCacheFormat = 2;

// A stray file younger than this may belong to a compile in flight (between writing a
// temporary and renaming it, or between the cubin and its metadata): verify leaves it.
constexpr auto kStrayAge = std::chrono::minutes(10);

constexpr std::size_t kKeyDigits = 64;  // hex SHA-256

bool is_hex(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

// How a file in one of the cache's `<xx>/` folders is named, if it is the cache's at all.
struct CacheFile {
  enum Kind { metadata, cubin, temporary } kind;
  std::string key;
};

std::optional<CacheFile> classify(const fs::path& file) {
  const std::string name = file.filename().string();
  if (name.size() < kKeyDigits + 5) return std::nullopt;
  const std::string key = name.substr(0, kKeyDigits);
  const std::string rest = name.substr(kKeyDigits);
  if (!is_hex(key) || file.parent_path().filename().string() != key.substr(0, 2)) return std::nullopt;
  if (rest == ".json") return CacheFile{CacheFile::metadata, key};
  if (rest == ".cubin") return CacheFile{CacheFile::cubin, key};
  if (rest.starts_with(".json.tmp.") || rest.starts_with(".cubin.tmp.")) return CacheFile{CacheFile::temporary, key};
  return std::nullopt;
}

std::optional<std::string> read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
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

// An entry read back, or why it is not whole.
struct Checked {
  std::optional<CachedKernel> kernel;
  std::string why;
};

// Reads the metadata at `meta` and, for a successful compile, the cubin at `cubin` with every
// check load() and verify() make. `symbol` (when given) must be the entry's.
Checked check_entry(const fs::path& meta, const fs::path& cubin, const std::string* symbol) {
  const std::optional<std::string> text = read_file(meta);
  if (!text) return {std::nullopt, "the metadata cannot be read"};
  const auto j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return {std::nullopt, "the metadata is not a JSON object (cut short?)"};
  if (!j.contains("format") || !j["format"].is_number_integer() || j["format"].get<int>() != kCacheFormat)
    return {std::nullopt, "the metadata is of another cache format"};
  CachedKernel k;
  try {
    k.entry.symbol = j.at("symbol").get<std::string>();
    k.entry.ok = j.at("ok").get<bool>();
    k.entry.log = j.at("log").get<std::string>();
    k.entry.compile_seconds = j.at("compile_seconds").get<double>();
    k.entry.attempts = j.at("attempts").get<int>();
    k.entry.arch = j.at("arch").get<std::string>();
    k.entry.nvrtc = j.at("nvrtc").get<std::string>();
  } catch (const nlohmann::json::exception&) {
    return {std::nullopt, "the metadata lacks a field or has one of the wrong type"};
  }
  if (symbol && k.entry.symbol != *symbol) return {std::nullopt, "the entry is of another kernel"};
  if (k.entry.attempts < 1) return {std::nullopt, "the metadata counts no attempt"};
  if (!k.entry.ok) {
    if (k.entry.log.empty()) return {std::nullopt, "a failed compile without its log"};
    return {std::move(k), ""};
  }
  const std::optional<std::string> bytes = read_file(cubin);
  if (!bytes) return {std::nullopt, "the cubin is missing"};
  const auto size = j.value("cubin_bytes", std::uint64_t{0});
  if (bytes->size() != size)
    return {std::nullopt, "the cubin has " + std::to_string(bytes->size()) + " bytes, not the " +
                              std::to_string(size) + " recorded"};
  if (sha256_hex(*bytes) != j.value("cubin_sha256", "")) return {std::nullopt, "the cubin's SHA-256 is not the one recorded"};
  try {
    k.resources = read_kernel_resources(*bytes, k.entry.symbol);
  } catch (const CubinError& e) {
    return {std::nullopt, e.what()};
  }
  k.cubin_path = cubin;
  return {std::move(k), ""};
}

bool older_than_stray_age(const fs::path& p) {
  std::error_code ec;
  const auto written = fs::last_write_time(p, ec);
  return !ec && fs::file_time_type::clock::now() - written > kStrayAge;
}

// Every file of the cache under `dir`, as (path, what it is); other files are not listed.
std::vector<std::pair<fs::path, CacheFile>> cache_files(const fs::path& dir) {
  std::vector<std::pair<fs::path, CacheFile>> out;
  std::error_code ec;
  for (fs::directory_iterator sub(dir, ec), end; !ec && sub != end; sub.increment(ec)) {
    const std::string name = sub->path().filename().string();
    if (name.size() != 2 || !is_hex(name) || !sub->is_directory(ec)) continue;
    std::error_code inner;
    for (fs::directory_iterator f(sub->path(), inner), fend; !inner && f != fend; f.increment(inner))
      if (f->is_regular_file(inner))
        if (auto c = classify(f->path())) out.emplace_back(f->path(), *c);
    if (inner) throw CacheDirError("cannot read the kernel cache " + sub->path().string() + ": " + inner.message());
  }
  if (ec) throw CacheDirError("cannot read the kernel cache " + dir.string() + ": " + ec.message());
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

// Removes the `<xx>/` folders left empty.
void remove_empty_folders(const fs::path& dir) {
  std::error_code ec;
  for (fs::directory_iterator sub(dir, ec), end; !ec && sub != end; sub.increment(ec)) {
    const std::string name = sub->path().filename().string();
    std::error_code inner;
    if (name.size() == 2 && is_hex(name) && sub->is_directory(inner) && fs::is_empty(sub->path(), inner) && !inner)
      fs::remove(sub->path(), inner);
  }
}

void remove_file(const fs::path& p) {
  std::error_code ec;
  if (!fs::remove(p, ec) && ec) throw CacheDirError("cannot remove " + p.string() + ": " + ec.message());
}

}  // namespace

fs::path KernelCache::path_of(const std::string& key, const char* ext) const {
  return dir_ / key.substr(0, 2) / (key + ext);
}

std::optional<CachedKernel> KernelCache::load(const std::string& key, const std::string& symbol) const {
  if (!fs::exists(path_of(key, ".json"))) return std::nullopt;
  return check_entry(path_of(key, ".json"), path_of(key, ".cubin"), &symbol).kernel;
}

fs::path KernelCache::store(const std::string& key, const CacheEntry& e, std::string_view cubin) const {
  const fs::path cubin_path = path_of(key, ".cubin");
  nlohmann::json meta = {{"format", kCacheFormat}, {"symbol", e.symbol},
                         {"ok", e.ok},             {"log", e.log},
                         {"compile_seconds", e.compile_seconds}, {"attempts", e.attempts},
                         {"arch", e.arch},         {"nvrtc", e.nvrtc}};
  if (e.ok) {
    write_atomically(cubin_path, cubin);
    meta["cubin_bytes"] = cubin.size();
    meta["cubin_sha256"] = sha256_hex(cubin);
  }
  write_atomically(path_of(key, ".json"), meta.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  return cubin_path;
}

void KernelCache::require_directory() const {
  std::error_code ec;
  const fs::file_status s = fs::status(dir_, ec);
  if (s.type() == fs::file_type::not_found)
    throw CacheDirError("no kernel cache at " + dir_.string() + ": the directory does not exist");
  if (ec) throw CacheDirError("cannot read the kernel cache " + dir_.string() + ": " + ec.message());
  if (s.type() != fs::file_type::directory)
    throw CacheDirError(dir_.string() + " is not a directory, so not a kernel cache");
  if (access(dir_.c_str(), R_OK | X_OK) != 0)
    throw CacheDirError("cannot read the kernel cache " + dir_.string() + ": permission denied");
}

KernelCache::Stats KernelCache::stats() const {
  require_directory();
  Stats s;
  for (const auto& [path, file] : cache_files(dir_)) {
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    if (!ec) s.bytes += size;
    if (file.kind != CacheFile::metadata) continue;
    ++s.entries;
    const auto j = nlohmann::json::parse(read_file(path).value_or(""), nullptr, /*allow_exceptions=*/false);
    if (!j.is_object() || j.value("format", 0) != kCacheFormat || !j.contains("ok") || !j["ok"].is_boolean()) {
      ++s.unreadable;
      continue;
    }
    ++(j["ok"].get<bool>() ? s.ok : s.failed);
    if (j.value("attempts", 1) > 1) ++s.retried;
  }
  return s;
}

KernelCache::Verified KernelCache::verify() const {
  require_directory();
  Verified v;
  const auto files = cache_files(dir_);
  std::vector<std::string> keys_with_metadata;
  for (const auto& [path, file] : files) {
    if (file.kind != CacheFile::metadata) continue;
    ++v.checked;
    const fs::path cubin = path_of(file.key, ".cubin");
    const Checked c = check_entry(path, cubin, nullptr);
    if (c.kernel) {
      ++v.kept;
      keys_with_metadata.push_back(file.key);
      continue;
    }
    remove_file(path);
    remove_file(cubin);
    v.dropped.push_back(file.key + ": " + c.why);
  }
  std::sort(keys_with_metadata.begin(), keys_with_metadata.end());
  for (const auto& [path, file] : files) {
    const bool orphan = file.kind == CacheFile::cubin &&
                        !std::binary_search(keys_with_metadata.begin(), keys_with_metadata.end(), file.key);
    if ((file.kind == CacheFile::temporary || orphan) && fs::exists(path) && older_than_stray_age(path)) {
      remove_file(path);
      ++v.stray_removed;
    }
  }
  remove_empty_folders(dir_);
  return v;
}

std::size_t KernelCache::clear() const {
  require_directory();
  std::size_t entries = 0;
  for (const auto& [path, file] : cache_files(dir_)) {
    if (file.kind == CacheFile::metadata) ++entries;
    remove_file(path);
  }
  remove_empty_folders(dir_);
  return entries;
}

}  // namespace coalesce::tuner
