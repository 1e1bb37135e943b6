// RUN: coalesce-opt %s --coalesce-fuse-epilogue --coalesce-apply-tile-config=config=simt_f32_bm64_bn64_bk16_wm32_wn32_tm4_tn8_s3_v4_g8_o4_bias_relu | coalesce-translate --mlir-to-cuda | FileCheck %s

// Unfused IR through the tuner's pipeline (fuse-epilogue, apply-tile-config, emission) gives the
// one unit of the fused kernel with the config asked for.
// CHECK: #include "kernels/simt/gemm.cuh"
// CHECK-EMPTY:
// CHECK-NEXT: COALESCE_DEFINE_SIMT_KERNEL(simt_f32_bm64_bn64_bk16_wm32_wn32_tm4_tn8_s3_v4_g8_o4_bias_relu, coalesce::SimtTile<64, 64, 16, 32, 32, 4, 8, 3, 4, 8, 4>, coalesce::EpilogueFor<coalesce::Epilogue::bias_relu>)
// CHECK-NOT: COALESCE
func.func @problem(%a: memref<256x128xf32>, %b: memref<128x64xf32>, %bias: memref<64xf32>, %c: memref<256x64xf32>) {
  %t = memref.alloc() : memref<256x64xf32>
  %u = memref.alloc() : memref<256x64xf32>
  coalesce.matmul ins(%a, %b : memref<256x128xf32>, memref<128x64xf32>) outs(%t : memref<256x64xf32>)
  coalesce.bias_add ins(%t, %bias : memref<256x64xf32>, memref<64xf32>) outs(%u : memref<256x64xf32>)
  coalesce.relu ins(%u : memref<256x64xf32>) outs(%c : memref<256x64xf32>)
  memref.dealloc %t : memref<256x64xf32>
  memref.dealloc %u : memref<256x64xf32>
  return
}
