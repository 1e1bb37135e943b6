//===- Cubin.cpp - ahead-of-time kernel compilation for coalesce-translate --===//
#include "Coalesce/Cubin.h"

#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "tuner/jit.hpp"

namespace coalesce::compiler {

std::optional<std::string> compile_cubin(const std::string& symbol, const std::string& source,
                                         const std::string& arch, std::string& error) {
  try {
    std::filesystem::path cache = tuner::default_cache_dir().value_or(
        std::filesystem::temp_directory_path() / "coalesce" / "kernels");
    tuner::CompileResult result = tuner::Jit(cache, arch).compile(symbol, source);
    if (!result.ok) {
      error = result.log.empty() ? "NVRTC failed without a log" : result.log;
      return std::nullopt;
    }
    std::ifstream in(result.cubin_path, std::ios::binary);
    std::string image{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (!in.good() && !in.eof()) {
      error = "cannot read the compiled cubin " + result.cubin_path.string();
      return std::nullopt;
    }
    return image;
  } catch (const std::exception& e) {
    error = e.what();
    return std::nullopt;
  }
}

std::string nvrtc_version() { return tuner::nvrtc_version(); }

}  // namespace coalesce::compiler
