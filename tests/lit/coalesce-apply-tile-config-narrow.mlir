// The deep rings and the narrow tile (wgmma BN = 32, B in the 64-byte swizzle) through the
// compiler: applied by name, emitted as the kernel template with the config's tile, and a narrow
// config with a schedule the tile does not take refused with the rule's sentence.
// RUN: coalesce-opt %s --split-input-file --verify-diagnostics --coalesce-apply-tile-config=config=wgmma_bf16_bm64_bn32_bk64_s16_wg1_cm1_cn2_p0_g8_ts0_bias_gelu | FileCheck %s --check-prefix=NARROW
// RUN: coalesce-opt %s --split-input-file --verify-diagnostics --coalesce-apply-tile-config=config=wgmma_bf16_bm64_bn32_bk64_s16_wg1_cm1_cn2_p0_g8_ts0_bias_gelu | coalesce-translate --split-input-file --mlir-to-cuda | FileCheck %s --check-prefix=NARROW-CUDA
// RUN: coalesce-opt %s --split-input-file --verify-diagnostics --coalesce-apply-tile-config=config=wgmma_bf16_bm128_bn64_bk64_s8_wg2_cm1_cn1_p1_g8_ts1_bias_gelu | FileCheck %s --check-prefix=DEEP
// RUN: not coalesce-opt %s --split-input-file --coalesce-apply-tile-config=config=wgmma_bf16_bm64_bn32_bk64_s16_wg1_cm1_cn1_p0_g8_ts1_bias_gelu 2>&1 | FileCheck %s --check-prefix=REFUSED

// NARROW-LABEL: func.func @skinny
// NARROW-NEXT: coalesce.fused_matmul bias_gelu {{.*}} {tile = #coalesce.tile<wgmma, bm = 64, bn = 32, bk = 64, stages = 16, consumers = 1, cluster_m = 1, cluster_n = 2, persistent = 0, group_m = 8, tma_store = 0>}
// NARROW-CUDA: COALESCE_DEFINE_WGMMA_KERNEL(wgmma_bf16_bm64_bn32_bk64_s16_wg1_cm1_cn2_p0_g8_ts0_bias_gelu, coalesce::Dtype::bf16, coalesce::WgmmaTile<64, 32, 64, 16, 1, 1, 2, 0, 8, 0>, coalesce::EpilogueFor<coalesce::Epilogue::bias_gelu>)
// DEEP-LABEL: func.func @skinny
// DEEP-NEXT: coalesce.fused_matmul bias_gelu {{.*}} {tile = #coalesce.tile<wgmma, bm = 128, bn = 64, bk = 64, stages = 8, consumers = 2, cluster_m = 1, cluster_n = 1, persistent = 1, group_m = 8, tma_store = 1>}
// REFUSED: config 'wgmma_bf16_bm64_bn32_bk64_s16_wg1_cm1_cn1_p0_g8_ts1_bias_gelu' is not legal for 64x4096x4096 bf16 bias_gelu on sm_90a (shape): BN = 32 (a 64-byte swizzled B) takes only tma_store = 0
func.func @skinny(%a: memref<64x4096xbf16>, %b: memref<4096x4096xbf16>, %bias: memref<4096xbf16>, %c: memref<64x4096xbf16>) {
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<64x4096xbf16>, memref<4096x4096xbf16>) bias(%bias : memref<4096xbf16>) outs(%c : memref<64x4096xbf16>)
  return
}
