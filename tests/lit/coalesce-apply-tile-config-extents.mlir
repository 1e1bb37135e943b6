// RUN: coalesce-opt %s --coalesce-apply-tile-config | FileCheck %s
// Extents up to kMaxExtent = 2^20 are carried exactly through tiling (the refusals above it are
// invalid-extents.mlir).

// M at the limit (2^20) is accepted and tiled for its own shape, its type unchanged.
// CHECK-LABEL: func.func @m_at_limit
// CHECK-NEXT: coalesce.fused_matmul bias ins(%{{.*}}, %{{.*}} : memref<1048576x64xf32>, memref<64x64xf32>) bias(%{{.*}} : memref<64xf32>) outs(%{{.*}} : memref<1048576x64xf32>) {tile = #coalesce.tile<simt, {{.*}}vec = 4{{.*}}>}
func.func @m_at_limit(%a: memref<1048576x64xf32>, %b: memref<64x64xf32>, %bias: memref<64xf32>, %c: memref<1048576x64xf32>) {
  coalesce.fused_matmul bias ins(%a, %b : memref<1048576x64xf32>, memref<64x64xf32>) bias(%bias : memref<64xf32>) outs(%c : memref<1048576x64xf32>)
  return
}

// N at the limit with a K of 1 (C of 2^30 elements, under 2^31) is accepted.
// CHECK-LABEL: func.func @n_at_limit
// CHECK-NEXT: coalesce.fused_matmul none ins(%{{.*}}, %{{.*}} : memref<1024x1xf32>, memref<1x1048576xf32>) outs(%{{.*}} : memref<1024x1048576xf32>) {tile = #coalesce.tile<
func.func @n_at_limit(%a: memref<1024x1xf32>, %b: memref<1x1048576xf32>, %c: memref<1024x1048576xf32>) {
  coalesce.matmul ins(%a, %b : memref<1024x1xf32>, memref<1x1048576xf32>) outs(%c : memref<1024x1048576xf32>)
  return
}
