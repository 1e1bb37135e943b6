-- Rows for coalesce-apply-tile-config-families.mlir, after Inputs/tuning-db.sql: problem 3 is
-- 256x256x128 bf16 bias_gelu, measured on the H200 with an mma config (0.020 ms) and a faster
-- wgmma config (0.015 ms).
INSERT INTO problems VALUES (3, 256, 256, 128, 'bf16', 'bias_gelu');
INSERT INTO configs VALUES
  (6, 'mma', 'mma_bf16_bm128_bn128_kb64_wm64_wn64_s3_v16_sw1_g8_o1_bias_gelu', '{}', 'h6'),
  (7, 'wgmma', 'wgmma_bf16_bm128_bn256_bk64_s4_wg2_cm1_cn1_p1_g8_ts0_bias_gelu', '{}', 'h7');
INSERT INTO measurements (id, run_id, device_id, problem_id, method, config_id, status, median_ms,
                          min_ms, max_ms, p10_ms, p90_ms, rel_spread, samples, tflops, rel_err,
                          max_abs_err)
  VALUES (10, 1, 1, 3, 'coalesce', 6, 'ok', 0.020, 0.019, 0.022, 0.019, 0.021, 0.1, 20, 0.8, 1e-3, 1e-2),
         (11, 1, 1, 3, 'coalesce', 7, 'ok', 0.015, 0.014, 0.016, 0.014, 0.016, 0.1, 20, 1.1, 1e-3, 1e-2);
