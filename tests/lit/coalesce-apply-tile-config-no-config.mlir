// RUN: not coalesce-opt %s --split-input-file --coalesce-apply-tile-config 2>&1 | FileCheck %s --implicit-check-not="tile = #coalesce"
// RUN: not coalesce-opt %s --split-input-file "--coalesce-apply-tile-config=db=%coalesce_src/results/coalesce.db device='NVIDIA H200'" 2>&1 | FileCheck %s --check-prefix=DB --implicit-check-not="tile = #coalesce"

// Where no family has a legal config for an op, the pass stops with an error naming each
// family's reason (issue 39), and attaches none: never a config that cannot run. Every shape has
// a config on the H200 (coalesce-apply-tile-config-shapes.mlir), so what is left is a target
// that no config fits.

// A 7x9x13 f16 problem on a GPU with 2 KB of shared memory per block: every built-in tile needs
// more (the smallest, gemv's 2-byte one, 4 KB for its cross-warp reduction).
func.func @f16_7x9x13_small_smem(%a: memref<7x13xf16>, %b: memref<13x9xf16>, %bias: memref<9xf16>, %c: memref<7x9xf16>) {
  // CHECK: error: no built-in config of any family (simt{{(, [a-z]+)*}}) is legal for 7x9x13 f16 bias_gelu on sm_90; simt: dtype: {{.*}}; mma: smem: {{.*}}; wgmma: arch: {{.*}}; gemv: smem: {{.*}}
  // DB: error: no built-in config of any family
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<7x13xf16>, memref<13x9xf16>) bias(%bias : memref<9xf16>) outs(%c : memref<7x9xf16>)
      {target = #coalesce.target<arch = "sm_90", smem_per_block = 2048, regs_per_sm = 65536>}
  return
}

// -----

// An f32 1x1x1 problem on the same GPU: simt's and gemv's tiles do not fit either.
func.func @f32_1x1x1_small_smem(%a: memref<1x1xf32>, %b: memref<1x1xf32>, %bias: memref<1xf32>, %c: memref<1x1xf32>) {
  // CHECK: error: no built-in config of any family (simt{{(, [a-z]+)*}}) is legal for 1x1x1 f32 bias_gelu on sm_90; simt: smem: {{.*}}; mma: smem: {{.*}}
  // DB: error: no built-in config of any family
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<1x1xf32>, memref<1x1xf32>) bias(%bias : memref<1xf32>) outs(%c : memref<1x1xf32>)
      {target = #coalesce.target<arch = "sm_90", smem_per_block = 2048, regs_per_sm = 65536>}
  return
}
