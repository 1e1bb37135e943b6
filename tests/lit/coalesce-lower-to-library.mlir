// RUN: coalesce-opt %s --split-input-file --coalesce-lower-to-library | FileCheck %s

// Each unfused op calls its entry point with dynamically shaped memrefs; temporaries used only
// by coalesce ops move to the device allocator; declarations carry the C interface.
// CHECK-LABEL: func.func @unfused
// CHECK-SAME: (%[[A:.*]]: memref<64x32xf32>, %[[B:.*]]: memref<32x16xf32>, %[[BIAS:.*]]: memref<16xf32>, %[[C:.*]]: memref<64x16xf32>)
// CHECK-NEXT: %[[M:.*]] = arith.constant 64 : index
// CHECK-NEXT: %[[N:.*]] = arith.constant 16 : index
// CHECK-NEXT: %[[RAW:.*]] = call @coalesce_alloc_2d_f32(%[[M]], %[[N]]) : (index, index) -> memref<?x?xf32>
// CHECK-NEXT: %[[T:.*]] = memref.cast %[[RAW]] : memref<?x?xf32> to memref<64x16xf32>
// CHECK-NEXT: %[[A0:.*]] = memref.cast %[[A]] : memref<64x32xf32> to memref<?x?xf32>
// CHECK-NEXT: %[[B0:.*]] = memref.cast %[[B]] : memref<32x16xf32> to memref<?x?xf32>
// CHECK-NEXT: %[[T0:.*]] = memref.cast %[[T]] : memref<64x16xf32> to memref<?x?xf32>
// CHECK-NEXT: call @coalesce_matmul_f32(%[[A0]], %[[B0]], %[[T0]]) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
// CHECK-NEXT: %[[T1:.*]] = memref.cast %[[T]] : memref<64x16xf32> to memref<?x?xf32>
// CHECK-NEXT: %[[BIAS1:.*]] = memref.cast %[[BIAS]] : memref<16xf32> to memref<?xf32>
// CHECK-NEXT: %[[T2:.*]] = memref.cast %[[T]] : memref<64x16xf32> to memref<?x?xf32>
// CHECK-NEXT: call @coalesce_bias_add_f32(%[[T1]], %[[BIAS1]], %[[T2]]) : (memref<?x?xf32>, memref<?xf32>, memref<?x?xf32>) -> ()
// CHECK-NEXT: %[[T3:.*]] = memref.cast %[[T]] : memref<64x16xf32> to memref<?x?xf32>
// CHECK-NEXT: %[[C3:.*]] = memref.cast %[[C]] : memref<64x16xf32> to memref<?x?xf32>
// CHECK-NEXT: call @coalesce_relu_f32(%[[T3]], %[[C3]]) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
// CHECK-NEXT: %[[C4:.*]] = memref.cast %[[C]] : memref<64x16xf32> to memref<?x?xf32>
// CHECK-NEXT: %[[C5:.*]] = memref.cast %[[C]] : memref<64x16xf32> to memref<?x?xf32>
// CHECK-NEXT: call @coalesce_gelu_f32(%[[C4]], %[[C5]]) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
// CHECK-NEXT: call @coalesce_free_2d_f32(%[[RAW]]) : (memref<?x?xf32>) -> ()
// CHECK-NEXT: return
// CHECK-DAG: func.func private @coalesce_alloc_2d_f32(index, index) -> memref<?x?xf32> attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @coalesce_free_2d_f32(memref<?x?xf32>) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @coalesce_matmul_f32(memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @coalesce_bias_add_f32(memref<?x?xf32>, memref<?xf32>, memref<?x?xf32>) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @coalesce_relu_f32(memref<?x?xf32>, memref<?x?xf32>) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @coalesce_gelu_f32(memref<?x?xf32>, memref<?x?xf32>) attributes {llvm.emit_c_interface}
func.func @unfused(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %bias: memref<16xf32>, %c: memref<64x16xf32>) {
  %t = memref.alloc() : memref<64x16xf32>
  coalesce.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%t : memref<64x16xf32>)
  coalesce.bias_add ins(%t, %bias : memref<64x16xf32>, memref<16xf32>) outs(%t : memref<64x16xf32>)
  coalesce.relu ins(%t : memref<64x16xf32>) outs(%c : memref<64x16xf32>)
  coalesce.gelu ins(%c : memref<64x16xf32>) outs(%c : memref<64x16xf32>)
  memref.dealloc %t : memref<64x16xf32>
  return
}

// -----

