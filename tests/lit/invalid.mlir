// RUN: coalesce-opt %s -split-input-file -verify-diagnostics

// K of A must equal the rows of B.
func.func @matmul_k_mismatch(%a: memref<64x32xf32>, %b: memref<31x16xf32>, %c: memref<64x16xf32>) {
  // expected-error @+1 {{expects A's columns (K = 32) to equal B's rows (31)}}
  coalesce.matmul ins(%a, %b : memref<64x32xf32>, memref<31x16xf32>) outs(%c : memref<64x16xf32>)
  return
}

// -----

// Element types must agree.
func.func @matmul_dtype_mismatch(%a: memref<64x32xf32>, %b: memref<32x16xf16>, %c: memref<64x16xf32>) {
  // expected-error @+1 {{expects A, B and C to have the same element type}}
  coalesce.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf16>) outs(%c : memref<64x16xf32>)
  return
}

// -----

// C must be M x N.
func.func @matmul_c_shape(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %c: memref<64x17xf32>) {
  // expected-error @+1 {{expects C to be 64x16, got 64x17}}
  coalesce.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%c : memref<64x17xf32>)
  return
}

// -----

// The kernel reads A and B while it writes C: C may not be one of them.
func.func @matmul_in_place(%a: memref<64x64xf32>, %b: memref<64x64xf32>) {
  // expected-error @+1 {{expects C to be a buffer other than A and B}}
  coalesce.matmul ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%a : memref<64x64xf32>)
  return
}

// -----

// Matrices are 2-D.
func.func @matmul_rank(%a: memref<64xf32>, %b: memref<32x16xf32>, %c: memref<64x16xf32>) {
  // expected-error @+1 {{operand #0 must be 2D memref of floating-point values}}
  coalesce.matmul ins(%a, %b : memref<64xf32>, memref<32x16xf32>) outs(%c : memref<64x16xf32>)
  return
}

// -----

// A bias has one entry per column.
func.func @bias_add_length(%x: memref<64x16xf32>, %bias: memref<15xf32>, %y: memref<64x16xf32>) {
  // expected-error @+1 {{expects a bias of N = 16 entries, got 15}}
  coalesce.bias_add ins(%x, %bias : memref<64x16xf32>, memref<15xf32>) outs(%y : memref<64x16xf32>)
  return
}

// -----

// The bias has the matrix's element type.
func.func @bias_add_bias_dtype(%x: memref<64x16xf32>, %bias: memref<16xbf16>, %y: memref<64x16xf32>) {
  // expected-error @+1 {{expects the bias to have the matrix's element type}}
  coalesce.bias_add ins(%x, %bias : memref<64x16xf32>, memref<16xbf16>) outs(%y : memref<64x16xf32>)
  return
}

// -----

// An elementwise op's output has its input's shape.
func.func @bias_add_shape(%x: memref<64x16xf32>, %bias: memref<16xf32>, %y: memref<32x16xf32>) {
  // expected-error @+1 {{expects Y to have X's shape}}
  coalesce.bias_add ins(%x, %bias : memref<64x16xf32>, memref<16xf32>) outs(%y : memref<32x16xf32>)
  return
}

// -----

// relu keeps the shape.
func.func @relu_shape(%x: memref<64x16xf32>, %y: memref<64x8xf32>) {
  // expected-error @+1 {{expects Y to have X's shape}}
  coalesce.relu ins(%x : memref<64x16xf32>) outs(%y : memref<64x8xf32>)
  return
}

// -----

// gelu keeps the element type.
func.func @gelu_dtype(%x: memref<64x16xf32>, %y: memref<64x16xbf16>) {
  // expected-error @+1 {{expects X and Y to have the same element type}}
  coalesce.gelu ins(%x : memref<64x16xf32>) outs(%y : memref<64x16xbf16>)
  return
}

// -----

