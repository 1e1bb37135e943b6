// TMA tensor maps for the kernels that take them (Family::tensor_map describes each):
// cuTensorMapEncodeTiled reached through the CUDA runtime's driver entry-point query, so nothing
// links libcuda and the tools still start on machines without a driver (DESIGN.md).
#pragma once

#include <string>

#include "kernels/core/family.hpp"
#include "kernels/core/tensor_map.hpp"

namespace coalesce {

/// Why the driver would refuse to encode `spec` over a matrix at `base` (cuTensorMapEncodeTiled's
/// documented requirements: a 16-byte aligned base, row strides a multiple of 16 bytes, sides
/// of at most 2^32, a box of 1 to 256 elements a side whose inner side is a multiple of 16 bytes
/// and fits the swizzle span); empty when it would not. Needs no GPU.
std::string tensor_map_refusal(const TensorMapSpec& spec, const void* base);

/// Encodes `spec` over the row-major matrix at `base` (device memory): zeros for elements
/// outside it, L2 promotion of 256 bytes. Throws std::invalid_argument naming the spec when
/// tensor_map_refusal() or the driver refuses it, and CudaError when the driver entry point is
/// missing.
TensorMap encode_tensor_map(const TensorMapSpec& spec, const void* base);

/// "a: 4096x4096 bf16, box 128x64, 128B swizzle", for messages.
std::string describe(const TensorMapSpec& spec);

}  // namespace coalesce
