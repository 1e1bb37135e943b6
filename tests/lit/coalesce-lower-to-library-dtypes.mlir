// RUN: coalesce-opt %s --split-input-file --coalesce-lower-to-library | FileCheck %s

// Every dtype of the runtime's C ABI lowers as f32 does (issue 38): f32 storage with TF32 math
// (tf32), bf16 and f16, on tiled ops of every family (mma, wgmma, gemv) and untiled ones. The
// entry's name carries the dtype (in a tiled op's config name, else as `_<dtype>`), its
// parameters are memrefs of the storage type.

// A tiled bf16 mma kernel: its config's entry, bf16 descriptors.
// CHECK-LABEL: func.func @mma_bf16
// CHECK: call @coalesce_fused_matmul_mma_bf16_bm128_bn128_kb64_wm64_wn64_s4_v16_sw1_g8_o2_bias_gelu({{.*}}) : (memref<?x?xbf16>, memref<?x?xbf16>, memref<?xbf16>, memref<?x?xbf16>) -> ()
// CHECK: func.func private @coalesce_fused_matmul_mma_bf16_bm128_bn128_kb64_wm64_wn64_s4_v16_sw1_g8_o2_bias_gelu(memref<?x?xbf16>, memref<?x?xbf16>, memref<?xbf16>, memref<?x?xbf16>) attributes {llvm.emit_c_interface}
func.func @mma_bf16(%a: memref<256x128xbf16>, %b: memref<128x256xbf16>, %bias: memref<256xbf16>, %c: memref<256x256xbf16>) {
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<256x128xbf16>, memref<128x256xbf16>) bias(%bias : memref<256xbf16>) outs(%c : memref<256x256xbf16>)
      {tile = #coalesce.tile<mma, bm = 128, bn = 128, bk_bytes = 64, wm = 64, wn = 64, stages = 4, vec_bytes = 16, swizzle = 1, group_m = 8, min_blocks = 2>}
  return
}

// -----

