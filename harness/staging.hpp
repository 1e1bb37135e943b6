// The copies of a staged launch (kernels/core/family.hpp, Staging): rows of a matrix into rows
// further apart, or back. The rows on one side are usually only 2-byte aligned (an unaligned
// 16-bit problem's A, B or C) and on the other 16-byte aligned (the padded copy in the workspace).
#pragma once

#include <cstddef>

#include <cuda_runtime.h>

namespace coalesce {

/// Enqueues on `stream` the copy of `rows` rows of `width` bytes from `src` (rows `src_pitch`
/// bytes apart) to `dst` (rows `dst_pitch` apart), device to device; what cudaMemcpy2DAsync
/// does, with each side read or written in the widest units (up to 16 bytes) its own alignment
/// allows: a warp reads 512 bytes of a row through shared memory in the source's units and writes
/// them in the destination's, over a grid of at most `max_blocks` blocks (elementwise_grid_cap(),
/// splitk.hpp). Nothing outside the rows' `width` bytes is written. Throws CudaError when the
/// launch fails.
void launch_copy_rows(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch, std::size_t width,
                      std::size_t rows, int max_blocks, cudaStream_t stream);

}  // namespace coalesce
