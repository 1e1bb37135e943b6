// A tuning database with the real schema (schema/migrations) at version 1, stamped as the tools
// stamp it (application id 'Coal'), and the rows of Inputs/tuning-db.sql: an older schema is read.
// RUN: rm -f %t.db
// RUN: sqlite3 %t.db < %coalesce_src/schema/migrations/0001_init.sql
// RUN: sqlite3 %t.db "PRAGMA application_id = 1131372908; PRAGMA user_version = 1;"
// RUN: sqlite3 %t.db < %S/Inputs/tuning-db.sql
// RUN: coalesce-opt %s -verify-diagnostics "--coalesce-apply-tile-config=db=%t.db device='NVIDIA H200'" | FileCheck %s
// RUN: coalesce-opt %s "--coalesce-apply-tile-config=db=%t.db device='NVIDIA A100-SXM4-80GB'" 2>/dev/null | FileCheck %s --check-prefix=A100

// The fastest ok row of this problem on this device (config 1): the wrong result measured
// faster, the A100's row and the other epilogue's row do not count.
// CHECK-LABEL: func.func @measured
// CHECK-NEXT: coalesce.fused_matmul bias_gelu {{.*}} {tile = #coalesce.tile<simt, bm = 128, bn = 128, bk = 32, wm = 64, wn = 32, tm = 8, tn = 8, stages = 4, vec = 4, group_m = 8, min_blocks = 1>}
// Another device's measurements are its own (config 4).
// A100-LABEL: func.func @measured
// A100-NEXT: coalesce.fused_matmul bias_gelu {{.*}} {tile = #coalesce.tile<simt, bm = 128, bn = 64, bk = 16, wm = 32, wn = 32, tm = 8, tn = 4, stages = 3, vec = 4, group_m = 8, min_blocks = 2>}
func.func @measured(%a: memref<256x128xf32>, %b: memref<128x64xf32>, %bias: memref<64xf32>, %c: memref<256x64xf32>) {
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<256x128xf32>, memref<128x64xf32>) bias(%bias : memref<64xf32>) outs(%c : memref<256x64xf32>)
  return
}

// The fastest row (config 1, 135168 B of shared memory) does not fit this target: the next
// one does (config 2).
// CHECK-LABEL: func.func @fastest_too_big
// CHECK-NEXT: coalesce.fused_matmul bias_gelu {{.*}} tile = #coalesce.tile<simt, bm = 128, bn = 128, bk = 16, wm = 64, wn = 32, tm = 8, tn = 8, stages = 3, vec = 4, group_m = 8, min_blocks = 2>}
func.func @fastest_too_big(%a: memref<256x128xf32>, %b: memref<128x64xf32>, %bias: memref<64xf32>, %c: memref<256x64xf32>) {
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<256x128xf32>, memref<128x64xf32>) bias(%bias : memref<64xf32>) outs(%c : memref<256x64xf32>)
      {target = #coalesce.target<arch = "sm_90", smem_per_block = 120000, regs_per_sm = 65536>}
  return
}

// A problem the database has not measured gets the built-in fallback, with a remark.
// CHECK-LABEL: func.func @not_measured
// CHECK-NEXT: coalesce.fused_matmul bias_gelu {{.*}} {tile = #coalesce.tile<simt, bm = 128, bn = 128, bk = 16, wm = 64, wn = 32, tm = 8, tn = 8, stages = 3, vec = 4, group_m = 8, min_blocks = 2>}
func.func @not_measured(%a: memref<512x128xf32>, %b: memref<128x64xf32>, %bias: memref<64xf32>, %c: memref<512x64xf32>) {
  // expected-remark @+1 {{the tuning database has no legal config for 512x64x128 f32 bias_gelu on sm_90a on 'NVIDIA H200'; using the built-in fallback}}
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<512x128xf32>, memref<128x64xf32>) bias(%bias : memref<64xf32>) outs(%c : memref<512x64xf32>)
  return
}
