// RUN: coalesce-opt %s | coalesce-opt | FileCheck %s

// Round trip: matmul prints back in its custom form.
// CHECK-LABEL: func.func @matmul_round_trip
func.func @matmul_round_trip(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %c: memref<64x16xf32>) {
  // CHECK-NEXT: coalesce.matmul ins(%{{.*}}, %{{.*}} : memref<64x32xf32>, memref<32x16xf32>) outs(%{{.*}} : memref<64x16xf32>)
  coalesce.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%c : memref<64x16xf32>)
  return
}
