// The database step takes the fastest legal config of any family (docs/compiler.md): a bf16
// problem measured with an mma and a faster wgmma config (Inputs/tuning-db-families.sql) gets the
// wgmma one on sm_90a, and on sm_90, where wgmma is not legal, the mma one.
// RUN: rm -f %t.db
// RUN: cat %coalesce_src/schema/migrations/000[1-7]_*.sql | sqlite3 %t.db
// RUN: sqlite3 %t.db "PRAGMA application_id = 1131372908; PRAGMA user_version = 7;"
// RUN: sqlite3 %t.db < %S/Inputs/tuning-db.sql
// RUN: sqlite3 %t.db < %S/Inputs/tuning-db-families.sql
// RUN: coalesce-opt %s "--coalesce-apply-tile-config=db=%t.db device='NVIDIA H200'" | FileCheck %s

// CHECK-LABEL: func.func @on_sm90a
// CHECK-NEXT: coalesce.fused_matmul bias_gelu {{.*}} {tile = #coalesce.tile<wgmma, bm = 128, bn = 256, bk = 64, stages = 4, consumers = 2, cluster_m = 1, cluster_n = 1, persistent = 1, group_m = 8, tma_store = 0>}
func.func @on_sm90a(%a: memref<256x128xbf16>, %b: memref<128x256xbf16>, %bias: memref<256xbf16>, %c: memref<256x256xbf16>) {
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<256x128xbf16>, memref<128x256xbf16>) bias(%bias : memref<256xbf16>) outs(%c : memref<256x256xbf16>)
  return
}

// CHECK-LABEL: func.func @on_sm90
// CHECK-NEXT: coalesce.fused_matmul bias_gelu {{.*}} tile = #coalesce.tile<mma, bm = 128, bn = 128, bk_bytes = 64, wm = 64, wn = 64, stages = 3, vec_bytes = 16, swizzle = 1, group_m = 8, min_blocks = 1>}
func.func @on_sm90(%a: memref<256x128xbf16>, %b: memref<128x256xbf16>, %bias: memref<256xbf16>, %c: memref<256x256xbf16>) {
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<256x128xbf16>, memref<128x256xbf16>) bias(%bias : memref<256xbf16>) outs(%c : memref<256x256xbf16>)
      {target = #coalesce.target<arch = "sm_90", smem_per_block = 232448, regs_per_sm = 65536>}
  return
}
