-- 0003_types_and_peaks: the tensor-core dtypes arrive (docs/database.md, "Types and peaks").
--   * math_peaks: dense multiply-add throughput per SM and clock for each (architecture, math
--     mode); v_peaks turns it into TFLOP/s per device at its max SM clock, so a report states
--     "% of BF16 tensor peak" as it states FP32's. It replaces v_devices.fp32_peak_tflops.
--   * measurements.max_scaled_err: the elementwise error figure of the check (harness/check.hpp:
--     max |out - ref| / (|pre-activation| + rms)); NULL on rows measured before it existed.
-- Every existing row is kept; only views are replaced.

CREATE TABLE math_peaks (
  cc_major               INTEGER NOT NULL CHECK (cc_major >= 0),
  cc_minor               INTEGER NOT NULL CHECK (cc_minor >= 0),
  math                   TEXT    NOT NULL CHECK (math IN ('f32', 'tf32', 'bf16', 'f16')),
  -- Dense FLOP per clock per SM (a multiply-add counts 2). f32 is the CUDA cores' FFMA rate.
  flops_per_clock_per_sm INTEGER NOT NULL CHECK (flops_per_clock_per_sm > 0),
  source                 TEXT    NOT NULL,
  PRIMARY KEY (cc_major, cc_minor, math)
) STRICT;

-- sm_80 (A100): 108 SMs at 1410 MHz give the datasheet's 19.5 (FP32), 156 (TF32) and 312
-- (BF16/FP16) dense TFLOP/s. sm_90 (H100/H200 SXM): 132 SMs give 67 TFLOP/s FP32 at 1980 MHz and
-- the datasheet's 495 (TF32) and 990 (BF16/FP16) dense at 1830 MHz; at the 1980 MHz the H200's
-- NVML reports as its max SM clock these rates are 535 and 1070.
INSERT INTO math_peaks (cc_major, cc_minor, math, flops_per_clock_per_sm, source) VALUES
  (8, 0, 'f32', 128, 'NVIDIA A100 datasheet: 19.5 TFLOP/s FP32 over 108 SMs at 1410 MHz'),
  (8, 0, 'tf32', 1024, 'NVIDIA A100 datasheet: 156 TFLOP/s dense TF32 over 108 SMs at 1410 MHz'),
  (8, 0, 'bf16', 2048, 'NVIDIA A100 datasheet: 312 TFLOP/s dense BF16 over 108 SMs at 1410 MHz'),
  (8, 0, 'f16', 2048, 'NVIDIA A100 datasheet: 312 TFLOP/s dense FP16 over 108 SMs at 1410 MHz'),
  (9, 0, 'f32', 256, 'NVIDIA H100 SXM datasheet: 67 TFLOP/s FP32 over 132 SMs at 1980 MHz'),
  (9, 0, 'tf32', 2048, 'NVIDIA H100 SXM datasheet: 495 TFLOP/s dense TF32 over 132 SMs at 1830 MHz'),
  (9, 0, 'bf16', 4096, 'NVIDIA H100 SXM datasheet: 990 TFLOP/s dense BF16 over 132 SMs at 1830 MHz'),
  (9, 0, 'f16', 4096, 'NVIDIA H100 SXM datasheet: 990 TFLOP/s dense FP16 over 132 SMs at 1830 MHz');

-- Each device's peak per math mode at its max SM clock (none when NVML gave no clock).
CREATE VIEW v_peaks AS
SELECT d.id AS device_id, p.math, p.flops_per_clock_per_sm,
       d.sm_count * p.flops_per_clock_per_sm * d.max_sm_clock_mhz / 1e6 AS peak_tflops
FROM devices d
JOIN math_peaks p ON p.cc_major = d.cc_major AND p.cc_minor = d.cc_minor
WHERE d.max_sm_clock_mhz > 0;

-- Devices with their peak per math mode (the FP32-only fp32_peak_tflops is gone; f32_peak_tflops
-- is the same figure).
DROP VIEW v_devices;
CREATE VIEW v_devices AS
SELECT d.*, (SELECT v.peak_tflops FROM v_peaks v WHERE v.device_id = d.id AND v.math = 'f32') AS f32_peak_tflops,
       (SELECT v.peak_tflops FROM v_peaks v WHERE v.device_id = d.id AND v.math = 'tf32') AS tf32_peak_tflops,
       (SELECT v.peak_tflops FROM v_peaks v WHERE v.device_id = d.id AND v.math = 'bf16') AS bf16_peak_tflops,
       (SELECT v.peak_tflops FROM v_peaks v WHERE v.device_id = d.id AND v.math = 'f16') AS f16_peak_tflops
FROM devices d;

ALTER TABLE measurements ADD COLUMN max_scaled_err REAL CHECK (max_scaled_err >= 0);

