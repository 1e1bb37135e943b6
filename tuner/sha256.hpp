// SHA-256 (FIPS 180-4): the content address of compiled kernels in the cache and the "source
// hash" a measured row is keyed by. Written here to keep the tuner free of a crypto dependency.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace coalesce::tuner {

/// Incremental SHA-256; feed bytes with update(), read the digest once with hex().
class Sha256 {
 public:
  Sha256();
  Sha256& update(std::string_view bytes);
  /// Feeds `bytes` preceded by its length, so that consecutive fields cannot run into each
  /// other ("ab"+"c" and "a"+"bc" hash differently).
  Sha256& field(std::string_view bytes);
  /// The digest as 64 lowercase hex digits; the object must not be updated afterwards.
  std::string hex();

 private:
  void block(const unsigned char* p);
  std::array<std::uint32_t, 8> h_;
  std::array<unsigned char, 64> buf_{};
  std::size_t buffered_ = 0;
  std::uint64_t total_ = 0;
};

/// SHA-256 of `bytes` as 64 lowercase hex digits.
std::string sha256_hex(std::string_view bytes);

}  // namespace coalesce::tuner
