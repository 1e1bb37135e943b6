// A TMA tensor map as kernels take it and the harness stores it: the driver's CUtensorMap is 128
// opaque bytes, 128-byte aligned in CUDA 13's cuda.h, passed by value as
// `const __grid_constant__ TensorMap`. Device code cannot include <cuda.h> under NVRTC, hence
// this stand-in of the same size and alignment (harness/tma.cpp static_asserts both).
// Device-safe, no standard headers.
#pragma once

namespace coalesce {

/// 128 opaque bytes encoded by cuTensorMapEncodeTiled (harness/tma.hpp).
struct alignas(128) TensorMap {
  unsigned long long opaque[16];
};

}  // namespace coalesce
