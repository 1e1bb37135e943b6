// A tuning database at the current schema (every migration, schema/migrations, version 7) with
// the rows of Inputs/tuning-db.sql and one steady-state run (3,000 samples per method): its row
// of config 2 (0.030 ms) is slower than the default-sampling row of config 1 (0.010 ms), and the
// ranking takes it first, as v_ranked does (docs/tuner.md, "The steady state").
// RUN: rm -f %t.db
// RUN: cat %coalesce_src/schema/migrations/000[1-7]_*.sql | sqlite3 %t.db
// RUN: sqlite3 %t.db "PRAGMA application_id = 1131372908; PRAGMA user_version = 7;"
// RUN: sqlite3 %t.db < %S/Inputs/tuning-db.sql
// RUN: sqlite3 %t.db < %S/Inputs/tuning-db-steady.sql
// RUN: coalesce-opt %s "--coalesce-apply-tile-config=db=%t.db device='NVIDIA H200'" | FileCheck %s
// RUN: coalesce-opt %s "--coalesce-apply-tile-config=db=%t.db device='NVIDIA A100-SXM4-80GB'" | FileCheck %s --check-prefix=A100

// CHECK-LABEL: func.func @measured
// CHECK-NEXT: coalesce.fused_matmul bias_gelu {{.*}} {tile = #coalesce.tile<simt, bm = 128, bn = 128, bk = 16, wm = 64, wn = 32, tm = 8, tn = 8, stages = 3, vec = 4, group_m = 8, min_blocks = 2>}
// The A100 has no steady-state row: its fastest (config 4).
// A100-LABEL: func.func @measured
// A100-NEXT: coalesce.fused_matmul bias_gelu {{.*}} {tile = #coalesce.tile<simt, bm = 128, bn = 64, bk = 16, wm = 32, wn = 32, tm = 8, tn = 4, stages = 3, vec = 4, group_m = 8, min_blocks = 2>}
func.func @measured(%a: memref<256x128xf32>, %b: memref<128x64xf32>, %bias: memref<64xf32>, %c: memref<256x64xf32>) {
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<256x128xf32>, memref<128x64xf32>) bias(%bias : memref<64xf32>) outs(%c : memref<256x64xf32>)
  return
}
