// Every CUDA runtime call goes through COALESCE_CUDA: a failure throws CudaError with the call,
// the place and, where given, the kernel and config that were running.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace coalesce {

/// A failed CUDA runtime call. `sticky()` tells whether the context is now unusable.
class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
  cudaError_t code() const { return code_; }
  /// Errors after which every later call in this process fails (illegal address, trap, ...).
  bool sticky() const;

 private:
  cudaError_t code_;
};

[[noreturn]] void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line,
                                   const std::string& context = {});

}  // namespace coalesce

#define COALESCE_CUDA(call)                                                          \
  do {                                                                               \
    cudaError_t coalesce_err_ = (call);                                              \
    if (coalesce_err_ != cudaSuccess)                                                \
      ::coalesce::throw_cuda_error(coalesce_err_, #call, __FILE__, __LINE__);        \
  } while (0)

/// Same, naming the kernel (and its config) that was launched or running.
#define COALESCE_CUDA_CTX(call, context)                                             \
  do {                                                                               \
    cudaError_t coalesce_err_ = (call);                                              \
    if (coalesce_err_ != cudaSuccess)                                                \
      ::coalesce::throw_cuda_error(coalesce_err_, #call, __FILE__, __LINE__, context); \
  } while (0)
