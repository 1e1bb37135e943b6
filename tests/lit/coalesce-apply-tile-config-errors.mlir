// RUN: not coalesce-opt %s --coalesce-apply-tile-config=config=simt_f32_bm64 2>&1 | FileCheck %s --check-prefix=NOT-A-NAME --implicit-check-not="see current operation"
// RUN: not coalesce-opt %s --coalesce-apply-tile-config=config=simt_f32_bm64_bn64_bk16_wm32_wn32_tm4_tn8_s3_v4_g8_o4_bias 2>&1 | FileCheck %s --check-prefix=EPILOGUE
// RUN: not coalesce-opt %s --coalesce-apply-tile-config=config=simt_f32_bm64_bn64_bk16_wm32_wn32_tm4_tn8_s3_v4_g8_o4_bias_gelu 2>&1 | FileCheck %s --check-prefix=ILLEGAL
// RUN: not coalesce-opt %s --coalesce-apply-tile-config=config=simt_f32_bm128_bn128_bk16_wm64_wn32_tm8_tn8_s3_v2_g8_o2_sk16_bias_gelu 2>&1 | FileCheck %s --check-prefix=SPLIT
// RUN: not coalesce-opt %s "--coalesce-apply-tile-config=db=%t.missing/x.db device=H200" 2>&1 | FileCheck %s --check-prefix=NO-FILE
// RUN: rm -f %t.other.db && sqlite3 %t.other.db "CREATE TABLE t (x INTEGER);"
// RUN: not coalesce-opt %s "--coalesce-apply-tile-config=db=%t.other.db device=H200" 2>&1 | FileCheck %s --check-prefix=OTHER-APP --implicit-check-not="see current operation"
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: not coalesce-opt %s "--coalesce-apply-tile-config=db=%t.dir device=H200" 2>&1 | FileCheck %s --check-prefix=DIRECTORY
// RUN: printf 'not a database, just text\n%%.0s' 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 > %t.txt
// RUN: not coalesce-opt %s "--coalesce-apply-tile-config=db=%t.txt device=H200" 2>&1 | FileCheck %s --check-prefix=NOT-SQLITE
// RUN: rm -f %t.newer.db && sqlite3 %t.newer.db < %coalesce_src/schema/migrations/0001_init.sql
// RUN: sqlite3 %t.newer.db "PRAGMA application_id = 1131372908; PRAGMA user_version = 99;"
// RUN: not coalesce-opt %s "--coalesce-apply-tile-config=db=%t.newer.db device=H200" 2>&1 | FileCheck %s --check-prefix=NEWER
// RUN: rm -f %t.noview.db && sqlite3 %t.noview.db "CREATE TABLE t (x INTEGER); PRAGMA application_id = 1131372908; PRAGMA user_version = 1;"
// RUN: not coalesce-opt %s "--coalesce-apply-tile-config=db=%t.noview.db device=H200" 2>&1 | FileCheck %s --check-prefix=NOT-RESULTS
// RUN: not coalesce-opt %s --coalesce-apply-tile-config=config=simt_f32_bm0_bn128_bk16_wm64_wn32_tm8_tn8_s3_v4_g8_o2_bias_gelu 2>&1 | FileCheck %s --check-prefix=ZERO-SIDE
// RUN: not coalesce-opt %s --coalesce-apply-tile-config=config=simt_f32_bm1073741824_bn128_bk16_wm64_wn32_tm8_tn8_s3_v4_g8_o2_bias_gelu 2>&1 | FileCheck %s --check-prefix=HUGE-SIDE

// A config name is what coalesce::config_name derives; anything else is refused.
// NOT-A-NAME: error: config 'simt_f32_bm64' is not the name of a config of any family (simt{{(, [a-z]+)*}}; see coalesce::config_name)

// A config names its epilogue: it only goes on ops of that epilogue.
// EPILOGUE: error: config 'simt_f32_bm64_bn64_bk16_wm32_wn32_tm4_tn8_s3_v4_g8_o4_bias' is for f32 bias, but this op computes 256x30x128 f32 bias_gelu

// A config that does not fit the op's problem is refused with its family's reason.
// ILLEGAL: error: config 'simt_f32_bm64_bn64_bk16_wm32_wn32_tm4_tn8_s3_v4_g8_o4_bias_gelu' is not legal for 256x30x128 f32 bias_gelu on sm_90a (divisibility): vec must divide N (vector copies of B need aligned rows)

// A split-K config needs a BK-deep step of K for every slice: 16 slices of K = 128 in steps of 16
// are refused.
// SPLIT: error: config 'simt_f32_bm128_bn128_bk16_wm64_wn32_tm8_tn8_s3_v2_g8_o2_sk16_bias_gelu' is not legal for 256x30x128 f32 bias_gelu on sm_90a (shape): split-K needs at least one BK-deep step of K per slice

// A zero side is refused by the config's own rules before its resources are predicted (the
// prediction divides by it: the pass once stopped with SIGFPE).
// ZERO-SIDE: error: config 'simt_f32_bm0_bn128_bk16_wm64_wn32_tm8_tn8_s3_v4_g8_o2_bias_gelu' is not legal for 256x30x128 f32 bias_gelu on sm_90a (shape): every tile side must be positive

// A side of 2^30 is refused before the rules' int products wrap (they once divided by zero).
// HUGE-SIDE: error: config 'simt_f32_bm1073741824_bn128_bk16_wm64_wn32_tm8_tn8_s3_v4_g8_o2_bias_gelu' is not legal for 256x30x128 f32 bias_gelu on sm_90a (shape): every tile side must be at most 4096

// A database that cannot be opened stops the pass.
// NO-FILE: error: cannot open tuning database '{{.*}}x.db': unable to open database file

// Another application's SQLite file is refused by its application id, in one line.
// OTHER-APP: error: '{{.*}}other.db' is not a Coalesce results database (an SQLite file of another application)

// A directory is refused in one sentence.
// DIRECTORY: error: '{{.*}}.dir' is a directory, not a Coalesce results database

// A file that is not SQLite is refused.
// NOT-SQLITE: error: '{{.*}}.txt' is not a Coalesce results database (not an SQLite file)

// A database written by a newer schema is refused, as every Coalesce tool refuses it.
// NEWER: error: '{{.*}}newer.db' was written by a newer Coalesce (schema version 99; this compiler reads up to {{[0-9]+}}); use a newer build

// A Coalesce file without the results schema's views stops the pass.
// NOT-RESULTS: error: '{{.*}}noview.db' is not a Coalesce results database (no such table: v_ranked)
func.func @bias_gelu_n30(%a: memref<256x128xf32>, %b: memref<128x30xf32>, %bias: memref<30xf32>, %c: memref<256x30xf32>) {
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<256x128xf32>, memref<128x30xf32>) bias(%bias : memref<30xf32>) outs(%c : memref<256x30xf32>)
  return
}
