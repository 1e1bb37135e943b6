// How `device=` picks the measurements a tuning database run reads (issue 38): a name never
// silently misses. The database (real schema, Inputs/tuning-db.sql) holds an H200, an A100 and,
// added here, an H100 without measurements. COALESCE_TEST_NVIDIA_PROC stands in for
// /proc/driver/nvidia/gpus: an empty directory is a machine without a GPU, a directory with one
// `information` file per GPU a machine with those GPUs.
// RUN: rm -rf %t && mkdir -p %t/no-gpu %t/h200/0000:01:00.0 %t/b200/0000:01:00.0 %t/mixed/0000:01:00.0 %t/mixed/0000:02:00.0
// RUN: printf 'Model: \t\t NVIDIA H200\nIRQ:   \t\t 42\n' > %t/h200/0000:01:00.0/information
// RUN: printf 'Model: \t\t NVIDIA B200\n' > %t/b200/0000:01:00.0/information
// RUN: cp %t/h200/0000:01:00.0/information %t/mixed/0000:01:00.0/information
// RUN: printf 'Model: \t\t NVIDIA A100-SXM4-80GB\n' > %t/mixed/0000:02:00.0/information
// RUN: sqlite3 %t/all.db < %coalesce_src/schema/migrations/0001_init.sql
// RUN: sqlite3 %t/all.db "PRAGMA application_id = 1131372908; PRAGMA user_version = 1;"
// RUN: sqlite3 %t/all.db < %S/Inputs/tuning-db.sql
// RUN: sqlite3 %t/all.db "INSERT INTO devices VALUES (3, 'GPU-h100', 'NVIDIA H100 80GB HBM3', 'sm_90', 9, 0, 132, 52428800, 80000000000, 1980, 128, 232448, 233472, 1024, 2048, 65536, 255, 32);"
// RUN: cp %t/all.db %t/one.db
// RUN: sqlite3 %t/one.db "DELETE FROM measurements WHERE device_id <> 1; DELETE FROM runs WHERE device_id <> 1; DELETE FROM devices WHERE id <> 1;"
//
// A short model name that one stored name contains, in any case, is that device.
// RUN: env COALESCE_TEST_NVIDIA_PROC=%t/no-gpu coalesce-opt %s "--coalesce-apply-tile-config=db=%t/all.db device=H200" | FileCheck %s --check-prefix=H200
// RUN: env COALESCE_TEST_NVIDIA_PROC=%t/no-gpu coalesce-opt %s "--coalesce-apply-tile-config=db=%t/all.db device=a100" | FileCheck %s --check-prefix=A100
// The full stored name still works.
// RUN: env COALESCE_TEST_NVIDIA_PROC=%t/no-gpu coalesce-opt %s "--coalesce-apply-tile-config=db=%t/all.db device='NVIDIA H200'" | FileCheck %s --check-prefix=H200
// A name no stored device contains is an error listing the stored names.
// RUN: env COALESCE_TEST_NVIDIA_PROC=%t/no-gpu not coalesce-opt %s "--coalesce-apply-tile-config=db=%t/all.db device=V100" 2>&1 | FileCheck %s --check-prefix=NO-MATCH --implicit-check-not="see current operation"
// A name several stored devices contain is an error listing them.
// RUN: env COALESCE_TEST_NVIDIA_PROC=%t/no-gpu not coalesce-opt %s "--coalesce-apply-tile-config=db=%t/all.db device=nvidia" 2>&1 | FileCheck %s --check-prefix=AMBIGUOUS
// RUN: env COALESCE_TEST_NVIDIA_PROC=%t/no-gpu not coalesce-opt %s "--coalesce-apply-tile-config=db=%t/all.db device=H" 2>&1 | FileCheck %s --check-prefix=AMBIGUOUS-H
// Without device= on a machine without a GPU: the database's only device ...
// RUN: env COALESCE_TEST_NVIDIA_PROC=%t/no-gpu coalesce-opt %s "--coalesce-apply-tile-config=db=%t/one.db" | FileCheck %s --check-prefix=H200
// ... and with several stored devices an error listing them.
// RUN: env COALESCE_TEST_NVIDIA_PROC=%t/no-gpu not coalesce-opt %s "--coalesce-apply-tile-config=db=%t/all.db" 2>&1 | FileCheck %s --check-prefix=SEVERAL
// Without device= on a machine with a GPU: that GPU's model ...
// RUN: env COALESCE_TEST_NVIDIA_PROC=%t/h200 coalesce-opt %s "--coalesce-apply-tile-config=db=%t/all.db" | FileCheck %s --check-prefix=H200
// ... which must be stored ...
// RUN: env COALESCE_TEST_NVIDIA_PROC=%t/b200 not coalesce-opt %s "--coalesce-apply-tile-config=db=%t/all.db" 2>&1 | FileCheck %s --check-prefix=LOCAL-MISSING
// ... and must be one model.
// RUN: env COALESCE_TEST_NVIDIA_PROC=%t/mixed not coalesce-opt %s "--coalesce-apply-tile-config=db=%t/all.db" 2>&1 | FileCheck %s --check-prefix=MIXED
// device= names whose measurements to read: without db= it would be ignored, so it is an error.
// RUN: not coalesce-opt %s "--coalesce-apply-tile-config=device=H200" 2>&1 | FileCheck %s --check-prefix=NO-DB

