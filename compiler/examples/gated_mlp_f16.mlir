// Llama-3-8B's gated MLP in f16: Y = (silu(X·Wg) ⊙ X·Wu)·Wd (4096 -> 2 x 14336 -> 4096) at 4096
// tokens, written as a framework runs it: one GEMM over the gate and up weights (Wgu, interleaved
// by column: gate j at column 2j, up j at 2j + 1), the act-and-multiply (coalesce.glu), the down
// GEMM. compiler/examples/CMakeLists.txt compiles it: coalesce-fuse-epilogue folds the glu into
// the first GEMM (the swiglu epilogue: one kernel writes H = silu(gate) · up, and the merged
// 4096 x 28672 product is never stored), coalesce-apply-tile-config tiles both GEMMs,
// coalesce-translate --mlir-to-cuda-host compiles their kernels ahead of time and
// coalesce-lower-to-library turns the rest into runtime calls. gated_mlp_main.cu calls it as
// _mlir_ciface_gated_mlp_f16; its sizes must match these.
func.func @gated_mlp_f16(%x: memref<4096x4096xf16>, %wgu: memref<4096x28672xf16>, %wd: memref<14336x4096xf16>,
                          %y: memref<4096x4096xf16>) attributes {llvm.emit_c_interface} {
  %gu = memref.alloc() : memref<4096x28672xf16>
  %h = memref.alloc() : memref<4096x14336xf16>
  coalesce.matmul ins(%x, %wgu : memref<4096x4096xf16>, memref<4096x28672xf16>) outs(%gu : memref<4096x28672xf16>)
  coalesce.glu silu ins(%gu : memref<4096x28672xf16>) outs(%h : memref<4096x14336xf16>)
  coalesce.matmul ins(%h, %wd : memref<4096x14336xf16>, memref<14336x4096xf16>) outs(%y : memref<4096x4096xf16>)
  memref.dealloc %gu : memref<4096x28672xf16>
  memref.dealloc %h : memref<4096x14336xf16>
  return
}
