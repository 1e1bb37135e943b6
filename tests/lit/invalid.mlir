// RUN: coalesce-opt %s -split-input-file -verify-diagnostics

// K of A must equal the rows of B.
func.func @matmul_k_mismatch(%a: memref<64x32xf32>, %b: memref<31x16xf32>, %c: memref<64x16xf32>) {
  // expected-error @+1 {{expects A's columns (K = 32) to equal B's rows (31)}}
  coalesce.matmul ins(%a, %b : memref<64x32xf32>, memref<31x16xf32>) outs(%c : memref<64x16xf32>)
  return
}

// -----

// Element types must agree.
func.func @matmul_dtype_mismatch(%a: memref<64x32xf32>, %b: memref<32x16xf16>, %c: memref<64x16xf32>) {
  // expected-error @+1 {{expects A, B and C to have the same element type}}
  coalesce.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf16>) outs(%c : memref<64x16xf32>)
  return
}
