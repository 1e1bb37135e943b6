// A transformer MLP block in f16: Y = gelu(X·W1 + b1)·W2 + b2 with GPT-2 XL's sizes (1600 -> 6400
// -> 1600) at 4096 tokens, written as a user would, one op per step (PyTorch eager's sequence).
// compiler/examples/CMakeLists.txt compiles it: coalesce-fuse-epilogue folds each bias and the
// GELU into its GEMM, coalesce-apply-tile-config tiles both fused GEMMs (from the tuning database
// when given one), coalesce-translate --mlir-to-cuda-host compiles their kernels ahead of time,
// and coalesce-lower-to-library turns the rest into runtime calls; the hidden activation H stays
// a f16 device buffer. mlp_main.cu calls it as _mlir_ciface_mlp_f16; its sizes must match these.
func.func @mlp_f16(%x: memref<4096x1600xf16>, %w1: memref<1600x6400xf16>, %b1: memref<6400xf16>,
                   %w2: memref<6400x1600xf16>, %b2: memref<1600xf16>, %y: memref<4096x1600xf16>)
    attributes {llvm.emit_c_interface} {
  %up = memref.alloc() : memref<4096x6400xf16>
  %up_biased = memref.alloc() : memref<4096x6400xf16>
  %h = memref.alloc() : memref<4096x6400xf16>
  %down = memref.alloc() : memref<4096x1600xf16>
  coalesce.matmul ins(%x, %w1 : memref<4096x1600xf16>, memref<1600x6400xf16>) outs(%up : memref<4096x6400xf16>)
  coalesce.bias_add ins(%up, %b1 : memref<4096x6400xf16>, memref<6400xf16>) outs(%up_biased : memref<4096x6400xf16>)
  coalesce.gelu ins(%up_biased : memref<4096x6400xf16>) outs(%h : memref<4096x6400xf16>)
  coalesce.matmul ins(%h, %w2 : memref<4096x6400xf16>, memref<6400x1600xf16>) outs(%down : memref<4096x1600xf16>)
  coalesce.bias_add ins(%down, %b2 : memref<4096x1600xf16>, memref<1600xf16>) outs(%y : memref<4096x1600xf16>)
  memref.dealloc %up : memref<4096x6400xf16>
  memref.dealloc %up_biased : memref<4096x6400xf16>
  memref.dealloc %h : memref<4096x6400xf16>
  memref.dealloc %down : memref<4096x1600xf16>
  return
}
