// The read_b floor (see floors.hpp): a streaming read of B, compiled by nvcc into the harness.
#include "floors.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "cuda_check.hpp"
#include "cuda_raii.hpp"

namespace coalesce {

namespace {

/// Threads per block: 8 warps, which reach full occupancy (2048 threads per SM on sm_80 and
/// sm_90) with a register budget this kernel never approaches.
constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

/// Independent 16-byte loads each thread has in flight per step of its grid-stride loop. To keep
/// DRAM busy a GPU needs about its bandwidth × latency in flight (H200: 4.8 TB/s × ~1 µs under
/// load ≈ 5 MB). One load per thread of a full grid is 132 SMs × 2048 threads × 16 B = 4.3 MB,
/// just short of it; four are well past it.
constexpr int kLoadsInFlight = 4;

__device__ __forceinline__ unsigned fold(uint4 v) { return v.x ^ v.y ^ v.z ^ v.w; }

/// Reads vectors[0, count) once, then the `tail_bytes` bytes after them; block b writes the XOR
/// of everything its threads read to out[b], so no load can be dropped. Loads are cache-streaming
/// (`ld.global.cs`): each line is read once.
__global__ void __launch_bounds__(kThreads)
    read_once(const uint4* __restrict__ vectors, std::size_t count, std::size_t tail_bytes,
              unsigned* __restrict__ out) {
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned acc = 0;
  std::size_t i = first;
  for (; i + (kLoadsInFlight - 1) * stride < count; i += kLoadsInFlight * stride) {
    uint4 v[kLoadsInFlight];
#pragma unroll
    for (int j = 0; j < kLoadsInFlight; ++j) v[j] = __ldcs(vectors + i + j * stride);
#pragma unroll
    for (int j = 0; j < kLoadsInFlight; ++j) acc ^= fold(v[j]);
  }
  for (; i < count; i += stride) acc ^= fold(__ldcs(vectors + i));
  // B's size need not be a multiple of 16 bytes: the first threads read the rest byte by byte.
  if (first < tail_bytes) acc ^= reinterpret_cast<const unsigned char*>(vectors + count)[first];

  for (int offset = 16; offset > 0; offset /= 2) acc ^= __shfl_xor_sync(0xffffffffu, acc, offset);
  __shared__ unsigned warp_acc[kWarps];
  if (threadIdx.x % 32 == 0) warp_acc[threadIdx.x / 32] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned block = 0;
    for (int w = 0; w < kWarps; ++w) block ^= warp_acc[w];
    out[blockIdx.x] = block;
  }
}

/// One read of B: the grid, the split into whole vectors and a tail, and the blocks' words.
struct ReadPlan {
  std::size_t count = 0, tail_bytes = 0;
  unsigned blocks = 0;
  std::shared_ptr<DeviceBuffer<unsigned>> block_words;

  void launch(const void* b, cudaStream_t s, const std::string& ctx) const {
    read_once<<<blocks, kThreads, 0, s>>>(static_cast<const uint4*>(b), count, tail_bytes, block_words->get());
    COALESCE_CUDA_CTX(cudaGetLastError(), ctx);
  }
};

ReadPlan plan_read(std::size_t bytes, const std::string& ctx) {
  ReadPlan plan;
  plan.count = bytes / sizeof(uint4);  // cudaMalloc'd B is 256-byte aligned
  plan.tail_bytes = bytes % sizeof(uint4);
  int device = 0, sms = 0, resident = 0;
  COALESCE_CUDA_CTX(cudaGetDevice(&device), ctx);
  COALESCE_CUDA_CTX(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), ctx);
  COALESCE_CUDA_CTX(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, read_once, kThreads, 0), ctx);
  // One full wave of resident blocks fills the GPU; a B too small for it gets a thread per vector.
  const std::size_t needed = std::max<std::size_t>(1, (plan.count + kThreads - 1) / kThreads);
  plan.blocks = static_cast<unsigned>(
      std::min<std::size_t>(static_cast<std::size_t>(sms) * static_cast<std::size_t>(std::max(resident, 1)), needed));
  plan.block_words = std::make_shared<DeviceBuffer<unsigned>>(plan.blocks);
  return plan;
}

}  // namespace

std::size_t read_b_bytes(const Problem& p) {
  return static_cast<std::size_t>(p.k) * static_cast<std::size_t>(p.n) *
         static_cast<std::size_t>(element_bytes(p.types().b));
}

Method read_b(Workspace& ws) {
  const Problem& p = ws.problem();
  Method m;
  m.method = "read_b";
  m.family = "floor";
  m.config = "read_once_" + std::string(to_string(p.types().b)) + "_v16";
  m.role = MethodRole::floor;
  const ReadPlan plan = plan_read(read_b_bytes(p), describe(m));
  m.launch = [&ws, plan, ctx = describe(m)](cudaStream_t s) { plan.launch(ws.b(), s, ctx); };
  return m;
}

unsigned read_b_fold(Workspace& ws) {
  const std::string ctx = "read_b (fold)";
  const ReadPlan plan = plan_read(read_b_bytes(ws.problem()), ctx);
  plan.launch(ws.b(), ws.stream(), ctx);
  std::vector<unsigned> words(plan.blocks);
  COALESCE_CUDA_CTX(cudaMemcpyAsync(words.data(), plan.block_words->get(), words.size() * sizeof(unsigned),
                                    cudaMemcpyDeviceToHost, ws.stream()),
                    ctx);
  COALESCE_CUDA_CTX(cudaStreamSynchronize(ws.stream()), ctx);
  unsigned fold = 0;
  for (unsigned w : words) fold ^= w;
  return fold;
}

}  // namespace coalesce
