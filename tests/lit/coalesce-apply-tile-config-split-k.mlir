// Split-K configs (kernels/core/family.hpp kSplitParam) through coalesce-apply-tile-config: by
// name, and from the tuning database when a split config measured fastest.
// RUN: coalesce-opt %s --split-input-file --coalesce-apply-tile-config=config=simt_f32_bm64_bn64_bk16_wm32_wn32_tm4_tn8_s3_v4_g8_o4_sk4_bias_gelu | FileCheck %s --check-prefix=OPTION
// RUN: coalesce-opt %s --split-input-file --coalesce-apply-tile-config=config=simt_f32_bm64_bn64_bk16_wm32_wn32_tm4_tn8_s3_v4_g8_o4_sk4_bias_gelu | coalesce-translate --split-input-file --mlir-to-cuda-host-entries | FileCheck %s --check-prefix=HOST
// RUN: rm -f %t.db
// RUN: sqlite3 %t.db < %coalesce_src/schema/migrations/0001_init.sql
// RUN: sqlite3 %t.db "PRAGMA application_id = 1131372908; PRAGMA user_version = 1;"
// RUN: sqlite3 %t.db < %S/Inputs/tuning-db.sql
// RUN: sqlite3 %t.db "INSERT INTO configs VALUES (6, 'simt', 'simt_f32_bm128_bn128_bk32_wm64_wn32_tm8_tn8_s4_v4_g8_o1_sk4_bias_gelu', '{}', 'h6'); INSERT INTO measurements (id, run_id, device_id, problem_id, method, config_id, status, median_ms, min_ms, max_ms, p10_ms, p90_ms, rel_spread, samples, tflops, rel_err, max_abs_err) VALUES (6, 1, 1, 1, 'coalesce', 6, 'ok', 0.005, 0.004, 0.006, 0.004, 0.006, 0.2, 20, 0.8, 1e-7, 1e-6);"
// RUN: coalesce-opt %s --split-input-file "--coalesce-apply-tile-config=db=%t.db device='NVIDIA H200'" | FileCheck %s --check-prefix=DB

// The option's split factor is the tile's parameter `split`, printed after the others.
// OPTION-LABEL: func.func @split_by_name
// OPTION-NEXT: coalesce.fused_matmul bias_gelu {{.*}} {tile = #coalesce.tile<simt, bm = 64, bn = 64, bk = 16, wm = 32, wn = 32, tm = 4, tn = 8, stages = 3, vec = 4, group_m = 8, min_blocks = 4, split = 4>}
// The applied config's host entry passes its name, split included, to the runtime, which
// launches the split and its reduce.
// HOST: COALESCE_DEFINE_MLIR_FUSED_ENTRY(coalesce_fused_matmul_simt_f32_bm64_bn64_bk16_wm32_wn32_tm4_tn8_s3_v4_g8_o4_sk4_bias_gelu, "simt_f32_bm64_bn64_bk16_wm32_wn32_tm4_tn8_s3_v4_g8_o4_sk4_bias_gelu", COALESCE_F32, "bias_gelu", nullptr)
// The database's fastest ok row is a split config (config 6, 0.005 ms): it is applied.
// DB-LABEL: func.func @split_by_name
// DB-NEXT: coalesce.fused_matmul bias_gelu {{.*}} {tile = #coalesce.tile<simt, bm = 128, bn = 128, bk = 32, wm = 64, wn = 32, tm = 8, tn = 8, stages = 4, vec = 4, group_m = 8, min_blocks = 1, split = 4>}
func.func @split_by_name(%a: memref<256x128xf32>, %b: memref<128x64xf32>, %bias: memref<64xf32>, %c: memref<256x64xf32>) {
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<256x128xf32>, memref<128x64xf32>) bias(%bias : memref<64xf32>) outs(%c : memref<256x64xf32>)
  return
}

// -----

// A split config written as a tile attribute round-trips with its split; one without `split`
// is unsplit and prints none.
// OPTION-LABEL: func.func @split_attribute
// OPTION-NEXT: coalesce.fused_matmul bias_gelu {{.*}} {tile = #coalesce.tile<simt, bm = 64, bn = 64, bk = 16, wm = 32, wn = 32, tm = 4, tn = 8, stages = 3, vec = 4, group_m = 8, min_blocks = 4, split = 2>}
// OPTION-NEXT: coalesce.fused_matmul bias_gelu {{.*}} {tile = #coalesce.tile<simt, bm = 64, bn = 64, bk = 16, wm = 32, wn = 32, tm = 4, tn = 8, stages = 3, vec = 4, group_m = 8, min_blocks = 4>}
// HOST: COALESCE_DEFINE_MLIR_FUSED_ENTRY(coalesce_fused_matmul_simt_f32_bm64_bn64_bk16_wm32_wn32_tm4_tn8_s3_v4_g8_o4_sk2_bias_gelu, "simt_f32_bm64_bn64_bk16_wm32_wn32_tm4_tn8_s3_v4_g8_o4_sk2_bias_gelu", COALESCE_F32, "bias_gelu", nullptr)
// HOST-NEXT: COALESCE_DEFINE_MLIR_FUSED_ENTRY(coalesce_fused_matmul_simt_f32_bm64_bn64_bk16_wm32_wn32_tm4_tn8_s3_v4_g8_o4_bias_gelu, "simt_f32_bm64_bn64_bk16_wm32_wn32_tm4_tn8_s3_v4_g8_o4_bias_gelu", COALESCE_F32, "bias_gelu", nullptr)
func.func @split_attribute(%a: memref<256x128xf32>, %b: memref<128x64xf32>, %bias: memref<64xf32>, %c: memref<256x64xf32>) {
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<256x128xf32>, memref<128x64xf32>) bias(%bias : memref<64xf32>) outs(%c : memref<256x64xf32>)
      {tile = #coalesce.tile<simt, bm = 64, bn = 64, bk = 16, wm = 32, wn = 32, tm = 4, tn = 8, stages = 3, vec = 4, group_m = 8, min_blocks = 4, split = 2>}
  coalesce.fused_matmul bias_gelu ins(%a, %b : memref<256x128xf32>, memref<128x64xf32>) bias(%bias : memref<64xf32>) outs(%c : memref<256x64xf32>)
      {tile = #coalesce.tile<simt, bm = 64, bn = 64, bk = 16, wm = 32, wn = 32, tm = 4, tn = 8, stages = 3, vec = 4, group_m = 8, min_blocks = 4, split = 1>}
  return
}
