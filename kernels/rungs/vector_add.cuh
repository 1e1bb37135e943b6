// Rung 0 (docs/history.md): c[i] = a[i] + b[i], one element per thread (grid-stride loop).
#pragma once

namespace coalesce {

__global__ void vector_add(const float* __restrict__ a, const float* __restrict__ b,
                           float* __restrict__ c, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    c[i] = a[i] + b[i];
}

}  // namespace coalesce
