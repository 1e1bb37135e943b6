// A tuning database at schema 8 (schema/migrations, every migration) with the rows of
// Inputs/tuning-db.sql (flush_b2b) and Inputs/tuning-db-protocol.sql (flush_spin and steady_b2b
// runs). Medians are compared within one timing protocol only: the most preferred protocol
// measured answers (protocols.preference: flush_spin ahead of steady_b2b and flush_b2b), and
// within it the fastest, config 2 (0.030 ms), although config 1 was faster in both other
// protocols (docs/tuner.md, "The timing protocol").
// RUN: rm -f %t.db
// RUN: cat %coalesce_src/schema/migrations/000[1-8]_*.sql | sqlite3 %t.db
// RUN: sqlite3 %t.db "PRAGMA application_id = 1131372908; PRAGMA user_version = 8;"
// RUN: sqlite3 %t.db < %S/Inputs/tuning-db.sql
// RUN: sqlite3 %t.db < %S/Inputs/tuning-db-protocol.sql
// RUN: sqlite3 %t.db "SELECT group_concat(protocol, ',') FROM (SELECT protocol FROM measurements ORDER BY id)" | FileCheck %s --check-prefix=ROWS
// RUN: coalesce-opt %s "--coalesce-apply-tile-config=db=%t.db device='NVIDIA H200'" | FileCheck %s
// RUN: coalesce-opt %s "--coalesce-apply-tile-config=db=%t.db device='NVIDIA A100-SXM4-80GB'" | FileCheck %s --check-prefix=A100

// ROWS: flush_b2b,flush_b2b,flush_b2b,flush_b2b,flush_b2b,flush_spin,flush_spin,steady_b2b
// CHECK-LABEL: func.func @measured
// CHECK-NEXT: coalesce.fused_matmul bias_gelu {{.*}} {tile = #coalesce.tile<simt, bm = 128, bn = 128, bk = 16, wm = 64, wn = 32, tm = 8, tn = 8, stages = 3, vec = 4, group_m = 8, min_blocks = 2>}
// The A100 was measured in flush_b2b only: its fastest there (config 4).
// A100-LABEL: func.func @measured
// A100-NEXT: coalesce.fused_matmul bias_gelu {{.*}} {tile = #coalesce.tile<simt, bm = 128, bn = 64, bk = 16, wm = 32, wn = 32, tm = 8, tn = 4, stages = 3, vec = 4, group_m = 8, min_blocks = 2>}
func.func @measured(%a: memref<256x128xf32>, %b: memref<128x64xf32>, %bias: memref<64xf32>, %c: memref<256x64xf32>) {
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<256x128xf32>, memref<128x64xf32>) bias(%bias : memref<64xf32>) outs(%c : memref<256x64xf32>)
  return
}
