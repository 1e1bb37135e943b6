// RUN: coalesce-opt %s --split-input-file --coalesce-apply-tile-config | FileCheck %s

// Every shape has a built-in config on the H200 in every dtype (issue 39): rows of an odd
// number of bf16/f16 take mma's 2-byte plain loads, and a matrix of 2^31 elements or more takes
// simt's 64-bit offsets. Before, the first two problems below had no config at all, and the last
// but one was refused by the ops' verifier.

// A 7x9x13 f16 problem: mma's 2-byte copies.
// CHECK-LABEL: func.func @f16_7x9x13
// CHECK-NEXT: coalesce.fused_matmul bias_gelu {{.*}} {tile = #coalesce.tile<mma, {{.*}}, vec_bytes = 2, {{.*}}>}
func.func @f16_7x9x13(%a: memref<7x13xf16>, %b: memref<13x9xf16>, %bias: memref<9xf16>, %c: memref<7x9xf16>) {
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<7x13xf16>, memref<13x9xf16>) bias(%bias : memref<9xf16>) outs(%c : memref<7x9xf16>)
  return
}

// -----

// The 1x1x1 bf16 problem: the same.
// CHECK-LABEL: func.func @bf16_1x1x1
// CHECK-NEXT: coalesce.fused_matmul bias_gelu {{.*}} {tile = #coalesce.tile<mma, {{.*}}, vec_bytes = 2, {{.*}}>}
func.func @bf16_1x1x1(%a: memref<1x1xbf16>, %b: memref<1x1xbf16>, %bias: memref<1xbf16>, %c: memref<1x1xbf16>) {
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<1x1xbf16>, memref<1x1xbf16>) bias(%bias : memref<1xbf16>) outs(%c : memref<1x1xbf16>)
  return
}

// -----

// 4095x4097x4100 bf16: N = 4097 is odd, so 2-byte copies again.
// CHECK-LABEL: func.func @bf16_unaligned
// CHECK-NEXT: coalesce.fused_matmul bias {{.*}} {tile = #coalesce.tile<mma, {{.*}}, vec_bytes = 2, {{.*}}>}
func.func @bf16_unaligned(%a: memref<4095x4100xbf16>, %b: memref<4100x4097xbf16>, %bias: memref<4097xbf16>, %c: memref<4095x4097xbf16>) {
  coalesce.fused_matmul bias ins(%a, %b : memref<4095x4100xbf16>, memref<4100x4097xbf16>) bias(%bias : memref<4097xbf16>) outs(%c : memref<4095x4097xbf16>)
  return
}

// -----

// 1000x3001x777 tf32: 4-byte copies of f32 storage take any row.
// CHECK-LABEL: func.func @tf32_unaligned
// CHECK-NEXT: coalesce.fused_matmul none {{.*}} tile = #coalesce.tile<mma, {{.*}}, vec_bytes = 4, {{.*}}>}
func.func @tf32_unaligned(%a: memref<1000x777xf32>, %b: memref<777x3001xf32>, %c: memref<1000x3001xf32>) {
  coalesce.matmul ins(%a, %b : memref<1000x777xf32>, memref<777x3001xf32>) outs(%c : memref<1000x3001xf32>) {math = #coalesce.math<tensorfloat32>}
  return
}

// -----

// 131072x131072x8192 f32: C has 2^34 elements, so simt's built-in config takes 64-bit offsets.
// CHECK-LABEL: func.func @f32_huge
// CHECK-NEXT: coalesce.fused_matmul bias {{.*}} {tile = #coalesce.tile<simt, {{.*}}, index_bits = 64>}
func.func @f32_huge(%a: memref<131072x8192xf32>, %b: memref<8192x131072xf32>, %bias: memref<131072xf32>, %c: memref<131072x131072xf32>) {
  coalesce.fused_matmul bias ins(%a, %b : memref<131072x8192xf32>, memref<8192x131072xf32>) bias(%bias : memref<131072xf32>) outs(%c : memref<131072x131072xf32>)
  return
}

// -----

// 4096x4096x4096 f32 keeps 32-bit offsets: the tile spells no index_bits.
// CHECK-LABEL: func.func @f32_common
// CHECK-NEXT: coalesce.fused_matmul bias {{.*}} {tile = #coalesce.tile<simt, {{.*}}min_blocks = {{[0-9]+}}>}
func.func @f32_common(%a: memref<4096x4096xf32>, %b: memref<4096x4096xf32>, %bias: memref<4096xf32>, %c: memref<4096x4096xf32>) {
  coalesce.fused_matmul bias ins(%a, %b : memref<4096x4096xf32>, memref<4096x4096xf32>) bias(%bias : memref<4096xf32>) outs(%c : memref<4096x4096xf32>)
  return
}

// -----

// The fallback takes the first built-in config whose family runs the epilogue (issue 40 item 5):
// an f32 gated op skips simt, which stores no gate, for mma (also for a shape unknown at compile
// time); a residual op takes the first family whose kernels read the residual, mma, at a decode
// size and at 1024 (before mma read one, gemv took the first and no family the second).
// CHECK-LABEL: func.func @gated_f32
// CHECK-NEXT: coalesce.fused_matmul swiglu {{.*}} {tile = #coalesce.tile<mma,
// CHECK-NEXT: coalesce.fused_matmul geglu {{.*}} {tile = #coalesce.tile<mma,
func.func @gated_f32(%a: memref<256x128xf32>, %b: memref<128x256xf32>, %c: memref<256x128xf32>,
                     %da: memref<?x?xf32>, %db: memref<?x?xf32>, %dc: memref<?x?xf32>) {
  coalesce.fused_matmul swiglu ins(%a, %b : memref<256x128xf32>, memref<128x256xf32>) outs(%c : memref<256x128xf32>)
  coalesce.fused_matmul geglu ins(%da, %db : memref<?x?xf32>, memref<?x?xf32>) outs(%dc : memref<?x?xf32>)
  return
}

// CHECK-LABEL: func.func @residual_decode_bf16
// CHECK-NEXT: coalesce.fused_matmul bias_gelu_residual {{.*}} residual({{.*}}) {{.*}} {tile = #coalesce.tile<mma,
func.func @residual_decode_bf16(%a: memref<4x128xbf16>, %b: memref<128x256xbf16>, %bias: memref<256xbf16>, %r: memref<4x256xbf16>, %c: memref<4x256xbf16>) {
  coalesce.fused_matmul bias_gelu_residual ins(%a, %b : memref<4x128xbf16>, memref<128x256xbf16>) bias(%bias : memref<256xbf16>) residual(%r : memref<4x256xbf16>) outs(%c : memref<4x256xbf16>)
  return
}

// CHECK-LABEL: func.func @residual_1024
// CHECK-NEXT: coalesce.fused_matmul bias_gelu_residual {{.*}} residual({{.*}}) {{.*}} {tile = #coalesce.tile<mma,
func.func @residual_1024(%a: memref<1024x1024xbf16>, %b: memref<1024x1024xbf16>, %bias: memref<1024xbf16>, %r: memref<1024x1024xbf16>, %c: memref<1024x1024xbf16>) {
  coalesce.fused_matmul bias_gelu_residual ins(%a, %b : memref<1024x1024xbf16>, memref<1024x1024xbf16>) bias(%bias : memref<1024xbf16>) residual(%r : memref<1024x1024xbf16>) outs(%c : memref<1024x1024xbf16>)
  return
}