// A tiled f16 wgmma kernel with the empty epilogue: no bias parameter.
// CHECK-LABEL: func.func @wgmma_f16
// CHECK: call @coalesce_fused_matmul_wgmma_f16_bm128_bn128_bk64_s6_wg2_cm1_cn1_p1_g8_ts1_none({{.*}}) : (memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf16>) -> ()
func.func @wgmma_f16(%a: memref<256x128xf16>, %b: memref<128x256xf16>, %c: memref<256x256xf16>) {
  coalesce.fused_matmul none ins(%a, %b : memref<256x128xf16>, memref<128x256xf16>) outs(%c : memref<256x256xf16>)
      {tile = #coalesce.tile<wgmma, bm = 128, bn = 128, bk = 64, stages = 6, consumers = 2, cluster_m = 1, cluster_n = 1, persistent = 1, group_m = 8, tma_store = 1>}
  return
}

// -----

// tf32 is f32 storage with TF32 math: f32 descriptors, the tf32 config's entry.
// CHECK-LABEL: func.func @wgmma_tf32
// CHECK: call @coalesce_fused_matmul_wgmma_tf32_bm256_bn128_bk32_s3_wg2_cm1_cn1_p1_g8_ts0_bias_gelu({{.*}}) : (memref<?x?xf32>, memref<?x?xf32>, memref<?xf32>, memref<?x?xf32>) -> ()
func.func @wgmma_tf32(%a: memref<512x256xf32>, %b: memref<256x512xf32>, %bias: memref<512xf32>, %c: memref<512x512xf32>) {
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<512x256xf32>, memref<256x512xf32>) bias(%bias : memref<512xf32>) outs(%c : memref<512x512xf32>)
      {math = #coalesce.math<tensorfloat32>, tile = #coalesce.tile<wgmma, bm = 256, bn = 128, bk = 32, stages = 3, consumers = 2, cluster_m = 1, cluster_n = 1, persistent = 1, group_m = 8, tma_store = 0>}
  return
}

// -----

// A tiled bf16 gemv kernel (a few rows of A).
// CHECK-LABEL: func.func @gemv_bf16
// CHECK: call @coalesce_fused_matmul_gemv_bf16_mr4_w8_v16_l8_u4_bias_gelu({{.*}}) : (memref<?x?xbf16>, memref<?x?xbf16>, memref<?xbf16>, memref<?x?xbf16>) -> ()
func.func @gemv_bf16(%a: memref<4x128xbf16>, %b: memref<128x256xbf16>, %bias: memref<256xbf16>, %c: memref<4x256xbf16>) {
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<4x128xbf16>, memref<128x256xbf16>) bias(%bias : memref<256xbf16>) outs(%c : memref<4x256xbf16>)
      {tile = #coalesce.tile<gemv, mr = 4, warps = 8, vec_bytes = 16, lanes = 8, unroll = 4>}
  return
}

// -----

// Untiled ops call the runtime's entries of their dtype (config chosen by the runtime): a fused
// bf16 op, a tf32 matmul and an f16 matmul; a 16-bit device temporary comes from the 16-bit
// allocator.
// CHECK-LABEL: func.func @untiled
// CHECK: call @coalesce_fused_matmul_bf16_bias_gelu({{.*}}) : (memref<?x?xbf16>, memref<?x?xbf16>, memref<?xbf16>, memref<?x?xbf16>) -> ()
// CHECK: call @coalesce_matmul_tf32({{.*}}) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
// CHECK: %[[RAW:.*]] = call @coalesce_alloc_2d_f16(%{{.*}}, %{{.*}}) : (index, index) -> memref<?x?xf16>
// CHECK: call @coalesce_matmul_f16({{.*}}) : (memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf16>) -> ()
// CHECK: call @coalesce_fused_matmul_f16_none({{.*}}) : (memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf16>) -> ()
// CHECK: call @coalesce_free_2d_f16(%[[RAW]]) : (memref<?x?xf16>) -> ()
func.func @untiled(%a: memref<64x32xbf16>, %b: memref<32x16xbf16>, %bias: memref<16xbf16>, %c: memref<64x16xbf16>,
                   %x: memref<64x32xf32>, %y: memref<32x16xf32>, %z: memref<64x16xf32>,
                   %p: memref<64x32xf16>, %q: memref<32x16xf16>, %r: memref<64x16xf16>) {
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<64x32xbf16>, memref<32x16xbf16>) bias(%bias : memref<16xbf16>) outs(%c : memref<64x16xbf16>)
  coalesce.matmul ins(%x, %y : memref<64x32xf32>, memref<32x16xf32>) outs(%z : memref<64x16xf32>) {math = #coalesce.math<tensorfloat32>}
  %t = memref.alloc() : memref<64x16xf16>
  coalesce.matmul ins(%p, %q : memref<64x32xf16>, memref<32x16xf16>) outs(%t : memref<64x16xf16>)
  coalesce.fused_matmul none ins(%p, %q : memref<64x32xf16>, memref<32x16xf16>) outs(%r : memref<64x16xf16>)
  memref.dealloc %t : memref<64x16xf16>
  return
}

// -----

// A residual epilogue's entry takes the residual after the bias (the op's operand order): a
// tiled bf16 gemv kernel, whose family reads a residual.
// CHECK-LABEL: func.func @gemv_bf16_residual
// CHECK: call @coalesce_fused_matmul_gemv_bf16_mr4_w8_v16_l8_u4_bias_gelu_residual({{.*}}) : (memref<?x?xbf16>, memref<?x?xbf16>, memref<?xbf16>, memref<?x?xbf16>, memref<?x?xbf16>) -> ()
// CHECK: func.func private @coalesce_fused_matmul_gemv_bf16_mr4_w8_v16_l8_u4_bias_gelu_residual(memref<?x?xbf16>, memref<?x?xbf16>, memref<?xbf16>, memref<?x?xbf16>, memref<?x?xbf16>) attributes {llvm.emit_c_interface}
func.func @gemv_bf16_residual(%a: memref<4x128xbf16>, %b: memref<128x256xbf16>, %bias: memref<256xbf16>, %r: memref<4x256xbf16>, %c: memref<4x256xbf16>) {
  coalesce.fused_matmul bias_gelu_residual ins(%a, %b : memref<4x128xbf16>, memref<128x256xbf16>) bias(%bias : memref<256xbf16>) residual(%r : memref<4x256xbf16>) outs(%c : memref<4x256xbf16>)
      {tile = #coalesce.tile<gemv, mr = 4, warps = 8, vec_bytes = 16, lanes = 8, unroll = 4>}
  return
}

// -----

// A gated epilogue's entry takes A, B and the M x N/2 C: a tiled bf16 mma swiglu kernel.
// CHECK-LABEL: func.func @mma_bf16_swiglu
// CHECK: call @coalesce_fused_matmul_mma_bf16_bm128_bn128_kb64_wm64_wn64_s4_v16_sw1_g8_o2_swiglu({{.*}}) : (memref<?x?xbf16>, memref<?x?xbf16>, memref<?x?xbf16>) -> ()
func.func @mma_bf16_swiglu(%a: memref<256x128xbf16>, %b: memref<128x256xbf16>, %c: memref<256x128xbf16>) {
  coalesce.fused_matmul swiglu ins(%a, %b : memref<256x128xbf16>, memref<128x256xbf16>) outs(%c : memref<256x128xbf16>)
      {tile = #coalesce.tile<mma, bm = 128, bn = 128, bk_bytes = 64, wm = 64, wn = 64, stages = 4, vec_bytes = 16, swizzle = 1, group_m = 8, min_blocks = 2>}
  return
}

// -----

// The epilogues of issue 40 untiled, in every dtype: the runtime's entry of the dtype and
// epilogue, with the row's operands.
// CHECK-LABEL: func.func @untiled_issue_40
// CHECK: call @coalesce_fused_matmul_f32_bias_gelu_tanh({{.*}}) : (memref<?x?xf32>, memref<?x?xf32>, memref<?xf32>, memref<?x?xf32>) -> ()
// CHECK: call @coalesce_fused_matmul_tf32_bias_gelu_residual({{.*}}) : (memref<?x?xf32>, memref<?x?xf32>, memref<?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
// CHECK: call @coalesce_fused_matmul_bf16_bias_silu({{.*}}) : (memref<?x?xbf16>, memref<?x?xbf16>, memref<?xbf16>, memref<?x?xbf16>) -> ()
// CHECK: call @coalesce_fused_matmul_f16_swiglu({{.*}}) : (memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf16>) -> ()
// CHECK: call @coalesce_fused_matmul_bf16_geglu({{.*}}) : (memref<?x?xbf16>, memref<?x?xbf16>, memref<?x?xbf16>) -> ()
func.func @untiled_issue_40(%x: memref<64x32xf32>, %y: memref<32x16xf32>, %xbias: memref<16xf32>, %xr: memref<64x16xf32>, %z: memref<64x16xf32>,
                            %a: memref<64x32xbf16>, %b: memref<32x16xbf16>, %bias: memref<16xbf16>, %c: memref<64x16xbf16>, %hc: memref<64x8xbf16>,
                            %p: memref<64x32xf16>, %q: memref<32x16xf16>, %r: memref<64x8xf16>) {
  coalesce.fused_matmul bias_gelu_tanh ins(%x, %y : memref<64x32xf32>, memref<32x16xf32>) bias(%xbias : memref<16xf32>) outs(%z : memref<64x16xf32>)
  coalesce.fused_matmul bias_gelu_residual ins(%x, %y : memref<64x32xf32>, memref<32x16xf32>) bias(%xbias : memref<16xf32>) residual(%xr : memref<64x16xf32>) outs(%z : memref<64x16xf32>) {math = #coalesce.math<tensorfloat32>}
  coalesce.fused_matmul bias_silu ins(%a, %b : memref<64x32xbf16>, memref<32x16xbf16>) bias(%bias : memref<16xbf16>) outs(%c : memref<64x16xbf16>)
  coalesce.fused_matmul swiglu ins(%p, %q : memref<64x32xf16>, memref<32x16xf16>) outs(%r : memref<64x8xf16>)
  coalesce.fused_matmul geglu ins(%a, %b : memref<64x32xbf16>, memref<32x16xbf16>) outs(%hc : memref<64x8xbf16>)
  return
}
