-- 0007_steady_state: a measurement taken in the steady state is a figure of its own, stored
-- beside the sweep's row of the same config and ranked ahead of it (docs/tuner.md, "The steady
-- state"). A run is in the steady state when its harness settings asked for at least 1,000
-- timed samples of every method, back to back (min_samples >= 1000, no sample_gap_ms): a second
-- or more of work per large kernel, long enough for the GPU to settle at the clocks and power it
-- holds under load. The default sampling (20 samples at least, stopping once the mean is known
-- to 0.5%) times a large kernel before it settles, and the two order tiles differently
-- (docs/results.md). harness/timing_settings.hpp's steady_state() is the same rule.
--
-- measurements.steady_state is the regime of the row's run (v_run_regimes, the rule's one
-- statement here; a trigger refuses a row that claims another). A config is measured once per
-- device, problem, method and regime, so `coalesce-tune sweep --steady-top N` can time a
-- sweep's fastest configs again in the same database. v_ranked ranks steady-state rows first,
-- then by median, so v_best, v_comparison and every tool that reads them take a device's
-- winner from the steady state wherever one was measured. Every existing row is kept, with the
-- regime of its run.

CREATE VIEW v_run_regimes AS
SELECT r.id AS run_id,
       (IFNULL(json_extract(r.harness_json, '$.min_samples'), 0) >= 1000
        AND IFNULL(json_extract(r.harness_json, '$.sample_gap_ms'), 0) = 0) AS steady_state
FROM runs r;

ALTER TABLE measurements ADD COLUMN steady_state INTEGER NOT NULL DEFAULT 0 CHECK (steady_state IN (0, 1));
UPDATE measurements
   SET steady_state = (SELECT g.steady_state FROM v_run_regimes g WHERE g.run_id = measurements.run_id);

DROP INDEX measurements_config_once;
CREATE UNIQUE INDEX measurements_config_once
  ON measurements (device_id, problem_id, method, config_id, steady_state) WHERE config_id IS NOT NULL;

-- A row's regime is its run's.
CREATE TRIGGER measurements_regime_of_run BEFORE INSERT ON measurements
WHEN NEW.steady_state IS NOT (SELECT g.steady_state FROM v_run_regimes g WHERE g.run_id = NEW.run_id)
BEGIN
  SELECT RAISE(ABORT, 'a measurement''s steady_state must be its run''s (v_run_regimes)');
END;
CREATE TRIGGER measurements_regime_fixed BEFORE UPDATE OF steady_state, run_id ON measurements
WHEN NEW.steady_state IS NOT (SELECT g.steady_state FROM v_run_regimes g WHERE g.run_id = NEW.run_id)
BEGIN
  SELECT RAISE(ABORT, 'a measurement''s steady_state must be its run''s (v_run_regimes)');
END;

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
       x.workspace_bytes, x.steady_state,
       b.registers, b.spill_stores_bytes, b.spill_loads_bytes, b.smem_bytes, b.threads,
       b.blocks_per_sm, b.compile_ms, x.message, x.created_at,
       (SELECT v.peak_tflops FROM v_peaks v WHERE v.device_id = x.device_id AND v.math = p.dtype) AS peak_tflops
FROM measurements x
JOIN devices d ON d.id = x.device_id
JOIN problems p ON p.id = x.problem_id
LEFT JOIN configs c ON c.id = x.config_id
LEFT JOIN builds b ON b.id = x.build_id;

-- The ok rows of tuned kernels ranked per device × problem × family: steady-state rows first,
-- then by median (1 = the fastest); ties go to the earlier row.
CREATE VIEW v_ranked AS
SELECT v.*,
       ROW_NUMBER() OVER (PARTITION BY v.device_id, v.problem_id, v.family
                          ORDER BY v.steady_state DESC, v.median_ms, v.measurement_id) AS rank
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
