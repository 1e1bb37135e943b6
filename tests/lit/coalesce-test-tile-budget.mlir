// RUN: coalesce-opt %s --coalesce-test-tile-budget -verify-diagnostics -o /dev/null

// SimtConfig{}'s defaults on the H200: 8 warps; 3 stages of a 16x(128+4) A and B slice is
// 50688 B; 64 accumulators + 8 + 8 + 40 = 120 predicted registers under the 128 that
// min_blocks = 2 leaves; 2 blocks per SM; a 4096^2 C is 32 x 32 tiles.
func.func @defaults(%a: memref<4096x4096xf32>, %b: memref<4096x4096xf32>, %bias: memref<4096xf32>, %c: memref<4096x4096xf32>) {
  // expected-remark @+1 {{simt tile: 256 threads, 50688 of 232448 B shared memory, 120 registers/thread (predicted, cap 128), 2 blocks/SM, grid 1024 blocks}}
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<4096x4096xf32>, memref<4096x4096xf32>) bias(%bias : memref<4096xf32>) outs(%c : memref<4096x4096xf32>)
      {tile = #coalesce.tile<simt, bm = 128, bn = 128, bk = 16, wm = 64, wn = 32, tm = 8, tn = 8, stages = 3, vec = 4, group_m = 8, min_blocks = 2>}
  return
}

// The budget is the target's: 8 stages of 32-deep slices (135168 B) against an sm_80 opt-in of
// 166912 B; one block per SM; partial edge tiles count (ceil(1000/128) x ceil(1000/128)).
func.func @deep_pipeline_on_sm80(%a: memref<1000x64xf32>, %b: memref<64x1000xf32>, %c: memref<1000x1000xf32>) {
  // expected-remark @+1 {{simt tile: 256 threads, 135168 of 166912 B shared memory, 120 registers/thread (predicted, cap 255), 1 blocks/SM, grid 64 blocks}}
  coalesce.fused_matmul none ins(%a, %b : memref<1000x64xf32>, memref<64x1000xf32>) outs(%c : memref<1000x1000xf32>)
      {tile = #coalesce.tile<simt, bm = 128, bn = 128, bk = 32, wm = 64, wn = 32, tm = 8, tn = 8, stages = 4, vec = 4, group_m = 8, min_blocks = 1>,
       target = #coalesce.target<arch = "sm_80", smem_per_block = 166912, regs_per_sm = 65536>}
  return
}

// A small tile: 4 warps, 4x8 thread tiles (32 + 4 + 8 + 40 = 84 registers, allocated as 88 per
// thread), so registers allow 5 blocks per SM.
// Shapes unknown at compile time have no grid figure.
func.func @small_tile_dynamic(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %bias: memref<?xf32>, %c: memref<?x?xf32>) {
  // expected-remark @+1 {{simt tile: 128 threads, 26112 of 232448 B shared memory, 84 registers/thread (predicted, cap 128), 5 blocks/SM}}
  coalesce.fused_matmul bias ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) bias(%bias : memref<?xf32>) outs(%c : memref<?x?xf32>)
      {tile = #coalesce.tile<simt, bm = 64, bn = 64, bk = 16, wm = 32, wn = 32, tm = 4, tn = 8, stages = 3, vec = 4, group_m = 8, min_blocks = 4>}
  return
}

// Untiled fused ops have no budget to report.
func.func @untiled(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %c: memref<64x16xf32>) {
  coalesce.fused_matmul none ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%c : memref<64x16xf32>)
  return
}