// A fused op without a tile calls the generic entry of its epilogue; with a tile, the entry
// named after its config. Two calls of one entry share one declaration, whatever their shapes.
// CHECK-LABEL: func.func @fused
// CHECK-NEXT: memref.cast
// CHECK-NEXT: memref.cast
// CHECK-NEXT: memref.cast
// CHECK-NEXT: memref.cast
// CHECK-NEXT: call @coalesce_fused_matmul_f32_bias_gelu(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (memref<?x?xf32>, memref<?x?xf32>, memref<?xf32>, memref<?x?xf32>) -> ()
// CHECK-NEXT: memref.cast
// CHECK-NEXT: memref.cast
// CHECK-NEXT: memref.cast
// CHECK-NEXT: call @coalesce_fused_matmul_f32_none(%{{.*}}, %{{.*}}, %{{.*}}) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
// CHECK-NEXT: memref.cast
// CHECK-NEXT: memref.cast
// CHECK-NEXT: memref.cast
// CHECK-NEXT: memref.cast
// CHECK-NEXT: call @coalesce_fused_matmul_simt_f32_bm128_bn128_bk16_wm64_wn32_tm8_tn8_s3_v4_g8_o2_bias_gelu(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// CHECK-NEXT: memref.cast
// CHECK-NEXT: memref.cast
// CHECK-NEXT: memref.cast
// CHECK-NEXT: memref.cast
// CHECK-NEXT: call @coalesce_fused_matmul_f32_bias_gelu(
// CHECK-NEXT: return
// CHECK-DAG: func.func private @coalesce_fused_matmul_f32_bias_gelu(memref<?x?xf32>, memref<?x?xf32>, memref<?xf32>, memref<?x?xf32>) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @coalesce_fused_matmul_f32_none(memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @coalesce_fused_matmul_simt_f32_bm128_bn128_bk16_wm64_wn32_tm8_tn8_s3_v4_g8_o2_bias_gelu(memref<?x?xf32>, memref<?x?xf32>, memref<?xf32>, memref<?x?xf32>) attributes {llvm.emit_c_interface}
func.func @fused(%a: memref<256x128xf32>, %b: memref<128x64xf32>, %bias: memref<64xf32>, %c: memref<256x64xf32>,
                 %a2: memref<32x8xf32>, %b2: memref<8x4xf32>, %bias2: memref<4xf32>, %c2: memref<32x4xf32>) {
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<256x128xf32>, memref<128x64xf32>) bias(%bias : memref<64xf32>) outs(%c : memref<256x64xf32>)
  coalesce.fused_matmul none ins(%a, %b : memref<256x128xf32>, memref<128x64xf32>) outs(%c : memref<256x64xf32>)
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<256x128xf32>, memref<128x64xf32>) bias(%bias : memref<64xf32>) outs(%c : memref<256x64xf32>)
      {tile = #coalesce.tile<simt, bm = 128, bn = 128, bk = 16, wm = 64, wn = 32, tm = 8, tn = 8, stages = 3, vec = 4, group_m = 8, min_blocks = 2>}
  coalesce.fused_matmul bias_gelu ins(%a2, %b2 : memref<32x8xf32>, memref<8x4xf32>) bias(%bias2 : memref<4xf32>) outs(%c2 : memref<32x4xf32>)
  return
}

// -----

// Dynamic extents of a device temporary are passed on to the allocator; a 1-D temporary gets
// the 1-D allocator. Operands already of dynamic shape are passed as they are.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: (%[[X:.*]]: memref<?x?xf32>, %[[M:.*]]: index, %[[N:.*]]: index, %[[Y:.*]]: memref<?x?xf32>)
// CHECK-NEXT: %[[RAW:.*]] = call @coalesce_alloc_2d_f32(%[[M]], %[[N]]) : (index, index) -> memref<?x?xf32>
// CHECK-NEXT: %[[N1:.*]] = arith.constant 16 : index
// CHECK-NEXT: %[[RAWB:.*]] = call @coalesce_alloc_1d_f32(%[[N1]]) : (index) -> memref<?xf32>
// CHECK-NEXT: %[[BIAS:.*]] = memref.cast %[[RAWB]] : memref<?xf32> to memref<16xf32>
// CHECK-NEXT: call @coalesce_relu_f32(%[[X]], %[[RAW]]) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
// CHECK-NEXT: %[[BIAS1:.*]] = memref.cast %[[BIAS]] : memref<16xf32> to memref<?xf32>
// CHECK-NEXT: call @coalesce_bias_add_f32(%[[RAW]], %[[BIAS1]], %[[Y]])
// CHECK-NEXT: call @coalesce_free_2d_f32(%[[RAW]])
// CHECK-NEXT: return
func.func @dynamic(%x: memref<?x?xf32>, %m: index, %n: index, %y: memref<?x?xf32>) {
  %t = memref.alloc(%m, %n) : memref<?x?xf32>
  %bias = memref.alloc() : memref<16xf32>
  coalesce.relu ins(%x : memref<?x?xf32>) outs(%t : memref<?x?xf32>)
  coalesce.bias_add ins(%t, %bias : memref<?x?xf32>, memref<16xf32>) outs(%y : memref<?x?xf32>)
  memref.dealloc %t : memref<?x?xf32>
  return
}

// -----

// A buffer no coalesce op touches stays a host allocation.
// CHECK-LABEL: func.func @host_buffer
// CHECK-NEXT: %[[H:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT: memref.dealloc %[[H]]
// CHECK-NEXT: return
func.func @host_buffer() {
  %h = memref.alloc() : memref<4xf32>
  memref.dealloc %h : memref<4xf32>
  return
}

// -----

// The unfused ops of issue 40 call the runtime's f32 elementwise entries: the tanh GELU, SiLU,
// the residual add (X1, X2, Y) and a glu, whose entry names its activation (X M x N, Y M x N/2).
// CHECK-LABEL: func.func @unfused_issue_40
// CHECK: call @coalesce_gelu_tanh_f32({{.*}}) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
// CHECK: call @coalesce_silu_f32({{.*}}) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
// CHECK: call @coalesce_add_f32({{.*}}) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
// CHECK: call @coalesce_glu_silu_f32({{.*}}) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
// CHECK: call @coalesce_glu_gelu_f32({{.*}}) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
func.func @unfused_issue_40(%x: memref<64x16xf32>, %r: memref<64x16xf32>, %y: memref<64x16xf32>, %g: memref<64x8xf32>) {
  coalesce.gelu_tanh ins(%x : memref<64x16xf32>) outs(%y : memref<64x16xf32>)
  coalesce.silu ins(%y : memref<64x16xf32>) outs(%y : memref<64x16xf32>)
  coalesce.add ins(%y, %r : memref<64x16xf32>, memref<64x16xf32>) outs(%y : memref<64x16xf32>)
  coalesce.glu silu ins(%y : memref<64x16xf32>) outs(%g : memref<64x8xf32>)
  coalesce.glu gelu ins(%y : memref<64x16xf32>) outs(%g : memref<64x8xf32>)
  return
}
