// RUN: coalesce-opt %s --coalesce-apply-tile-config | FileCheck %s

// The fallback is the first built-in config legal for the shape: 4-float copies for N = 64.
// CHECK-LABEL: func.func @bias_gelu_64
// CHECK-NEXT: coalesce.fused_matmul bias_gelu ins({{.*}}) bias({{.*}}) outs({{.*}}) {tile = #coalesce.tile<simt, bm = 128, bn = 128, bk = 16, wm = 64, wn = 32, tm = 8, tn = 8, stages = 3, vec = 4, group_m = 8, min_blocks = 2>}
func.func @bias_gelu_64(%a: memref<256x128xf32>, %b: memref<128x64xf32>, %bias: memref<64xf32>, %c: memref<256x64xf32>) {
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<256x128xf32>, memref<128x64xf32>) bias(%bias : memref<64xf32>) outs(%c : memref<256x64xf32>)
  return
}

// The fallback narrows the copies of B to what N allows: 2 floats for N = 30.
// CHECK-LABEL: func.func @n_even
// CHECK-NEXT: coalesce.fused_matmul bias {{.*}} {tile = #coalesce.tile<simt, bm = 128, bn = 128, bk = 16, wm = 64, wn = 32, tm = 8, tn = 8, stages = 3, vec = 2, group_m = 8, min_blocks = 2>}
func.func @n_even(%a: memref<256x128xf32>, %b: memref<128x30xf32>, %bias: memref<30xf32>, %c: memref<256x30xf32>) {
  coalesce.fused_matmul bias ins(%a, %b : memref<256x128xf32>, memref<128x30xf32>) bias(%bias : memref<30xf32>) outs(%c : memref<256x30xf32>)
  return
}

// The fallback's last config copies one float at a time: legal for odd N.
// CHECK-LABEL: func.func @n_odd
// CHECK-NEXT: coalesce.fused_matmul bias_relu {{.*}} {tile = #coalesce.tile<simt, {{.*}}, vec = 1, group_m = 8, min_blocks = 2>}
func.func @n_odd(%a: memref<256x128xf32>, %b: memref<128x31xf32>, %bias: memref<31xf32>, %c: memref<256x31xf32>) {
  coalesce.fused_matmul bias_relu ins(%a, %b : memref<256x128xf32>, memref<128x31xf32>) bias(%bias : memref<31xf32>) outs(%c : memref<256x31xf32>)
  return
}

// A shape unknown at compile time may be any, so it gets the config legal for every shape.
// CHECK-LABEL: func.func @dynamic_shape
// CHECK-NEXT: coalesce.fused_matmul bias_gelu {{.*}} {tile = #coalesce.tile<simt, {{.*}}, vec = 1, group_m = 8, min_blocks = 2>}
func.func @dynamic_shape(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %bias: memref<?xf32>, %c: memref<?x?xf32>) {
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) bias(%bias : memref<?xf32>) outs(%c : memref<?x?xf32>)
  return
}

// A lone matmul becomes the kernel with the empty epilogue, carrying the config.
// CHECK-LABEL: func.func @lone_matmul
// CHECK-NEXT: coalesce.fused_matmul none ins(%{{.*}}, %{{.*}} : memref<256x128xf32>, memref<128x64xf32>) outs(%{{.*}} : memref<256x64xf32>) {tile = #coalesce.tile<simt, {{.*}}, vec = 4, group_m = 8, min_blocks = 2>}
// CHECK-NEXT: return
func.func @lone_matmul(%a: memref<256x128xf32>, %b: memref<128x64xf32>, %c: memref<256x64xf32>) {
  coalesce.matmul ins(%a, %b : memref<256x128xf32>, memref<128x64xf32>) outs(%c : memref<256x64xf32>)
  return
}

// Elementwise ops have no kernel config and stay as they are.
// CHECK-LABEL: func.func @elementwise_untouched
// CHECK-NEXT: coalesce.gelu ins(%{{.*}} : memref<256x64xf32>) outs(%{{.*}} : memref<256x64xf32>)
// CHECK-NEXT: return
func.func @elementwise_untouched(%x: memref<256x64xf32>, %y: memref<256x64xf32>) {
  coalesce.gelu ins(%x : memref<256x64xf32>) outs(%y : memref<256x64xf32>)
  return
}

// A bf16 problem falls back to the first legal built-in config of the first family that
// computes it: the mma family's 128x256 tile (simt computes f32 only).
// CHECK-LABEL: func.func @bf16_falls_back_to_mma
// CHECK-NEXT: coalesce.fused_matmul bias_gelu {{.*}} {tile = #coalesce.tile<mma, bm = 128, bn = 256, bk_bytes = 64, wm = 64, wn = 64, stages = 4, vec_bytes = 16, swizzle = 1, group_m = 8, min_blocks = 1>}
func.func @bf16_falls_back_to_mma(%a: memref<256x128xbf16>, %b: memref<128x64xbf16>, %bias: memref<64xbf16>, %c: memref<256x64xbf16>) {
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<256x128xbf16>, memref<128x64xbf16>) bias(%bias : memref<64xbf16>) outs(%c : memref<256x64xbf16>)
  return
}

// Rows of 60 bytes (N = 30 f16) take the mma fallback with 4-byte copies.
// CHECK-LABEL: func.func @f16_narrow_rows
// CHECK-NEXT: coalesce.fused_matmul bias {{.*}} {tile = #coalesce.tile<mma, {{.*}}, vec_bytes = 4, swizzle = 1, group_m = 8, min_blocks = 1>}
func.func @f16_narrow_rows(%a: memref<256x128xf16>, %b: memref<128x30xf16>, %bias: memref<30xf16>, %c: memref<256x30xf16>) {
  coalesce.fused_matmul bias ins(%a, %b : memref<256x128xf16>, memref<128x30xf16>) bias(%bias : memref<30xf16>) outs(%c : memref<256x30xf16>)
  return
}