// Every epilogue but none reads a bias.
func.func @fused_missing_bias(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %c: memref<64x16xf32>) {
  // expected-error @+1 {{epilogue 'bias_gelu' needs a bias operand}}
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%c : memref<64x16xf32>)
  return
}

// -----

// The empty epilogue takes no bias.
func.func @fused_extra_bias(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %bias: memref<16xf32>, %c: memref<64x16xf32>) {
  // expected-error @+1 {{epilogue 'none' takes no bias operand}}
  coalesce.fused_matmul none ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) bias(%bias : memref<16xf32>) outs(%c : memref<64x16xf32>)
  return
}

// -----

// A fused op's bias has N entries too.
func.func @fused_bias_length(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %bias: memref<32xf32>, %c: memref<64x16xf32>) {
  // expected-error @+1 {{expects a bias of N = 16 entries, got 32}}
  coalesce.fused_matmul bias ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) bias(%bias : memref<32xf32>) outs(%c : memref<64x16xf32>)
  return
}

// -----

// The residual epilogue reads an M x N residual: the operand is required.
func.func @fused_residual_missing(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %bias: memref<16xf32>, %c: memref<64x16xf32>) {
  // expected-error @+1 {{epilogue 'bias_gelu_residual' needs a residual operand (M x N, added after the activation)}}
  coalesce.fused_matmul bias_gelu_residual ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) bias(%bias : memref<16xf32>) outs(%c : memref<64x16xf32>)
  return
}

// -----

// An epilogue that reads no residual takes none.
func.func @fused_residual_extra(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %bias: memref<16xf32>, %r: memref<64x16xf32>, %c: memref<64x16xf32>) {
  // expected-error @+1 {{epilogue 'bias_gelu' takes no residual operand}}
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) bias(%bias : memref<16xf32>) residual(%r : memref<64x16xf32>) outs(%c : memref<64x16xf32>)
  return
}

// -----

// The residual is M x N, C's shape.
func.func @fused_residual_shape(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %bias: memref<16xf32>, %r: memref<64x8xf32>, %c: memref<64x16xf32>) {
  // expected-error @+1 {{expects the residual to have C's shape (64x16), got 64x8}}
  coalesce.fused_matmul bias_gelu_residual ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) bias(%bias : memref<16xf32>) residual(%r : memref<64x8xf32>) outs(%c : memref<64x16xf32>)
  return
}

// -----

// The residual has C's element type.
func.func @fused_residual_dtype(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %bias: memref<16xf32>, %r: memref<64x16xf16>, %c: memref<64x16xf32>) {
  // expected-error @+1 {{expects the residual to have C's element type}}
  coalesce.fused_matmul bias_gelu_residual ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) bias(%bias : memref<16xf32>) residual(%r : memref<64x16xf16>) outs(%c : memref<64x16xf32>)
  return
}

// -----

// The kernel reads the residual while it writes C: C may not be the residual.
func.func @fused_residual_is_c(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %bias: memref<16xf32>, %c: memref<64x16xf32>) {
  // expected-error @+1 {{expects C to be a buffer other than the residual}}
  coalesce.fused_matmul bias_gelu_residual ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) bias(%bias : memref<16xf32>) residual(%c : memref<64x16xf32>) outs(%c : memref<64x16xf32>)
  return
}

// -----

