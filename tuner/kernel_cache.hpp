// The on-disk kernel cache: one entry per content address (the Jit's key), a cubin and its
// metadata, and the maintenance behind `coalesce-tune cache stats|verify|clear`
// (docs/tuner.md, "The kernel cache").
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cubin_resources.hpp"

namespace coalesce::tuner {

/// What an entry records beside its cubin (`<key>.json`).
struct CacheEntry {
  std::string symbol;          ///< the kernel's entry function
  bool ok = false;             ///< false: the compile failed alone too; `log` says why
  std::string log;             ///< NVRTC's log (ptxas' -v report when it came back)
  double compile_seconds = 0;  ///< NVRTC time over every attempt
  int attempts = 1;            ///< 2 when the first compile failed and was retried alone
  std::string arch;            ///< e.g. "sm_90"
  std::string nvrtc;           ///< NVRTC's version
};

/// A whole entry read back from the cache.
struct CachedKernel {
  CacheEntry entry;
  std::filesystem::path cubin_path;          ///< when entry.ok
  std::optional<KernelResources> resources;  ///< read from the cubin, when entry.ok
};

/// The cache directory cannot be used by a maintenance verb (missing, not a directory,
/// unreadable); the message is one sentence naming it.
class CacheDirError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Entries live at `<dir>/<key[0..2]>/<key>.cubin` and `<key>.json`. The metadata is written last
/// and is what makes an entry exist; each file goes through a temporary file and a rename, so
/// concurrent compiles (threads or processes) see no entry, the old one or the whole new one.
class KernelCache {
 public:
  explicit KernelCache(std::filesystem::path dir) : dir_(std::move(dir)) {}
  const std::filesystem::path& dir() const { return dir_; }

  /// The entry under `key` for `symbol` when it is whole: its metadata parses in this format
  /// and, for a successful compile, the cubin has the recorded size and SHA-256 and gives the
  /// kernel's figures. Anything less is a miss (nullopt) that the next store() replaces.
  std::optional<CachedKernel> load(const std::string& key, const std::string& symbol) const;

  /// Stores an entry: the cubin (when entry.ok), then the metadata. Returns the cubin's path.
  /// Throws std::runtime_error when the directory cannot be written.
  std::filesystem::path store(const std::string& key, const CacheEntry& entry, std::string_view cubin) const;

  /// What `cache stats` prints: entries by outcome and the bytes every cache file takes.
  struct Stats {
    std::size_t entries = 0;      ///< metadata files
    std::size_t ok = 0, failed = 0;
    std::size_t retried = 0;      ///< entries that needed a second, serialized attempt
    std::size_t unreadable = 0;   ///< metadata that does not parse or is of another format
    std::uintmax_t bytes = 0;     ///< every file of the cache, entries and strays
  };
  /// Counts the entries from their metadata, without reading cubins. Throws CacheDirError.
  Stats stats() const;

  /// What `cache verify` did.
  struct Verified {
    std::size_t checked = 0;            ///< entries (metadata files) looked at
    std::size_t kept = 0;               ///< whole ones
    std::vector<std::string> dropped;   ///< "<key>: why" for each broken entry removed
    std::size_t stray_removed = 0;      ///< left-over temporaries and cubins without metadata
  };
  /// Re-checks every entry as load() does and removes the broken ones, and stray files older
  /// than ten minutes (a live compile renames its temporaries within milliseconds). Throws
  /// CacheDirError.
  Verified verify() const;

  /// Removes every entry and stray file (only files named as the cache names them, so a
  /// mistaken --cache-dir loses nothing else); returns the entries removed. Throws CacheDirError.
  std::size_t clear() const;

 private:
  std::filesystem::path path_of(const std::string& key, const char* ext) const;
  void require_directory() const;
  std::filesystem::path dir_;
};

}  // namespace coalesce::tuner
