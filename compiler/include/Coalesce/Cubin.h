//===- Cubin.h - ahead-of-time kernel compilation for coalesce-translate ----===//
// The tuner's NVRTC path (tuner/jit.hpp: same options, same content-addressed cache) as a call
// that does not throw, for the CUDA emitter, which is built without exceptions as LLVM is.
#pragma once

#include <optional>
#include <string>

namespace coalesce::compiler {

/// The cubin NVRTC makes of `source` (an emitted unit defining the extern "C" kernel `symbol`)
/// for `arch` ("sm_90a"), through the tuner's Jit and its on-disk cache ($XDG_CACHE_HOME or
/// ~/.cache coalesce/kernels, else the system's temporary directory), so a kernel the tuner
/// compiled is the same cubin; nullopt with `error` set (NVRTC's log) when it does not compile.
std::optional<std::string> compile_cubin(const std::string& symbol, const std::string& source,
                                         const std::string& arch, std::string& error);

/// NVRTC's version, e.g. "13.0".
std::string nvrtc_version();

}  // namespace coalesce::compiler
