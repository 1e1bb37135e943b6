// RUN: coalesce-opt %s --coalesce-fuse-epilogue --coalesce-apply-tile-config --coalesce-lower-to-library | FileCheck %s --check-prefix=PIPELINE

// The bf16 MLP block as a user writes it, through the whole pipeline: both GEMMs fuse their
// epilogues, get a tensor-core config (the built-in fallback here; mma before any database), and
// the hidden activation, used by the two fused kernels only, is a bf16 device buffer.
// PIPELINE-LABEL: func.func @mlp_bf16
// PIPELINE: %[[H:.*]] = call @coalesce_alloc_2d_bf16(%{{.*}}, %{{.*}}) : (index, index) -> memref<?x?xbf16>
// PIPELINE: call @coalesce_fused_matmul_{{(mma|wgmma)}}_bf16_{{.*}}_bias_gelu({{.*}}) : (memref<?x?xbf16>, memref<?x?xbf16>, memref<?xbf16>, memref<?x?xbf16>) -> ()
// PIPELINE: call @coalesce_fused_matmul_{{(mma|wgmma)}}_bf16_{{.*}}_bias({{.*}}) : (memref<?x?xbf16>, memref<?x?xbf16>, memref<?xbf16>, memref<?x?xbf16>) -> ()
// PIPELINE: call @coalesce_free_2d_bf16(%[[H]]) : (memref<?x?xbf16>) -> ()
// PIPELINE-NOT: coalesce.
func.func @mlp_bf16(%x: memref<256x128xbf16>, %w1: memref<128x512xbf16>, %b1: memref<512xbf16>,
                    %w2: memref<512x128xbf16>, %b2: memref<128xbf16>, %y: memref<256x128xbf16>) {
  %p1 = memref.alloc() : memref<256x512xbf16>
  %h0 = memref.alloc() : memref<256x512xbf16>
  %h = memref.alloc() : memref<256x512xbf16>
  %p2 = memref.alloc() : memref<256x128xbf16>
  coalesce.matmul ins(%x, %w1 : memref<256x128xbf16>, memref<128x512xbf16>) outs(%p1 : memref<256x512xbf16>)
  coalesce.bias_add ins(%p1, %b1 : memref<256x512xbf16>, memref<512xbf16>) outs(%h0 : memref<256x512xbf16>)
  coalesce.gelu ins(%h0 : memref<256x512xbf16>) outs(%h : memref<256x512xbf16>)
  coalesce.matmul ins(%h, %w2 : memref<256x512xbf16>, memref<512x128xbf16>) outs(%p2 : memref<256x128xbf16>)
  coalesce.bias_add ins(%p2, %b2 : memref<256x128xbf16>, memref<128xbf16>) outs(%y : memref<256x128xbf16>)
  memref.dealloc %p1 : memref<256x512xbf16>
  memref.dealloc %h0 : memref<256x512xbf16>
  memref.dealloc %h : memref<256x512xbf16>
  memref.dealloc %p2 : memref<256x128xbf16>
  return
}

// The gated MLP of Llama as a user writes it (the merged gate/up GEMM, the act-and-multiply, the
// down GEMM), at 256 tokens: the first GEMM and the glu fuse into one swiglu kernel of a family
// that stores the gate, writing H of N/2 columns; the M x 2I product is never allocated.
// PIPELINE-LABEL: func.func @gated_mlp_bf16
// PIPELINE: %[[H:.*]] = call @coalesce_alloc_2d_bf16(%{{.*}}, %{{.*}}) : (index, index) -> memref<?x?xbf16>
// PIPELINE-NOT: coalesce_alloc
// PIPELINE: call @coalesce_fused_matmul_{{(mma|wgmma)}}_bf16_{{.*}}_swiglu({{.*}}) : (memref<?x?xbf16>, memref<?x?xbf16>, memref<?x?xbf16>) -> ()
// PIPELINE: call @coalesce_fused_matmul_{{(mma|wgmma)}}_bf16_{{.*}}_none({{.*}}) : (memref<?x?xbf16>, memref<?x?xbf16>, memref<?x?xbf16>) -> ()
// PIPELINE: call @coalesce_free_2d_bf16(%[[H]]) : (memref<?x?xbf16>) -> ()
// PIPELINE-NOT: coalesce.
func.func @gated_mlp_bf16(%x: memref<256x128xbf16>, %wgu: memref<128x512xbf16>, %wd: memref<256x128xbf16>,
                          %y: memref<256x128xbf16>) {
  %gu = memref.alloc() : memref<256x512xbf16>
  %h = memref.alloc() : memref<256x256xbf16>
  coalesce.matmul ins(%x, %wgu : memref<256x128xbf16>, memref<128x512xbf16>) outs(%gu : memref<256x512xbf16>)
  coalesce.glu silu ins(%gu : memref<256x512xbf16>) outs(%h : memref<256x256xbf16>)
  coalesce.matmul ins(%h, %wd : memref<256x256xbf16>, memref<256x128xbf16>) outs(%y : memref<256x128xbf16>)
  memref.dealloc %gu : memref<256x512xbf16>
  memref.dealloc %h : memref<256x256xbf16>
  return
}

// A decode step's projection with the residual connection, y = x + gelu(x W + b), at 4 tokens:
// one bias_gelu_residual kernel (the fallback's first family whose kernels read the residual,
// mma; a tuning database's gemv row where it has one) and no temporary.
// PIPELINE-LABEL: func.func @residual_decode_bf16
// PIPELINE-NOT: coalesce_alloc
// PIPELINE: call @coalesce_fused_matmul_mma_bf16_{{.*}}_bias_gelu_residual({{.*}}) : (memref<?x?xbf16>, memref<?x?xbf16>, memref<?xbf16>, memref<?x?xbf16>, memref<?x?xbf16>) -> ()
// PIPELINE-NOT: coalesce.
func.func @residual_decode_bf16(%x: memref<4x128xbf16>, %w: memref<128x128xbf16>, %b: memref<128xbf16>,
                                %y: memref<4x128xbf16>) {
  %p = memref.alloc() : memref<4x128xbf16>
  coalesce.matmul ins(%x, %w : memref<4x128xbf16>, memref<128x128xbf16>) outs(%p : memref<4x128xbf16>)
  coalesce.bias_add ins(%p, %b : memref<4x128xbf16>, memref<128xbf16>) outs(%p : memref<4x128xbf16>)
  coalesce.gelu ins(%p : memref<4x128xbf16>) outs(%p : memref<4x128xbf16>)
  coalesce.add ins(%x, %p : memref<4x128xbf16>, memref<4x128xbf16>) outs(%y : memref<4x128xbf16>)
  memref.dealloc %p : memref<4x128xbf16>
  return
}
