// The staged launch's row copies (see staging.hpp).
#include "staging.hpp"

#include <algorithm>
#include <cstdint>

#include "cuda_check.hpp"

namespace coalesce {
namespace {

constexpr int kWarps = 8;              // warps of a block
constexpr int kSegment = 512;          // bytes of a row a warp moves at a time: 32 lanes x 16 bytes

/// The widest unit (16, 8, 4, 2 or 1 bytes) that divides every address a side touches.
int unit_of(std::uintptr_t base, std::size_t pitch, std::size_t width) {
  const std::uintptr_t bits = base | static_cast<std::uintptr_t>(pitch) | static_cast<std::uintptr_t>(width);
  int unit = 16;
  while (unit > 1 && bits % unit != 0) unit /= 2;
  return unit;
}

template <int U>
struct Unit;
template <>
struct Unit<16> { using type = uint4; };
template <>
struct Unit<8> { using type = uint2; };
template <>
struct Unit<4> { using type = unsigned; };
template <>
struct Unit<2> { using type = unsigned short; };
template <>
struct Unit<1> { using type = unsigned char; };

/// Moves `bytes` (a multiple of U, at most kSegment) between `from` and `to`, the warp's lanes
/// taking consecutive units.
template <int U>
__device__ __forceinline__ void move_units(char* to, const char* from, int bytes, int lane) {
  using T = typename Unit<U>::type;
#pragma unroll
  for (int i = 0; i < kSegment / U / 32; ++i) {
    const int at = (i * 32 + lane) * U;
    if (at < bytes) *reinterpret_cast<T*>(to + at) = *reinterpret_cast<const T*>(from + at);
  }
}

template <int US, int UD>
__global__ void __launch_bounds__(kWarps * 32) copy_rows_kernel(char* __restrict__ dst, std::size_t dst_pitch,
                                                                 const char* __restrict__ src, std::size_t src_pitch,
                                                                 std::size_t width, long long segments_per_row,
                                                                 long long segments) {
  __shared__ alignas(16) char buffer[kWarps][kSegment];
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const long long warps = static_cast<long long>(gridDim.x) * kWarps;
  for (long long s = static_cast<long long>(blockIdx.x) * kWarps + warp; s < segments; s += warps) {
    const long long row = s / segments_per_row;
    const long long offset = (s % segments_per_row) * kSegment;
    const int bytes = static_cast<int>(min(static_cast<long long>(kSegment), static_cast<long long>(width) - offset));
    move_units<US>(buffer[warp], src + row * src_pitch + offset, bytes, lane);
    __syncwarp();
    move_units<UD>(dst + row * dst_pitch + offset, buffer[warp], bytes, lane);
    __syncwarp();
  }
}

template <int US>
void launch_with_source_unit(int ud, char* dst, std::size_t dst_pitch, const char* src, std::size_t src_pitch,
                             std::size_t width, long long per_row, long long segments, int blocks,
                             cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>(blocks)), block(kWarps * 32);
  switch (ud) {
    case 16: copy_rows_kernel<US, 16><<<grid, block, 0, stream>>>(dst, dst_pitch, src, src_pitch, width, per_row, segments); break;
    case 8: copy_rows_kernel<US, 8><<<grid, block, 0, stream>>>(dst, dst_pitch, src, src_pitch, width, per_row, segments); break;
    case 4: copy_rows_kernel<US, 4><<<grid, block, 0, stream>>>(dst, dst_pitch, src, src_pitch, width, per_row, segments); break;
    case 2: copy_rows_kernel<US, 2><<<grid, block, 0, stream>>>(dst, dst_pitch, src, src_pitch, width, per_row, segments); break;
    default: copy_rows_kernel<US, 1><<<grid, block, 0, stream>>>(dst, dst_pitch, src, src_pitch, width, per_row, segments); break;
  }
}

}  // namespace

void launch_copy_rows(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch, std::size_t width,
                      std::size_t rows, int max_blocks, cudaStream_t stream) {
  if (width == 0 || rows == 0) return;
  const int us = unit_of(reinterpret_cast<std::uintptr_t>(src), src_pitch, width);
  const int ud = unit_of(reinterpret_cast<std::uintptr_t>(dst), dst_pitch, width);
  const long long per_row = static_cast<long long>((width + kSegment - 1) / kSegment);
  const long long segments = per_row * static_cast<long long>(rows);
  const int blocks = static_cast<int>(std::min<long long>((segments + kWarps - 1) / kWarps, std::max(max_blocks, 1)));
  char* d = static_cast<char*>(dst);
  const char* s = static_cast<const char*>(src);
  switch (us) {
    case 16: launch_with_source_unit<16>(ud, d, dst_pitch, s, src_pitch, width, per_row, segments, blocks, stream); break;
    case 8: launch_with_source_unit<8>(ud, d, dst_pitch, s, src_pitch, width, per_row, segments, blocks, stream); break;
    case 4: launch_with_source_unit<4>(ud, d, dst_pitch, s, src_pitch, width, per_row, segments, blocks, stream); break;
    case 2: launch_with_source_unit<2>(ud, d, dst_pitch, s, src_pitch, width, per_row, segments, blocks, stream); break;
    default: launch_with_source_unit<1>(ud, d, dst_pitch, s, src_pitch, width, per_row, segments, blocks, stream); break;
  }
  COALESCE_CUDA_CTX(cudaGetLastError(), "staging the unaligned rows");
}

}  // namespace coalesce
