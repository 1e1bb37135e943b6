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
