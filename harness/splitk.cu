// Split-K's reduce for run-time problems (see splitk.hpp); nvcc instantiates one per storage
// type and epilogue.
#include "splitk.hpp"

#include "cuda_check.hpp"
#include "dispatch.cuh"
#include "kernels/elementwise.cuh"

namespace coalesce {

void launch_splitk_reduce(const Problem& problem, const float* partial, int slices, const void* bias, void* c,
                          int max_blocks, cudaStream_t stream, bool programmatic) {
  // The reduce handles a gated epilogue (Epi::kGated: it writes the pairs' N/2 columns).
  with_epilogue</*kGated=*/true>(problem.epilogue, [&](auto epi) {
    with_storage(problem.types().c, [&](auto tag) {
      using T = decltype(tag);
      launch_splitk_reduce<T, decltype(epi)>(partial, slices, static_cast<const T*>(bias), static_cast<T*>(c),
                                             problem.m, problem.n, max_blocks, stream, programmatic);
    });
  });
  COALESCE_CUDA_CTX(cudaGetLastError(), "split-K reduce");
}

bool programmatic_launch_supported() {
  int device = 0, major = 0;
  COALESCE_CUDA(cudaGetDevice(&device));
  COALESCE_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  return major >= 9;
}

int elementwise_grid_cap() {
  int device = 0, sms = 0, threads_per_sm = 0;
  COALESCE_CUDA(cudaGetDevice(&device));
  COALESCE_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  COALESCE_CUDA(cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device));
  return sms * (threads_per_sm / kElementwiseBlock);
}

}  // namespace coalesce