// The H200's fastest ok row (config 1); the A100's (config 4).
// H200-LABEL: func.func @measured
// H200-NEXT: coalesce.fused_matmul bias_gelu {{.*}} {tile = #coalesce.tile<simt, bm = 128, bn = 128, bk = 32, wm = 64, wn = 32, tm = 8, tn = 8, stages = 4, vec = 4, group_m = 8, min_blocks = 1>}
// A100-LABEL: func.func @measured
// A100-NEXT: coalesce.fused_matmul bias_gelu {{.*}} {tile = #coalesce.tile<simt, bm = 128, bn = 64, bk = 16, wm = 32, wn = 32, tm = 8, tn = 4, stages = 3, vec = 4, group_m = 8, min_blocks = 2>}
func.func @measured(%a: memref<256x128xf32>, %b: memref<128x64xf32>, %bias: memref<64xf32>, %c: memref<256x64xf32>) {
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<256x128xf32>, memref<128x64xf32>) bias(%bias : memref<64xf32>) outs(%c : memref<256x64xf32>)
  return
}

// NO-MATCH: error: device 'V100' matches no device of tuning database '{{.*}}all.db' (stored: 'NVIDIA A100-SXM4-80GB', 'NVIDIA H100 80GB HBM3', 'NVIDIA H200')
// AMBIGUOUS: error: device 'nvidia' matches several devices of tuning database '{{.*}}all.db' ('NVIDIA A100-SXM4-80GB', 'NVIDIA H100 80GB HBM3', 'NVIDIA H200'); name one with device=<name>
// AMBIGUOUS-H: error: device 'H' matches several devices of tuning database '{{.*}}all.db' ('NVIDIA H100 80GB HBM3', 'NVIDIA H200'); name one with device=<name>
// SEVERAL: error: tuning database '{{.*}}all.db' holds several devices ('NVIDIA A100-SXM4-80GB', 'NVIDIA H100 80GB HBM3', 'NVIDIA H200'); name one with device=<name>
// LOCAL-MISSING: error: this machine's GPU 'NVIDIA B200' matches no device of tuning database '{{.*}}all.db' (stored: 'NVIDIA A100-SXM4-80GB', 'NVIDIA H100 80GB HBM3', 'NVIDIA H200')
// MIXED: error: this machine has GPUs of several models ('NVIDIA A100-SXM4-80GB', 'NVIDIA H200'); name the one whose measurements to use with device=<name>
// NO-DB: error: device='H200' names whose measurements to read, but no db=<path> is given
