// RUN: coalesce-opt %s | coalesce-opt | FileCheck %s
// RUN: coalesce-opt %s --mlir-print-op-generic | coalesce-opt | FileCheck %s

// Round trip: matmul prints back in its custom form.
// CHECK-LABEL: func.func @matmul_round_trip
func.func @matmul_round_trip(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %c: memref<64x16xf32>) {
  // CHECK-NEXT: coalesce.matmul ins(%{{.*}}, %{{.*}} : memref<64x32xf32>, memref<32x16xf32>) outs(%{{.*}} : memref<64x16xf32>)
  coalesce.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%c : memref<64x16xf32>)
  return
}

// Round trip: dynamic extents are accepted; they are checked where both sides are known.
// CHECK-LABEL: func.func @matmul_dynamic
func.func @matmul_dynamic(%a: memref<?x?xf32>, %b: memref<?x16xf32>, %c: memref<64x?xf32>) {
  // CHECK-NEXT: coalesce.matmul ins(%{{.*}}, %{{.*}} : memref<?x?xf32>, memref<?x16xf32>) outs(%{{.*}} : memref<64x?xf32>)
  coalesce.matmul ins(%a, %b : memref<?x?xf32>, memref<?x16xf32>) outs(%c : memref<64x?xf32>)
  return
}

// Round trip: TF32 is a math mode on f32 memrefs; bf16 and f16 are element types.
// CHECK-LABEL: func.func @matmul_types
func.func @matmul_types(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %c: memref<64x16xf32>,
                        %ha: memref<64x32xbf16>, %hb: memref<32x16xbf16>, %hc: memref<64x16xbf16>,
                        %fa: memref<64x32xf16>, %fb: memref<32x16xf16>, %fc: memref<64x16xf16>) {
  // CHECK-NEXT: coalesce.matmul ins({{.*}}) outs({{.*}} : memref<64x16xf32>) {math = #coalesce.math<tensorfloat32>}
  coalesce.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%c : memref<64x16xf32>) {math = #coalesce.math<tensorfloat32>}
  // CHECK-NEXT: coalesce.matmul ins({{.*}}) outs({{.*}} : memref<64x16xbf16>)
  coalesce.matmul ins(%ha, %hb : memref<64x32xbf16>, memref<32x16xbf16>) outs(%hc : memref<64x16xbf16>)
  // CHECK-NEXT: coalesce.matmul ins({{.*}}) outs({{.*}} : memref<64x16xf16>)
  coalesce.matmul ins(%fa, %fb : memref<64x32xf16>, memref<32x16xf16>) outs(%fc : memref<64x16xf16>)
  return
}

// Round trip: bias_add, relu and gelu, out of place and in place.
// CHECK-LABEL: func.func @elementwise_round_trip
func.func @elementwise_round_trip(%x: memref<64x16xf32>, %bias: memref<16xf32>, %y: memref<64x16xf32>) {
  // CHECK-NEXT: coalesce.bias_add ins(%[[X:.*]], %{{.*}} : memref<64x16xf32>, memref<16xf32>) outs(%[[Y:.*]] : memref<64x16xf32>)
  coalesce.bias_add ins(%x, %bias : memref<64x16xf32>, memref<16xf32>) outs(%y : memref<64x16xf32>)
  // CHECK-NEXT: coalesce.relu ins(%[[Y]] : memref<64x16xf32>) outs(%[[Y]] : memref<64x16xf32>)
  coalesce.relu ins(%y : memref<64x16xf32>) outs(%y : memref<64x16xf32>)
  // CHECK-NEXT: coalesce.gelu ins(%[[Y]] : memref<64x16xf32>) outs(%[[X]] : memref<64x16xf32>)
  coalesce.gelu ins(%y : memref<64x16xf32>) outs(%x : memref<64x16xf32>)
  return
}

// Round trip: the tanh GELU, SiLU, the residual add and the gated glu, out of place and in place.
// CHECK-LABEL: func.func @issue_40_ops_round_trip
func.func @issue_40_ops_round_trip(%x: memref<64x16xf32>, %r: memref<64x16xf32>, %y: memref<64x16xf32>, %g: memref<64x8xf32>) {
  // CHECK-NEXT: coalesce.gelu_tanh ins(%[[X:.*]] : memref<64x16xf32>) outs(%[[Y:[^ ]*]] : memref<64x16xf32>)
  coalesce.gelu_tanh ins(%x : memref<64x16xf32>) outs(%y : memref<64x16xf32>)
  // CHECK-NEXT: coalesce.silu ins(%[[Y]] : memref<64x16xf32>) outs(%[[Y]] : memref<64x16xf32>)
  coalesce.silu ins(%y : memref<64x16xf32>) outs(%y : memref<64x16xf32>)
  // CHECK-NEXT: coalesce.add ins(%[[Y]], %[[R:.*]] : memref<64x16xf32>, memref<64x16xf32>) outs(%[[Y]] : memref<64x16xf32>)
  coalesce.add ins(%y, %r : memref<64x16xf32>, memref<64x16xf32>) outs(%y : memref<64x16xf32>)
  // CHECK-NEXT: coalesce.glu silu ins(%[[Y]] : memref<64x16xf32>) outs(%{{.*}} : memref<64x8xf32>)
  coalesce.glu silu ins(%y : memref<64x16xf32>) outs(%g : memref<64x8xf32>)
  // CHECK-NEXT: coalesce.glu gelu ins(
  coalesce.glu gelu ins(%y : memref<64x16xf32>) outs(%g : memref<64x8xf32>)
  // CHECK-NEXT: coalesce.glu gelu_tanh ins(
  coalesce.glu gelu_tanh ins(%y : memref<64x16xf32>) outs(%g : memref<64x8xf32>)
  return
}

