#include "kernels/mma/gemm.cuh"
COALESCE_DEFINE_MMA_KERNEL(k_tf32, coalesce::MmaTile<256, 128, 128, 64, 64, 3, 16, 1, 8, 1>, coalesce::GemmOf<coalesce::Dtype::tf32>, coalesce::EpilogueFor<coalesce::Epilogue::bias_gelu>)
COALESCE_DEFINE_MMA_KERNEL(k_tf32b, coalesce::MmaTile<128, 128, 128, 32, 64, 3, 16, 0, 8, 1>, coalesce::GemmOf<coalesce::Dtype::tf32>, coalesce::EpilogueFor<coalesce::Epilogue::bias>)
COALESCE_DEFINE_MMA_KERNEL(k_bf16, coalesce::MmaTile<128, 256, 128, 64, 64, 3, 16, 1, 8, 1>, coalesce::GemmOf<coalesce::Dtype::bf16>, coalesce::EpilogueFor<coalesce::Epilogue::bias_gelu>)
COALESCE_DEFINE_MMA_KERNEL(k_tf32s, coalesce::MmaTile<64, 128, 128, 32, 64, 4, 16, 1, 8, 1, 2>, coalesce::GemmOf<coalesce::Dtype::tf32>, coalesce::EpilogueFor<coalesce::Epilogue::bias_gelu>)
