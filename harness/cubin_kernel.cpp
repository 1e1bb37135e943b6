// Loading and launching cubin kernels through the runtime's library API (see cubin_kernel.hpp).
#include "cubin_kernel.hpp"

#include <utility>

#include "cuda_check.hpp"

namespace coalesce {

CubinKernel::CubinKernel(const void* image, std::size_t bytes, const std::string& symbol)
    : image_(static_cast<const char*>(image), static_cast<const char*>(image) + bytes), symbol_(symbol) {
  const std::string ctx = "cubin kernel " + symbol;
  COALESCE_CUDA_CTX(cudaLibraryLoadData(&library_, image_.data(), nullptr, nullptr, 0, nullptr, nullptr, 0), ctx);
  const cudaError_t err = cudaLibraryGetKernel(&kernel_, library_, symbol.c_str());
  if (err != cudaSuccess) {
    cudaLibraryUnload(library_);
    library_ = nullptr;
    COALESCE_CUDA_CTX(err, ctx);
  }
}

CubinKernel::CubinKernel(CubinKernel&& o) noexcept
    : image_(std::move(o.image_)),
      library_(std::exchange(o.library_, nullptr)),
      kernel_(std::exchange(o.kernel_, nullptr)),
      symbol_(std::move(o.symbol_)) {}

CubinKernel& CubinKernel::operator=(CubinKernel&& o) noexcept {
  if (this != &o) {
    if (library_) cudaLibraryUnload(library_);
    image_ = std::move(o.image_);
    library_ = std::exchange(o.library_, nullptr);
    kernel_ = std::exchange(o.kernel_, nullptr);
    symbol_ = std::move(o.symbol_);
  }
  return *this;
}

// The unload result is ignored: a destructor must not throw, and after a sticky error it fails
// anyway.
CubinKernel::~CubinKernel() {
  if (library_) cudaLibraryUnload(library_);
}

void CubinKernel::set_max_dynamic_smem(int bytes) const {
  COALESCE_CUDA_CTX(cudaFuncSetAttribute(function(), cudaFuncAttributeMaxDynamicSharedMemorySize, bytes),
                    "cubin kernel " + symbol_ + " (" + std::to_string(bytes) + " B dynamic smem)");
}

cudaFuncAttributes CubinKernel::attributes() const {
  cudaFuncAttributes a{};
  COALESCE_CUDA_CTX(cudaFuncGetAttributes(&a, function()), "cubin kernel " + symbol_);
  return a;
}

void CubinKernel::launch(dim3 grid, dim3 block, std::size_t smem_bytes, cudaStream_t stream,
                         void** args) const {
  COALESCE_CUDA_CTX(cudaLaunchKernel(function(), grid, block, args, smem_bytes, stream),
                    "cubin kernel " + symbol_);
}

}  // namespace coalesce