// Round trip: every epilogue of fused_matmul; only `none` has no bias.
// CHECK-LABEL: func.func @fused_epilogues
func.func @fused_epilogues(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %bias: memref<16xf32>, %c: memref<64x16xf32>) {
  // CHECK-NEXT: coalesce.fused_matmul none ins(%{{.*}}, %{{.*}} : memref<64x32xf32>, memref<32x16xf32>) outs(%{{.*}} : memref<64x16xf32>)
  coalesce.fused_matmul none ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%c : memref<64x16xf32>)
  // CHECK-NEXT: coalesce.fused_matmul bias ins(%{{.*}}, %{{.*}} : memref<64x32xf32>, memref<32x16xf32>) bias(%{{.*}} : memref<16xf32>) outs(%{{.*}} : memref<64x16xf32>)
  coalesce.fused_matmul bias ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) bias(%bias : memref<16xf32>) outs(%c : memref<64x16xf32>)
  // CHECK-NEXT: coalesce.fused_matmul bias_relu ins(
  coalesce.fused_matmul bias_relu ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) bias(%bias : memref<16xf32>) outs(%c : memref<64x16xf32>)
  // CHECK-NEXT: coalesce.fused_matmul bias_gelu ins(
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) bias(%bias : memref<16xf32>) outs(%c : memref<64x16xf32>)
  // CHECK-NEXT: coalesce.fused_matmul bias_gelu_tanh ins(
  coalesce.fused_matmul bias_gelu_tanh ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) bias(%bias : memref<16xf32>) outs(%c : memref<64x16xf32>)
  // CHECK-NEXT: coalesce.fused_matmul bias_silu ins(
  coalesce.fused_matmul bias_silu ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) bias(%bias : memref<16xf32>) outs(%c : memref<64x16xf32>)
  return
}

// Round trip: the residual epilogue takes a bias and an M x N residual.
// CHECK-LABEL: func.func @fused_residual
func.func @fused_residual(%a: memref<64x32xbf16>, %b: memref<32x16xbf16>, %bias: memref<16xbf16>, %r: memref<64x16xbf16>, %c: memref<64x16xbf16>) {
  // CHECK-NEXT: coalesce.fused_matmul bias_gelu_residual ins(%{{.*}}, %{{.*}} : memref<64x32xbf16>, memref<32x16xbf16>) bias(%{{.*}} : memref<16xbf16>) residual(%{{.*}} : memref<64x16xbf16>) outs(%{{.*}} : memref<64x16xbf16>)
  coalesce.fused_matmul bias_gelu_residual ins(%a, %b : memref<64x32xbf16>, memref<32x16xbf16>) bias(%bias : memref<16xbf16>) residual(%r : memref<64x16xbf16>) outs(%c : memref<64x16xbf16>)
  return
}

// Round trip: the gated pair takes no bias and writes C of M x N/2 (B's columns are gate and up
// pairs).
// CHECK-LABEL: func.func @fused_gated
func.func @fused_gated(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %c: memref<64x8xf32>) {
  // CHECK-NEXT: coalesce.fused_matmul swiglu ins(%{{.*}}, %{{.*}} : memref<64x32xf32>, memref<32x16xf32>) outs(%{{.*}} : memref<64x8xf32>)
  coalesce.fused_matmul swiglu ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%c : memref<64x8xf32>)
  // CHECK-NEXT: coalesce.fused_matmul geglu ins(
  coalesce.fused_matmul geglu ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%c : memref<64x8xf32>)
  return
}

// Round trip: the tile and target attributes; struct parameters parse in any order.
// CHECK-LABEL: func.func @fused_tile_target
func.func @fused_tile_target(%a: memref<256x128xf32>, %b: memref<128x64xf32>, %bias: memref<64xf32>, %c: memref<256x64xf32>) {
  // CHECK-NEXT: coalesce.fused_matmul bias_gelu ins({{.*}}) bias({{.*}}) outs({{.*}}) {target = #coalesce.target<arch = "sm_90", smem_per_block = 232448, regs_per_sm = 65536>, tile = #coalesce.tile<simt, bm = 128, bn = 128, bk = 16, wm = 64, wn = 32, tm = 8, tn = 8, stages = 3, vec = 4, group_m = 8, min_blocks = 2>}
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<256x128xf32>, memref<128x64xf32>) bias(%bias : memref<64xf32>) outs(%c : memref<256x64xf32>)
      {tile = #coalesce.tile<simt, bn = 128, bm = 128, bk = 16, wm = 64, wn = 32, tm = 8, tn = 8, stages = 3, vec = 4, group_m = 8, min_blocks = 2>,
       target = #coalesce.target<arch = "sm_90", smem_per_block = 232448, regs_per_sm = 65536>}
  return
}
