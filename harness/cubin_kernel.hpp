// A kernel loaded at run time from a cubin (NVRTC's output) through the CUDA runtime's library
// API (cudaLibraryLoadData, cudaLibraryGetKernel, cudaLaunchKernel): no libcuda link, so the tools
// still start on machines without a driver, where cudaGetDeviceCount reports no device.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <vector>

namespace coalesce {

/// One kernel of a loaded cubin; unloads the library when destroyed. Move-only.
class CubinKernel {
 public:
  /// Loads `bytes` of `image` (a cubin or fatbin) and looks up the kernel `symbol` (an
  /// extern "C" name). The image is copied and kept for the library's lifetime, since with lazy
  /// module loading the driver may read it again at the first launch. Throws CudaError naming
  /// the symbol.
  CubinKernel(const void* image, std::size_t bytes, const std::string& symbol);
  CubinKernel(CubinKernel&& o) noexcept;
  CubinKernel& operator=(CubinKernel&& o) noexcept;
  CubinKernel(const CubinKernel&) = delete;
  CubinKernel& operator=(const CubinKernel&) = delete;
  ~CubinKernel();

  /// Allows `bytes` of dynamic shared memory per block (needed above 48 KiB).
  void set_max_dynamic_smem(int bytes) const;
  /// Registers, local memory, static shared memory and max threads as the driver sees them.
  cudaFuncAttributes attributes() const;
  /// Enqueues one launch; `args` points at each kernel argument in order.
  void launch(dim3 grid, dim3 block, std::size_t smem_bytes, cudaStream_t stream, void** args) const;

  /// The handle, usable wherever the runtime takes a `const void*` kernel (cudaLaunchKernel,
  /// cudaFuncSetAttribute, cudaFuncGetAttributes).
  const void* function() const { return reinterpret_cast<const void*>(kernel_); }
  const std::string& symbol() const { return symbol_; }

 private:
  std::vector<char> image_;
  cudaLibrary_t library_ = nullptr;
  cudaKernel_t kernel_ = nullptr;
  std::string symbol_;
};

}  // namespace coalesce
