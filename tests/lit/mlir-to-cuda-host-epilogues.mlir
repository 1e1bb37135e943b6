// RUN: coalesce-translate --mlir-to-cuda-host %s | FileCheck %s
// RUN: coalesce-translate --mlir-to-cuda-host-entries %s | FileCheck %s --check-prefix=ENTRIES

// The host unit's entries take the operands of the registry row (issue 40 item 5): a gated
// epilogue's A, B and M x N/2 C (no bias), a residual epilogue's A, B, bias, residual and C. Each
// config's cubin is registered under its epilogue.
// CHECK: // mma_bf16_bm128_bn128_kb64_wm64_wn64_s4_v16_sw1_g8_o2_swiglu for sm_90 ({{[0-9]+}} bytes)
// CHECK: static const ::coalesce::runtime::AotCubin kAot0("mma_bf16_bm128_bn128_kb64_wm64_wn64_s4_v16_sw1_g8_o2_swiglu", COALESCE_BF16, "swiglu", kCubin0, sizeof kCubin0);
// CHECK-NEXT: COALESCE_DEFINE_MLIR_FUSED_ENTRY_NO_BIAS(coalesce_fused_matmul_mma_bf16_bm128_bn128_kb64_wm64_wn64_s4_v16_sw1_g8_o2_swiglu, "mma_bf16_bm128_bn128_kb64_wm64_wn64_s4_v16_sw1_g8_o2_swiglu", COALESCE_BF16, "swiglu", &kAot0)
// CHECK: // gemv_f16_mr4_w8_v16_l8_u4_bias_gelu_residual for sm_90 ({{[0-9]+}} bytes)
// CHECK: static const ::coalesce::runtime::AotCubin kAot1("gemv_f16_mr4_w8_v16_l8_u4_bias_gelu_residual", COALESCE_F16, "bias_gelu_residual", kCubin1, sizeof kCubin1);
// CHECK-NEXT: COALESCE_DEFINE_MLIR_FUSED_ENTRY_RESIDUAL(coalesce_fused_matmul_gemv_f16_mr4_w8_v16_l8_u4_bias_gelu_residual, "gemv_f16_mr4_w8_v16_l8_u4_bias_gelu_residual", COALESCE_F16, "bias_gelu_residual", &kAot1)
// CHECK-NOT: COALESCE_DEFINE

// ENTRIES: #include "compiler/runtime/mlir_entry.h"
// ENTRIES-EMPTY:
// ENTRIES-NEXT: COALESCE_DEFINE_MLIR_FUSED_ENTRY_NO_BIAS(coalesce_fused_matmul_mma_bf16_bm128_bn128_kb64_wm64_wn64_s4_v16_sw1_g8_o2_swiglu, "mma_bf16_bm128_bn128_kb64_wm64_wn64_s4_v16_sw1_g8_o2_swiglu", COALESCE_BF16, "swiglu", nullptr)
// ENTRIES-NEXT: COALESCE_DEFINE_MLIR_FUSED_ENTRY_RESIDUAL(coalesce_fused_matmul_gemv_f16_mr4_w8_v16_l8_u4_bias_gelu_residual, "gemv_f16_mr4_w8_v16_l8_u4_bias_gelu_residual", COALESCE_F16, "bias_gelu_residual", nullptr)
// ENTRIES-NOT: COALESCE_DEFINE
func.func @issue_40_epilogues(%a: memref<256x128xbf16>, %b: memref<128x256xbf16>, %c: memref<256x128xbf16>,
                              %va: memref<4x128xf16>, %vb: memref<128x256xf16>, %vbias: memref<256xf16>, %vr: memref<4x256xf16>, %vc: memref<4x256xf16>) {
  coalesce.fused_matmul swiglu ins(%a, %b : memref<256x128xbf16>, memref<128x256xbf16>) outs(%c : memref<256x128xbf16>)
      {tile = #coalesce.tile<mma, bm = 128, bn = 128, bk_bytes = 64, wm = 64, wn = 64, stages = 4, vec_bytes = 16, swizzle = 1, group_m = 8, min_blocks = 2>}
  coalesce.fused_matmul bias_gelu_residual ins(%va, %vb : memref<4x128xf16>, memref<128x256xf16>) bias(%vbias : memref<256xf16>) residual(%vr : memref<4x256xf16>) outs(%vc : memref<4x256xf16>)
      {tile = #coalesce.tile<gemv, mr = 4, warps = 8, vec_bytes = 16, lanes = 8, unroll = 4>}
  return
}