// A residual needs a tile whose family's kernels read one: simt's do not.
func.func @fused_residual_simt(%a: memref<256x128xf32>, %b: memref<128x64xf32>, %bias: memref<64xf32>, %r: memref<256x64xf32>, %c: memref<256x64xf32>) {
  // expected-error @+1 {{the family's kernels read no M×N residual}}
  coalesce.fused_matmul bias_gelu_residual ins(%a, %b : memref<256x128xf32>, memref<128x64xf32>) bias(%bias : memref<64xf32>) residual(%r : memref<256x64xf32>) outs(%c : memref<256x64xf32>)
      {tile = #coalesce.tile<simt, bm = 128, bn = 128, bk = 16, wm = 64, wn = 32, tm = 8, tn = 8, stages = 3, vec = 4, group_m = 8, min_blocks = 2>}
  return
}

// -----

// A family's epilogue rule holds whatever the shape: a gated op of unknown shape is refused a
// family that stores no gate.
func.func @fused_gated_simt_dynamic(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  // expected-error @+1 {{tile config does not fit the problem ?x?x? f32 (epilogue): the family's kernels store no gated epilogue}}
  coalesce.fused_matmul swiglu ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
      {tile = #coalesce.tile<simt, bm = 128, bn = 128, bk = 16, wm = 64, wn = 32, tm = 8, tn = 8, stages = 3, vec = 1, group_m = 8, min_blocks = 2>}
  return
}

// -----

// The two inputs of an add have one shape.
func.func @add_shape(%x: memref<64x16xf32>, %r: memref<64x8xf32>, %y: memref<64x16xf32>) {
  // expected-error @+1 {{expects X2 to have X1's shape, got 64x8 and 64x16}}
  coalesce.add ins(%x, %r : memref<64x16xf32>, memref<64x8xf32>) outs(%y : memref<64x16xf32>)
  return
}

// -----

// The two inputs of an add have one element type.
func.func @add_dtype(%x: memref<64x16xf32>, %r: memref<64x16xbf16>, %y: memref<64x16xf32>) {
  // expected-error @+1 {{expects X1 and X2 to have the same element type}}
  coalesce.add ins(%x, %r : memref<64x16xf32>, memref<64x16xbf16>) outs(%y : memref<64x16xf32>)
  return
}

// -----

// An activation op's Y has X's shape (here the tanh GELU).
func.func @gelu_tanh_shape(%x: memref<64x16xf32>, %y: memref<64x8xf32>) {
  // expected-error @+1 {{expects Y to have X's shape}}
  coalesce.gelu_tanh ins(%x : memref<64x16xf32>) outs(%y : memref<64x8xf32>)
  return
}

// -----

// An activation op's Y has X's element type (here SiLU).
func.func @silu_dtype(%x: memref<64x16xf32>, %y: memref<64x16xf16>) {
  // expected-error @+1 {{expects X and Y to have the same element type}}
  coalesce.silu ins(%x : memref<64x16xf32>) outs(%y : memref<64x16xf16>)
  return
}

// -----

// A glu's X holds gate and up column pairs: an odd number of columns is refused.
func.func @glu_odd(%x: memref<64x15xf32>, %y: memref<64x7xf32>) {
  // expected-error @+1 {{expects an even N for a glu (X's columns are gate and up pairs), got 15}}
  coalesce.glu silu ins(%x : memref<64x15xf32>) outs(%y : memref<64x7xf32>)
  return
}

// -----

// A glu's Y has half of X's columns.
func.func @glu_full_width(%x: memref<64x16xf32>, %y: memref<64x16xf32>) {
  // expected-error @+1 {{expects Y to be 64x8 (N/2: gated), got 64x16}}
  coalesce.glu gelu ins(%x : memref<64x16xf32>) outs(%y : memref<64x16xf32>)
  return
}

// -----

// A glu cannot write in place: pair j's output would overwrite columns still to be read.
func.func @glu_in_place(%x: memref<?x?xf32>) {
  // expected-error @+1 {{expects Y to be a buffer other than X}}
  coalesce.glu silu ins(%x : memref<?x?xf32>) outs(%x : memref<?x?xf32>)
  return
}

// -----

// A glu's activation is one of the dialect's activation ops.
func.func @glu_unknown_activation(%x: memref<64x16xf32>, %y: memref<64x8xf32>) {
  // expected-error @+1 {{expected an activation (relu, gelu, gelu_tanh, silu), got 'swish'}}
  coalesce.glu swish ins(%x : memref<64x16xf32>) outs(%y : memref<64x8xf32>)
  return
}

// -----

// A gated epilogue's C has N/2 columns, not N.
func.func @fused_gated_full_width(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %c: memref<64x16xf32>) {
  // expected-error @+1 {{expects C to be 64x8 (N/2: gated), got 64x16}}
  coalesce.fused_matmul swiglu ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%c : memref<64x16xf32>)
  return
}

// -----

// A gated epilogue's N is gate and up pairs: an odd N is refused.
func.func @fused_gated_odd_n(%a: memref<64x32xf32>, %b: memref<32x15xf32>, %c: memref<64x7xf32>) {
  // expected-error @+1 {{expects an even N for a gated epilogue (B's columns are gate and up pairs), got 15}}
  coalesce.fused_matmul geglu ins(%a, %b : memref<64x32xf32>, memref<32x15xf32>) outs(%c : memref<64x7xf32>)
  return
}

// -----

// A gated epilogue takes no bias.
func.func @fused_gated_bias(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %bias: memref<16xf32>, %c: memref<64x8xf32>) {
  // expected-error @+1 {{epilogue 'swiglu' takes no bias operand}}
  coalesce.fused_matmul swiglu ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) bias(%bias : memref<16xf32>) outs(%c : memref<64x8xf32>)
  return
}

