// RUN: coalesce-opt %s --coalesce-apply-tile-config=config=simt_f32_bm64_bn64_bk16_wm32_wn32_tm4_tn8_s3_v4_g8_o4_bias_gelu | FileCheck %s

// The config option's tile goes on a fused op of its dtype and epilogue.
// CHECK-LABEL: func.func @bias_gelu_64
// CHECK-NEXT: coalesce.fused_matmul bias_gelu ins({{.*}}) bias({{.*}}) outs({{.*}}) {tile = #coalesce.tile<simt, bm = 64, bn = 64, bk = 16, wm = 32, wn = 32, tm = 4, tn = 8, stages = 3, vec = 4, group_m = 8, min_blocks = 4>}
func.func @bias_gelu_64(%a: memref<256x128xf32>, %b: memref<128x64xf32>, %bias: memref<64xf32>, %c: memref<256x64xf32>) {
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<256x128xf32>, memref<128x64xf32>) bias(%bias : memref<64xf32>) outs(%c : memref<256x64xf32>)
  return
}

// A fused op that already has a tile keeps it.
// CHECK-LABEL: func.func @already_tiled
// CHECK-NEXT: coalesce.fused_matmul bias_gelu {{.*}} {tile = #coalesce.tile<simt, bm = 128, bn = 128, bk = 16, wm = 64, wn = 32, tm = 8, tn = 8, stages = 4, vec = 4, group_m = 8, min_blocks = 2>}
func.func @already_tiled(%a: memref<256x128xf32>, %b: memref<128x64xf32>, %bias: memref<64xf32>, %c: memref<256x64xf32>) {
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<256x128xf32>, memref<128x64xf32>) bias(%bias : memref<64xf32>) outs(%c : memref<256x64xf32>)
      {tile = #coalesce.tile<simt, bm = 128, bn = 128, bk = 16, wm = 64, wn = 32, tm = 8, tn = 8, stages = 4, vec = 4, group_m = 8, min_blocks = 2>}
  return
}
