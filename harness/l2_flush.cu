// The read flush of L2 (timing.hpp, L2FlushMode::read): one pass of cached loads over a buffer
// of twice the L2, compiled by nvcc into the harness.
#include "timing.hpp"

#include "cuda_check.hpp"

namespace coalesce {

namespace {

constexpr int kThreads = 256;

/// Reads vectors[0, count) with ordinary (L2-allocating) loads. Block b writes the XOR of what
/// its threads read to sink[b], so no load can be dropped.
__global__ void __launch_bounds__(kThreads)
    read_through_l2(const uint4* __restrict__ vectors, std::size_t count, unsigned* __restrict__ sink) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned acc = 0;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    const uint4 v = vectors[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  // One word per block: the warps' XORs folded through shared memory.
  __shared__ unsigned warp_acc[kThreads / 32];
  for (int o = 16; o > 0; o /= 2) acc ^= __shfl_xor_sync(0xffffffffu, acc, o);
  if (threadIdx.x % 32 == 0) warp_acc[threadIdx.x / 32] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned all = 0;
    for (int w = 0; w < kThreads / 32; ++w) all ^= warp_acc[w];
    sink[blockIdx.x] = all;
  }
}

}  // namespace

int l2_read_flush_blocks(int device_ordinal) {
  int sms = 0;
  COALESCE_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device_ordinal));
  return 4 * sms;  // 1024 threads per SM: enough loads in flight to read at full bandwidth
}

void l2_read_flush(const void* buffer, std::size_t bytes, unsigned* sink, int blocks, cudaStream_t stream) {
  read_through_l2<<<blocks, kThreads, 0, stream>>>(static_cast<const uint4*>(buffer), bytes / 16, sink);
  COALESCE_CUDA(cudaGetLastError());
}

}  // namespace coalesce