-- The views over measurements gain the new figure and each row's peak for its dtype.
DROP VIEW v_outcomes;
DROP VIEW v_comparison;
DROP VIEW v_best;
DROP VIEW v_ranked;
DROP VIEW v_measurements;

-- Every measurement with its device, problem, config, build and the peak of its dtype's math
-- (a problem's dtype names its math mode: f32, tf32, bf16, f16).
CREATE VIEW v_measurements AS
SELECT x.id AS measurement_id, x.run_id, x.device_id, d.name AS device_name, d.uuid AS device_uuid,
       x.problem_id, p.m, p.n, p.k, p.dtype, p.epilogue, x.method, c.family, c.name AS config_name,
       x.config_id, c.params_json, c.source_hash, x.build_id, x.status, x.prune_reason,
       x.median_ms, x.min_ms, x.max_ms, x.p10_ms, x.p90_ms, x.rel_spread, x.samples, x.tflops,
       x.rel_err, x.max_abs_err, x.max_scaled_err, x.sm_clock_before_mhz, x.sm_clock_after_mhz, x.grid_blocks,
       b.registers, b.spill_stores_bytes, b.spill_loads_bytes, b.smem_bytes, b.threads,
       b.blocks_per_sm, b.compile_ms, x.message, x.created_at,
       (SELECT v.peak_tflops FROM v_peaks v WHERE v.device_id = x.device_id AND v.math = p.dtype) AS peak_tflops
FROM measurements x
JOIN devices d ON d.id = x.device_id
JOIN problems p ON p.id = x.problem_id
LEFT JOIN configs c ON c.id = x.config_id
LEFT JOIN builds b ON b.id = x.build_id;

-- The ok rows of tuned kernels ranked per device × problem × family (1 = fastest median; ties
-- go to the earlier row).
CREATE VIEW v_ranked AS
SELECT v.*,
       ROW_NUMBER() OVER (PARTITION BY v.device_id, v.problem_id, v.family
                          ORDER BY v.median_ms, v.measurement_id) AS rank
FROM v_measurements v
WHERE v.method = 'coalesce' AND v.status = 'ok';

CREATE VIEW v_best AS SELECT * FROM v_ranked WHERE rank = 1;

-- The headline: per device × problem × family the best config and, from the run that measured
-- it, each baseline's median (NULL when that run has no ok row of the baseline), then the winner
-- measured unfused (its own GEMM with epilogue none, then the separate bias+GELU kernel).
CREATE VIEW v_comparison AS
SELECT b.device_name, b.m, b.n, b.k, b.dtype, b.epilogue, b.family, b.config_name,
       b.median_ms AS coalesce_ms,
       (SELECT x.median_ms FROM measurements x
         WHERE x.run_id = b.run_id AND x.device_id = b.device_id AND x.problem_id = b.problem_id
           AND x.method = 'cublas_gemm' AND x.config_id IS NULL AND x.status = 'ok') AS cublas_gemm_ms,
       (SELECT x.median_ms FROM measurements x
         WHERE x.run_id = b.run_id AND x.device_id = b.device_id AND x.problem_id = b.problem_id
           AND x.method = 'eager' AND x.config_id IS NULL AND x.status = 'ok') AS eager_ms,
       (SELECT x.median_ms FROM measurements x
         WHERE x.run_id = b.run_id AND x.device_id = b.device_id AND x.problem_id = b.problem_id
           AND x.method = 'unfused' AND x.config_id IS NULL AND x.status = 'ok') AS unfused_ms,
       (SELECT x.median_ms FROM measurements x
         WHERE x.run_id = b.run_id AND x.device_id = b.device_id AND x.problem_id = b.problem_id
           AND x.method = 'cublaslt_fused' AND x.config_id IS NULL AND x.status = 'ok') AS cublaslt_fused_ms,
       (SELECT x.median_ms FROM measurements x
         WHERE x.run_id = b.run_id AND x.device_id = b.device_id AND x.problem_id = b.problem_id
           AND x.method = 'coalesce_unfused' AND x.config_id = b.config_id AND x.status = 'ok')
         AS coalesce_unfused_ms,
       b.run_id, b.device_id, b.problem_id, b.config_id, b.measurement_id
FROM v_best b;

-- How the configs of each device × problem × family ended: one row per status and reason.
CREATE VIEW v_outcomes AS
SELECT v.device_id, v.device_name, v.problem_id, v.m, v.n, v.k, v.dtype, v.epilogue, v.family,
       v.status, v.prune_reason, COUNT(*) AS configs
FROM v_measurements v
WHERE v.method = 'coalesce'
GROUP BY v.device_id, v.problem_id, v.family, v.status, v.prune_reason;

