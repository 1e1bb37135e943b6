#include "kernels/wgmma/gemm.cuh"

#define INST(T, D, H) template __global__ void coalesce::wgmma_gemm_kernel<T, coalesce::EpilogueFor<coalesce::Epilogue::bias_gelu>, D, H>( \
    const __grid_constant__ coalesce::TensorMap, const __grid_constant__ coalesce::TensorMap, const __grid_constant__ coalesce::TensorMap, \
    const coalesce::GemmOf<D>::Bias*, coalesce::GemmOf<D>::C*, float*, int, int, int);
using A1 = coalesce::WgmmaTile<128, 256, 64, 3, 2, 1, 1, 1, 8, 1>;
using A2 = coalesce::WgmmaTile<128, 256, 64, 3, 2, 2, 1, 1, 8, 1>;
using A3 = coalesce::WgmmaTile<64, 64, 64, 6, 1, 1, 1, 0, 8, 0, 3, 0, 2>;
using A4 = coalesce::WgmmaTile<128, 256, 32, 4, 2, 1, 1, 1, 8, 0>;
using A5 = coalesce::WgmmaTile<128, 128, 64, 5, 2, 1, 1, 1, 8, 0, 1, 1>;
INST(A1, coalesce::Dtype::bf16, 0)
INST(A2, coalesce::Dtype::bf16, 0)
INST(A3, coalesce::Dtype::bf16, 0)
INST(A4, coalesce::Dtype::tf32, 0)
INST(A5, coalesce::Dtype::f16, 0)
using A6 = coalesce::WgmmaTile<64, 64, 64, 6, 1, 1, 1, 0, 8, 0, 3>;
INST(A6, coalesce::Dtype::bf16, 0)
