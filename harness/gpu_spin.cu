// The GPU spin before each sample (timing.hpp, TimingSettings::spin_cycles): one thread that
// loops on its SM's clock, as PyTorch's torch.cuda._sleep does, so that the C++ harness and the
// Python peers (scripts/torch_peers.py) time behind the same spin.
#include "timing.hpp"

#include "cuda_check.hpp"

namespace coalesce {

namespace {

__global__ void spin_for(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

}  // namespace

void gpu_spin(long long cycles, cudaStream_t stream) {
  spin_for<<<1, 1, 0, stream>>>(cycles);
  COALESCE_CUDA(cudaGetLastError());
}

}  // namespace coalesce
