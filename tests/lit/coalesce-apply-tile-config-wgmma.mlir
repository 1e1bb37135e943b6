// RUN: coalesce-opt %s --split-input-file --verify-diagnostics --coalesce-apply-tile-config=config=wgmma_bf16_bm128_bn256_bk64_s4_wg2_cm1_cn1_p1_g8_ts0_bias_gelu | FileCheck %s

// A wgmma config goes on a 16-bit fused op on sm_90a (the default target).
// CHECK-LABEL: func.func @bf16_on_sm90a
// CHECK-NEXT: coalesce.fused_matmul bias_gelu ins({{.*}}) bias({{.*}}) outs({{.*}}) {tile = #coalesce.tile<wgmma, bm = 128, bn = 256, bk = 64, stages = 4, consumers = 2, cluster_m = 1, cluster_n = 1, persistent = 1, group_m = 8, tma_store = 0>}
func.func @bf16_on_sm90a(%a: memref<256x128xbf16>, %b: memref<128x256xbf16>, %bias: memref<256xbf16>, %c: memref<256x256xbf16>) {
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<256x128xbf16>, memref<128x256xbf16>) bias(%bias : memref<256xbf16>) outs(%c : memref<256x256xbf16>)
  return
}

// -----

// Without the architecture-specific target there is no wgmma: the family refuses sm_90.
func.func @bf16_on_sm90(%a: memref<256x128xbf16>, %b: memref<128x256xbf16>, %bias: memref<256xbf16>, %c: memref<256x256xbf16>) {
  // expected-error @+1 {{config 'wgmma_bf16_bm128_bn256_bk64_s4_wg2_cm1_cn1_p1_g8_ts0_bias_gelu' is not legal for 256x256x128 bf16 bias_gelu on sm_90 (arch): the wgmma family needs sm_90a}}
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<256x128xbf16>, memref<128x256xbf16>) bias(%bias : memref<256xbf16>) outs(%c : memref<256x256xbf16>)
      {target = #coalesce.target<arch = "sm_90", smem_per_block = 232448, regs_per_sm = 65536>}
  return
}

// -----

// TMA needs 16-byte row strides, and N = 252 bf16 elements is 504 bytes a row: the launch runs
// the problem on copies padded to N = 256 (Staging, kernels/core/family.hpp), so the config takes it.
// CHECK-LABEL: func.func @n_not_multiple_of_8
// CHECK-NEXT: coalesce.fused_matmul bias_gelu {{.*}} {tile = #coalesce.tile<wgmma, bm = 128, bn = 256
func.func @n_not_multiple_of_8(%a: memref<256x128xbf16>, %b: memref<128x252xbf16>, %bias: memref<252xbf16>, %c: memref<256x252xbf16>) {
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<256x128xbf16>, memref<128x252xbf16>) bias(%bias : memref<252xbf16>) outs(%c : memref<256x252xbf16>)
  return
}

// -----

// Clusters of two blocks are wgmma configs (2x1, 1x2); a 2x2 cluster is not.
func.func @cluster_2x2(%a: memref<256x128xbf16>, %b: memref<128x256xbf16>, %c: memref<256x256xbf16>) {
  coalesce.fused_matmul none ins(%a, %b : memref<256x128xbf16>, memref<128x256xbf16>) outs(%c : memref<256x256xbf16>)
      // expected-error @+1 {{invalid wgmma tile config (shape): the cluster must be 1x1, 2x1 or 1x2 (two blocks at most)}}
      {tile = #coalesce.tile<wgmma, bm = 128, bn = 256, bk = 64, stages = 4, consumers = 2, cluster_m = 2, cluster_n = 2, persistent = 0, group_m = 8, tma_store = 0>}
  return
}