// -----

// A gated epilogue needs a tile whose family stores it: simt does not.
func.func @fused_gated_simt(%a: memref<256x128xf32>, %b: memref<128x64xf32>, %c: memref<256x32xf32>) {
  // expected-error @+1 {{the family's kernels store no gated epilogue}}
  coalesce.fused_matmul swiglu ins(%a, %b : memref<256x128xf32>, memref<128x64xf32>) outs(%c : memref<256x32xf32>)
      {tile = #coalesce.tile<simt, bm = 128, bn = 128, bk = 16, wm = 64, wn = 32, tm = 8, tn = 8, stages = 3, vec = 4, group_m = 8, min_blocks = 2>}
  return
}

// -----

// The epilogue is a name of the registry (kernels/core/epilogues.hpp).
func.func @fused_unknown_epilogue(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %bias: memref<16xf32>, %c: memref<64x16xf32>) {
  // expected-error @+1 {{expected an epilogue (none, bias, bias_relu, bias_gelu, bias_gelu_tanh, bias_silu, bias_gelu_residual, swiglu, geglu), got 'bias_tanh'}}
  coalesce.fused_matmul bias_tanh ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) bias(%bias : memref<16xf32>) outs(%c : memref<64x16xf32>)
  return
}

// -----

// A tile config is legal for its family by SimtConfig::check(): a warp holds 32 thread tiles.
func.func @tile_invalid_for_family(%a: memref<256x128xf32>, %b: memref<128x64xf32>, %c: memref<256x64xf32>) {
  coalesce.fused_matmul none ins(%a, %b : memref<256x128xf32>, memref<128x64xf32>) outs(%c : memref<256x64xf32>)
      // expected-error @+1 {{invalid simt tile config (threads): a warp tile must hold exactly 32 thread tiles ((WM/TM)*(WN/TN) == 32)}}
      {tile = #coalesce.tile<simt, bm = 128, bn = 128, bk = 16, wm = 64, wn = 64, tm = 8, tn = 8, stages = 3, vec = 4, group_m = 8, min_blocks = 2>}
  return
}

// -----

// An mma tile is legal by MmaConfig::check(): a K slice holds at least two 32-byte k-steps.
func.func @mma_tile_invalid_for_family(%a: memref<256x128xbf16>, %b: memref<128x64xbf16>, %c: memref<256x64xbf16>) {
  coalesce.fused_matmul none ins(%a, %b : memref<256x128xbf16>, memref<128x64xbf16>) outs(%c : memref<256x64xbf16>)
      // expected-error @+1 {{invalid mma tile config (shape): bk_bytes must be 64, 128 or 256}}
      {tile = #coalesce.tile<mma, bm = 128, bn = 128, bk_bytes = 32, wm = 64, wn = 64, stages = 4, vec_bytes = 16, swizzle = 1, group_m = 8, min_blocks = 2>}
  return
}

// -----

// A tile config must fit its target: this pipeline needs 50688 bytes of shared memory.
func.func @tile_exceeds_target(%a: memref<256x128xf32>, %b: memref<128x64xf32>, %c: memref<256x64xf32>) {
  // expected-error @+1 {{tile config does not fit the target (smem): the pipeline's shared memory exceeds the device's per-block limit}}
  coalesce.fused_matmul none ins(%a, %b : memref<256x128xf32>, memref<128x64xf32>) outs(%c : memref<256x64xf32>)
      {tile = #coalesce.tile<simt, bm = 128, bn = 128, bk = 16, wm = 64, wn = 32, tm = 8, tn = 8, stages = 3, vec = 4, group_m = 8, min_blocks = 2>,
       target = #coalesce.target<arch = "sm_80", smem_per_block = 49152, regs_per_sm = 65536>}
  return
}

// -----

// Without a target the limits are the H200's: 8 stages of this tile need 270336 bytes.
func.func @tile_exceeds_default_target(%a: memref<256x128xf32>, %b: memref<128x64xf32>, %c: memref<256x64xf32>) {
  // expected-error @+1 {{tile config does not fit the target (smem)}}
  coalesce.fused_matmul none ins(%a, %b : memref<256x128xf32>, memref<128x64xf32>) outs(%c : memref<256x64xf32>)
      {tile = #coalesce.tile<simt, bm = 128, bn = 128, bk = 32, wm = 64, wn = 32, tm = 8, tn = 8, stages = 8, vec = 4, group_m = 8, min_blocks = 1>}
  return
}

// -----

// A tile config must fit the problem: 4-float copies of B need N % 4 == 0.
func.func @tile_vec_vs_problem(%a: memref<256x128xf32>, %b: memref<128x30xf32>, %c: memref<256x30xf32>) {
  // expected-error @+1 {{tile config does not fit the problem 256x30x128 f32 (divisibility): vec must divide N}}
  coalesce.fused_matmul none ins(%a, %b : memref<256x128xf32>, memref<128x30xf32>) outs(%c : memref<256x30xf32>)
      {tile = #coalesce.tile<simt, bm = 128, bn = 128, bk = 16, wm = 64, wn = 32, tm = 8, tn = 8, stages = 3, vec = 4, group_m = 8, min_blocks = 2>}
  return
}

// -----

// The simt family computes in f32: its plug-in refuses the dtype.
func.func @tile_on_bf16(%a: memref<256x128xbf16>, %b: memref<128x64xbf16>, %c: memref<256x64xbf16>) {
  // expected-error @+1 {{tile config does not fit the problem 256x64x128 bf16 (dtype): the simt family computes in f32 on the CUDA cores only}}
  coalesce.fused_matmul none ins(%a, %b : memref<256x128xbf16>, memref<128x64xbf16>) outs(%c : memref<256x64xbf16>)
      {tile = #coalesce.tile<simt, bm = 128, bn = 128, bk = 16, wm = 64, wn = 32, tm = 8, tn = 8, stages = 3, vec = 4, group_m = 8, min_blocks = 2>}
  return
}

// -----

// The mma family computes f32 as 3xTF32, whose lo fragments a 64x64 warp tile has no registers
// for (legal for the 16-bit dtypes and tf32).
func.func @mma_tile_on_f32(%a: memref<256x128xf32>, %b: memref<128x64xf32>, %c: memref<256x64xf32>) {
  // expected-error @+1 {{tile config does not fit the problem 256x64x128 f32 (registers): f32 runs as 3xTF32, whose fragments keep a second (lo) part}}
  coalesce.fused_matmul none ins(%a, %b : memref<256x128xf32>, memref<128x64xf32>) outs(%c : memref<256x64xf32>)
      {tile = #coalesce.tile<mma, bm = 128, bn = 128, bk_bytes = 64, wm = 64, wn = 64, stages = 4, vec_bytes = 16, swizzle = 1, group_m = 8, min_blocks = 1>}
  return
}

// -----

// 16-byte copies of a bf16 B need rows of a multiple of 16 bytes: N = 30 has 60.
func.func @mma_vec_vs_problem(%a: memref<256x128xbf16>, %b: memref<128x30xbf16>, %c: memref<256x30xbf16>) {
  // expected-error @+1 {{tile config does not fit the problem 256x30x128 bf16 (divisibility): vec_bytes must divide a row of B (N times the element size)}}
  coalesce.fused_matmul none ins(%a, %b : memref<256x128xbf16>, memref<128x30xbf16>) outs(%c : memref<256x30xbf16>)
      {tile = #coalesce.tile<mma, bm = 128, bn = 128, bk_bytes = 64, wm = 64, wn = 64, stages = 4, vec_bytes = 16, swizzle = 1, group_m = 8, min_blocks = 2>}
  return
}

// -----

// A target's figures are positive.
func.func @target_not_positive(%a: memref<256x128xf32>, %b: memref<128x64xf32>, %c: memref<256x64xf32>) {
  coalesce.fused_matmul none ins(%a, %b : memref<256x128xf32>, memref<128x64xf32>) outs(%c : memref<256x64xf32>)
      // expected-error @+1 {{target smem_per_block and regs_per_sm must be positive}}
      {target = #coalesce.target<arch = "sm_90", smem_per_block = 0, regs_per_sm = 65536>}
  return
}

// -----

// A family's plug-in judges its target: the simt pipeline needs cp.async (sm_80).
func.func @family_refuses_target(%a: memref<256x128xf32>, %b: memref<128x64xf32>, %c: memref<256x64xf32>) {
  // expected-error @+1 {{tile config does not fit the target (arch): the simt kernel's cp.async pipeline needs sm_80 or later}}
  coalesce.fused_matmul none ins(%a, %b : memref<256x128xf32>, memref<128x64xf32>) outs(%c : memref<256x64xf32>)
      {tile = #coalesce.tile<simt, bm = 128, bn = 128, bk = 16, wm = 64, wn = 32, tm = 8, tn = 8, stages = 3, vec = 4, group_m = 8, min_blocks = 2>,
       target = #coalesce.target<arch = "sm_75", smem_per_block = 65536, regs_per_sm = 65536>}
  return
}

// -----

// A target names an architecture as sm_<major><minor>[a].
func.func @target_bad_arch(%a: memref<256x128xf32>, %b: memref<128x64xf32>, %c: memref<256x64xf32>) {
  coalesce.fused_matmul none ins(%a, %b : memref<256x128xf32>, memref<128x64xf32>) outs(%c : memref<256x64xf32>)
      // expected-error @+1 {{target arch must read sm_<major><minor>, optionally followed by 'a' (e.g. sm_90a), not 'hopper'}}
      {target = #coalesce.target<arch = "hopper", smem_per_block = 232448, regs_per_sm = 65536>}
  return
}

// -----

// A tile names a registered family.
func.func @tile_unknown_family(%a: memref<256x128xf32>, %b: memref<128x64xf32>, %c: memref<256x64xf32>) {
  coalesce.fused_matmul none ins(%a, %b : memref<256x128xf32>, memref<128x64xf32>) outs(%c : memref<256x64xf32>)
      // expected-error @+1 {{unknown kernel family 'tensor' (known: simt}}
      {tile = #coalesce.tile<tensor, bm = 128>}
  return
}

// -----

// A tile gives every parameter of its family.
func.func @tile_missing_parameter(%a: memref<256x128xf32>, %b: memref<128x64xf32>, %c: memref<256x64xf32>) {
  coalesce.fused_matmul none ins(%a, %b : memref<256x128xf32>, memref<128x64xf32>) outs(%c : memref<256x64xf32>)
      // expected-error @+1 {{the simt tile is missing parameter 'min_blocks'}}
      {tile = #coalesce.tile<simt, bm = 128, bn = 128, bk = 16, wm = 64, wn = 32, tm = 8, tn = 8, stages = 3, vec = 4, group_m = 8>}
  return
}

// -----

// A tile gives only its family's parameters.
func.func @tile_unknown_parameter(%a: memref<256x128xf32>, %b: memref<128x64xf32>, %c: memref<256x64xf32>) {
  coalesce.fused_matmul none ins(%a, %b : memref<256x128xf32>, memref<128x64xf32>) outs(%c : memref<256x64xf32>)
      // expected-error @+1 {{the simt family has no parameter 'warps'}}
      {tile = #coalesce.tile<simt, warps = 8, bm = 128>}
  return
}

// -----

// TF32 is a math mode of f32 data: 16-bit operands have no TF32 form.
func.func @tf32_on_bf16(%a: memref<64x32xbf16>, %b: memref<32x16xbf16>, %c: memref<64x16xbf16>) {
  // expected-error @+1 {{asks for TF32 math on element type 'bf16'; TF32 rounds f32 operands only}}
  coalesce.matmul ins(%a, %b : memref<64x32xbf16>, memref<32x16xbf16>) outs(%c : memref<64x16xbf16>) {math = #coalesce.math<tensorfloat32>}
  return
}

// -----

// A, B and C share one element type: mixed types are refused.
func.func @mixed_element_types(%a: memref<64x32xbf16>, %b: memref<32x16xf16>, %c: memref<64x16xf32>) {
  // expected-error @+1 {{expects A, B and C to have the same element type}}
  coalesce.matmul ins(%a, %b : memref<64x32xbf16>, memref<32x16xf16>) outs(%c : memref<64x16xf32>)
  return
}

// -----

// A tf32 problem is not a simt one: the family's plug-in refuses the dtype.
func.func @simt_tile_on_tf32(%a: memref<256x128xf32>, %b: memref<128x64xf32>, %c: memref<256x64xf32>) {
  // expected-error @+1 {{tile config does not fit the problem 256x64x128 tf32 (dtype): the simt family computes in f32 on the CUDA cores only}}
  coalesce.fused_matmul none ins(%a, %b : memref<256x128xf32>, memref<128x64xf32>) outs(%c : memref<256x64xf32>)
      {math = #coalesce.math<tensorfloat32>, tile = #coalesce.tile<simt, bm = 128, bn = 128, bk = 16, wm = 64, wn = 32, tm = 8, tn = 8, stages = 3, vec = 4, group_m = 8, min_blocks = 2>}
  return
}

// -----

// A dtype needs its own wgmma kernel: tf32 is the one with BK = 32 (the transposed tile), so a
// 16-bit kernel's tile (BK = 64) on a tf32 problem is refused.
func.func @wgmma_tf32_needs_bk32(%a: memref<512x256xf32>, %b: memref<256x512xf32>, %bias: memref<512xf32>, %c: memref<512x512xf32>) {
  // expected-error @+1 {{tile config does not fit the problem 512x512x256 tf32 (dtype): tf32 needs the tf32 kernel, BK = 32 (a 128-byte row of f32)}}
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<512x256xf32>, memref<256x512xf32>) bias(%bias : memref<512xf32>) outs(%c : memref<512x512xf32>)
      {math = #coalesce.math<tensorfloat32>, tile = #coalesce.tile<wgmma, bm = 128, bn = 256, bk = 64, stages = 4, consumers = 2, cluster_m = 1, cluster_n = 1, persistent = 1, group_m = 8, tma_store = 0>}
  return
}
