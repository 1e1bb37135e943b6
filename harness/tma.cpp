// Encoding TMA tensor maps through the runtime's driver entry point (see tma.hpp).
#include "tma.hpp"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "cuda_check.hpp"

namespace coalesce {

static_assert(sizeof(TensorMap) == sizeof(CUtensorMap) && alignof(TensorMap) == alignof(CUtensorMap),
              "kernels/core/tensor_map.hpp's TensorMap must have CUtensorMap's size and alignment");

namespace {

// The version whose signature PFN_cuTensorMapEncodeTiled_v12000 spells (DESIGN.md checked it on
// the H200 and on the CPU machines).
constexpr unsigned kEncodeVersion = 12000;

PFN_cuTensorMapEncodeTiled_v12000 encoder() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* f = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    COALESCE_CUDA_CTX(
        cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, kEncodeVersion, cudaEnableDefault, &found),
        "the driver's cuTensorMapEncodeTiled");
    if (found != cudaDriverEntryPointSuccess || !f)
      throw CudaError(cudaErrorSymbolNotFound, "the driver has no cuTensorMapEncodeTiled (version 12.0)");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(f);
  }();
  return fn;
}

CUtensorMapSwizzle swizzle_of(int bytes) {
  switch (bytes) {
    case 0: return CU_TENSOR_MAP_SWIZZLE_NONE;
    case 32: return CU_TENSOR_MAP_SWIZZLE_32B;
    case 64: return CU_TENSOR_MAP_SWIZZLE_64B;
    default: return CU_TENSOR_MAP_SWIZZLE_128B;
  }
}

CUtensorMapDataType data_type_of(Element e) {
  switch (e) {
    case Element::bf16: return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    case Element::f16: return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    case Element::f32: break;
  }
  return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
}

const char* matrix_name(KernelArg m) {
  switch (m) {
    case KernelArg::a: return "a";
    case KernelArg::b: return "b";
    case KernelArg::c: return "c";
    default: return "?";
  }
}

}  // namespace

std::string describe(const TensorMapSpec& s) {
  return std::string(matrix_name(s.matrix)) + ": " + std::to_string(s.rows) + "x" + std::to_string(s.cols) + " " +
         std::string(to_string(s.element)) +
         (s.row_stride > 0 && s.row_stride != s.cols ? " in rows of " + std::to_string(s.row_stride) : std::string()) +
         ", box " + std::to_string(s.box_rows) + "x" + std::to_string(s.box_cols) +
         ", " + std::to_string(s.swizzle_bytes) + "B swizzle";
}

std::string tensor_map_refusal(const TensorMapSpec& s, const void* base) {
  const long long bytes = element_bytes(s.element);
  if (s.matrix != KernelArg::a && s.matrix != KernelArg::b && s.matrix != KernelArg::c)
    return "a tensor map covers A, B or C";
  if (reinterpret_cast<std::uintptr_t>(base) % 16 != 0) return "the matrix must start 16-byte aligned";
  if (s.rows < 1 || s.cols < 1 || s.rows > (1LL << 32) || s.cols > (1LL << 32))
    return "each side of the matrix must be 1 to 2^32 elements";
  if (s.row_stride != 0 && s.row_stride < s.cols) return "the row stride must hold a row (at least cols elements)";
  if ((s.stride() * bytes) % 16 != 0) return "the row stride (elements x element bytes) must be a multiple of 16 bytes";
  if (s.box_rows < 1 || s.box_rows > 256 || s.box_cols < 1 || s.box_cols > 256)
    return "each side of the box must be 1 to 256 elements";
  if ((s.box_cols * bytes) % 16 != 0) return "the box's inner side must be a multiple of 16 bytes";
  if (s.swizzle_bytes != 0 && s.swizzle_bytes != 32 && s.swizzle_bytes != 64 && s.swizzle_bytes != 128)
    return "the swizzle must be 0, 32, 64 or 128 bytes";
  if (s.swizzle_bytes != 0 && s.box_cols * bytes > s.swizzle_bytes)
    return "the box's inner side must fit the swizzle span";
  return {};
}

TensorMap encode_tensor_map(const TensorMapSpec& s, const void* base) {
  if (std::string why = tensor_map_refusal(s, base); !why.empty())
    throw std::invalid_argument("tensor map " + describe(s) + ": " + why);
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(s.cols), static_cast<cuuint64_t>(s.rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(s.stride() * element_bytes(s.element))};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(s.box_cols), static_cast<cuuint32_t>(s.box_rows)};
  const cuuint32_t element_strides[2] = {1, 1};
  CUtensorMap map;  // aligned as the driver requires (64 bytes at least)
  const CUresult r = encoder()(&map, data_type_of(s.element), 2, const_cast<void*>(base), dims, strides, box,
                               element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle_of(s.swizzle_bytes),
                               CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw std::invalid_argument("tensor map " + describe(s) + ": cuTensorMapEncodeTiled failed with CUresult " +
                                std::to_string(static_cast<int>(r)));
  TensorMap out;
  std::memcpy(&out, &map, sizeof out);
  return out;
}

}  // namespace coalesce
