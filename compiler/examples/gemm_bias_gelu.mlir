// The end-to-end example: C = gelu(A B + bias) at 4096 x 4096 x 4096 in f32, written unfused in
// the coalesce dialect. compiler/examples/CMakeLists.txt compiles it twice: as written (three
// runtime calls and two device temporaries) and through coalesce-fuse-epilogue and
// coalesce-apply-tile-config (one fused kernel). gemm_bias_gelu_main.cpp calls it through the
// C interface as _mlir_ciface_gemm_bias_gelu; its kSize must match the shapes here.
func.func @gemm_bias_gelu(%a: memref<4096x4096xf32>, %b: memref<4096x4096xf32>,
                          %bias: memref<4096xf32>, %c: memref<4096x4096xf32>)
    attributes {llvm.emit_c_interface} {
  %product = memref.alloc() : memref<4096x4096xf32>
  %biased = memref.alloc() : memref<4096x4096xf32>
  coalesce.matmul ins(%a, %b : memref<4096x4096xf32>, memref<4096x4096xf32>)
                  outs(%product : memref<4096x4096xf32>)
  coalesce.bias_add ins(%product, %bias : memref<4096x4096xf32>, memref<4096xf32>)
                    outs(%biased : memref<4096x4096xf32>)
  coalesce.gelu ins(%biased : memref<4096x4096xf32>) outs(%c : memref<4096x4096xf32>)
  memref.dealloc %product : memref<4096x4096xf32>
  memref.dealloc %biased : memref<4096x4096xf32>
  return
}
