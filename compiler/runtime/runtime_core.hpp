// What the runtime library's translation units share (not part of its C ABI): the refusal a
// call ends with, the checked views of memref descriptors, and the registration of kernels
// compiled into the program. C++17, so the nvcc-compiled units include it too.
#pragma once

#include <stdexcept>
#include <string>

#include "compiler/runtime/coalesce_runtime.h"
#include "kernels/core/problem.hpp"

namespace coalesce::runtime {

/// Why a call fails: its status and one sentence (what coalesce_last_error() returns).
class Refusal : public std::runtime_error {
 public:
  Refusal(coalesce_status status, const std::string& why) : std::runtime_error(why), status_(status) {}
  coalesce_status status() const { return status_; }

 private:
  coalesce_status status_;
};

/// A row-major matrix, rows `stride` elements apart (cols where they are contiguous), and a
/// contiguous vector, in device memory.
struct Matrix {
  void* data;
  int rows, cols;
  long long stride = 0;
};
struct Vector {
  void* data;
  int size;
};

/// The checked view of descriptor `d` of operand `name` with elements of `element_bytes`: each
/// extent within 0..kMaxExtent and at most INT_MAX elements (the kernels take extents as int and
/// form offsets in int, as the compiler's verifier requires), rows contiguous, the data 16-byte
/// aligned. Throws Refusal (COALESCE_INVALID_ARGUMENT) naming the operand otherwise. With
/// `strided_rows` (the fused matmul's A, B and C, which the launch copies through contiguous
/// rows: Staging in kernels/core/family.hpp) rows may be further apart than their width, each
/// row still contiguous.
Matrix matrix(const char* name, const CoalesceMemRef2D* d, int element_bytes, bool strided_rows = false);
Vector vector(const char* name, const CoalesceMemRef1D* d, int element_bytes);

/// The f32 descriptors of the `_mlir_ciface_*_f32` entries as untyped ones (the same layout).
CoalesceMemRef2D untyped(const CoalesceMemRef2DF32* d);
CoalesceMemRef1D untyped(const CoalesceMemRef1DF32* d);

/// Makes a kernel compiled into the program (by nvcc, with its `extern "C"` symbol or template
/// instance) the kernel of config name `config`, ahead of cubins and NVRTC. Thread-safe.
void register_kernel(const std::string& config, const void* kernel);

/// The simt built-in kernels runtime.cu compiles, registered by name (called once, on the
/// first fused matmul).
void register_builtin_kernels();

/// For the `_mlir_ciface_*` entries, which have no error channel: when `status` is not
/// COALESCE_OK, prints "coalesce runtime: <entry>: <coalesce_last_error()>" and exits with 1.
void exit_on_failure(const char* entry, coalesce_status status);

/// The entry point an emitted unit defines (fused_entry.cuh): registers `kernel` as config
/// `config`'s kernel (its symbol is the config name), then runs coalesce_fused_matmul with that
/// config, the dtype and epilogue of its name, on the legacy default stream; exit_on_failure.
void run_emitted_entry(const char* entry, const char* config, const void* kernel, const CoalesceMemRef2D* a,
                       const CoalesceMemRef2D* b, const CoalesceMemRef1D* bias, const CoalesceMemRef2D* c);

/// The config name coalesce_fused_matmul runs for `problem` with config NULL on the current
/// device (the tuning table's, else the first legal built-in). Throws Refusal (NO_CONFIG) or
/// CudaError.
std::string best_known_config_name(const Problem& problem);

/// Sets the device's default memory pool to keep freed memory (release threshold: never), so
/// per-call workspace and temporaries are recycled instead of returned to the driver at every
/// synchronization. Once per process; throws CudaError.
void keep_pool_memory();

}  // namespace coalesce::runtime
