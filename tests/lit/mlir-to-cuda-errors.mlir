// RUN: coalesce-translate --mlir-to-cuda %s --split-input-file -verify-diagnostics

// A fused op names its kernel only once it has a config.
func.func @untiled(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %c: memref<64x16xf32>) {
  // expected-error @+1 {{has no tile config to instantiate its kernel with; run coalesce-apply-tile-config first}}
  coalesce.fused_matmul none ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%c : memref<64x16xf32>)
  return
}

// -----

// Without a fused op there is no kernel to emit.
// expected-error @below {{has no coalesce.fused_matmul to emit a CUDA kernel for}}
module {
  func.func @unfused_only(%x: memref<64x16xf32>, %y: memref<64x16xf32>) {
    coalesce.relu ins(%x : memref<64x16xf32>) outs(%y : memref<64x16xf32>)
    return
  }
}
