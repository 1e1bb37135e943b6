-- Measurements for coalesce-apply-tile-config-db.mlir, inserted into a database created with the
-- real schema (schema/migrations). Problem 1 is 256x64x128 f32 bias_gelu.
INSERT INTO devices VALUES
  (1, 'GPU-h200', 'NVIDIA H200', 'sm_90', 9, 0, 132, 62914560, 150000000000, 1980, 128,
   232448, 233472, 1024, 2048, 65536, 255, 32),
  (2, 'GPU-a100', 'NVIDIA A100-SXM4-80GB', 'sm_80', 8, 0, 108, 41943040, 80000000000, 1410, 64,
   166912, 167936, 1024, 2048, 65536, 255, 32);
INSERT INTO runs (id, device_id, resume_key, tool, tool_version, git_revision, command_line, host)
  VALUES (1, 1, 'k1', 'coalesce-tune', '0.1.0', 'abc', 'coalesce-tune sweep', 'h200-host'),
         (2, 2, 'k2', 'coalesce-tune', '0.1.0', 'abc', 'coalesce-tune sweep', 'a100-host');
INSERT INTO problems VALUES (1, 256, 64, 128, 'f32', 'bias_gelu'), (2, 256, 64, 128, 'f32', 'bias');
INSERT INTO configs VALUES
  (1, 'simt', 'simt_f32_bm128_bn128_bk32_wm64_wn32_tm8_tn8_s4_v4_g8_o1_bias_gelu', '{}', 'h1'),
  (2, 'simt', 'simt_f32_bm128_bn128_bk16_wm64_wn32_tm8_tn8_s3_v4_g8_o2_bias_gelu', '{}', 'h2'),
  (3, 'simt', 'simt_f32_bm64_bn64_bk16_wm32_wn32_tm4_tn8_s3_v4_g8_o4_bias_gelu', '{}', 'h3'),
  (4, 'simt', 'simt_f32_bm128_bn64_bk16_wm32_wn32_tm8_tn4_s3_v4_g8_o2_bias_gelu', '{}', 'h4'),
  (5, 'simt', 'simt_f32_bm128_bn64_bk16_wm32_wn32_tm8_tn4_s3_v4_g8_o2_bias', '{}', 'h5');
-- (id, run, device, problem, method, config, status, median, rel_err): config 3 is the fastest on
-- the H200 but computed a wrong result; config 4 is fastest on the A100; config 5 is another
-- epilogue. Config 1 is the fastest correct H200 row, config 2 the next.
INSERT INTO measurements (id, run_id, device_id, problem_id, method, config_id, status, median_ms,
                          min_ms, max_ms, p10_ms, p90_ms, rel_spread, samples, tflops, rel_err,
                          max_abs_err)
  VALUES (1, 1, 1, 1, 'coalesce', 1, 'ok', 0.010, 0.009, 0.012, 0.009, 0.011, 0.2, 20, 0.4, 1e-7, 1e-6),
         (2, 1, 1, 1, 'coalesce', 2, 'ok', 0.020, 0.019, 0.022, 0.019, 0.021, 0.1, 20, 0.2, 1e-7, 1e-6),
         (4, 2, 2, 1, 'coalesce', 4, 'ok', 0.001, 0.001, 0.002, 0.001, 0.002, 0.5, 20, 4.0, 1e-7, 1e-6),
         (5, 1, 1, 2, 'coalesce', 5, 'ok', 0.001, 0.001, 0.002, 0.001, 0.002, 0.5, 20, 4.0, 1e-7, 1e-6);
INSERT INTO measurements (id, run_id, device_id, problem_id, method, config_id, status, rel_err,
                          max_abs_err)
  VALUES (3, 1, 1, 1, 'coalesce', 3, 'wrong_result', 0.5, 3.0);
