-- 0006_floor_methods: a measurement may be a floor rather than a GEMM (issue 12; docs/database.md,
-- "Methods"). `read_b` times a kernel that reads the problem's B once: the physical floor of a
-- GEMM whose traffic B dominates. It computes no C, so nothing can be checked against the fp64
-- reference: its rows are ok with a timing and without error figures, which 0001's rule "error
-- figures on every ok row" refused. The floor methods are a closed list here, the MethodKind::floor
-- entries of kMethods in schema/vocabulary.hpp (a test compares the two), and a floor row must be
-- what the sweep stores: a baseline (no config), never wrong_result, and no error figures at all,
-- so an unchecked row cannot pass for a checked one.
--
-- SQLite cannot change a table's CHECK in place, so measurements is rebuilt (its columns, ids and
-- rows as they were, in their order, 0003's max_scaled_err and 0005's workspace_bytes last), with its indexes and trigger,
-- and the views over it are created again as 0005 left them. Every existing row is kept.

DROP VIEW v_outcomes;
DROP VIEW v_comparison;
DROP VIEW v_best;
DROP VIEW v_ranked;
DROP VIEW v_measurements;

-- One row per (run, device, problem, method, config): a timing only when status = 'ok', and error
-- figures whenever the result was checked (a wrong answer is never a timing); a floor is never
-- checked.
CREATE TABLE measurements_new (
  id                  INTEGER PRIMARY KEY,
  run_id              INTEGER NOT NULL REFERENCES runs (id),
  device_id           INTEGER NOT NULL REFERENCES devices (id),
  problem_id          INTEGER NOT NULL REFERENCES problems (id),
  method              TEXT    NOT NULL CHECK (method GLOB '[a-z]*' AND method NOT GLOB '*[^a-z0-9_]*'),
  config_id           INTEGER REFERENCES configs (id),  -- NULL for a library baseline or a floor
  build_id            INTEGER REFERENCES builds (id),
  status              TEXT    NOT NULL CHECK (status IN ('pruned', 'compile_failed', 'launch_failed',
                                                         'wrong_result', 'timeout', 'ok')),
  prune_reason        TEXT    CHECK (prune_reason GLOB '[a-z]*' AND prune_reason NOT GLOB '*[^a-z0-9_]*'),
  median_ms           REAL,
  min_ms              REAL,
  max_ms              REAL,
  p10_ms              REAL,
  p90_ms              REAL,
  rel_spread          REAL,     -- (p90 - p10) / median
  samples             INTEGER,
  tflops              REAL,     -- 2·M·N·K / median, whatever the method launched
  rel_err             REAL CHECK (rel_err >= 0),
  max_abs_err         REAL CHECK (max_abs_err >= 0),
  sm_clock_before_mhz INTEGER,
  sm_clock_after_mhz  INTEGER,
  grid_blocks         INTEGER CHECK (grid_blocks > 0),
  message             TEXT    NOT NULL DEFAULT '',
  created_at          TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  max_scaled_err      REAL CHECK (max_scaled_err >= 0),
  workspace_bytes     INTEGER CHECK (workspace_bytes >= 0),
  CHECK ((status = 'ok') = (median_ms IS NOT NULL)),
  CHECK (status <> 'ok' OR (min_ms > 0 AND min_ms <= p10_ms AND p10_ms <= median_ms
                            AND median_ms <= p90_ms AND p90_ms <= max_ms AND samples > 0
                            AND rel_spread IS NOT NULL AND tflops IS NOT NULL)),
  CHECK (status = 'ok' OR (min_ms IS NULL AND max_ms IS NULL AND p10_ms IS NULL AND p90_ms IS NULL
                           AND tflops IS NULL AND rel_spread IS NULL)),
  -- Checked rows carry their error figures; a floor (the list: kMethods' MethodKind::floor) is
  -- never checked, so it carries none, is never wrong_result and has no config.
  CHECK (CASE WHEN method IN ('read_b')
              THEN status <> 'wrong_result' AND config_id IS NULL AND rel_err IS NULL
                   AND max_abs_err IS NULL AND max_scaled_err IS NULL
              ELSE status NOT IN ('ok', 'wrong_result') OR (rel_err IS NOT NULL AND max_abs_err IS NOT NULL)
         END),
  CHECK ((status = 'pruned') = (prune_reason IS NOT NULL)),
  CHECK (status NOT IN ('pruned', 'compile_failed') OR config_id IS NOT NULL)
) STRICT;

INSERT INTO measurements_new (id, run_id, device_id, problem_id, method, config_id, build_id, status,
    prune_reason, median_ms, min_ms, max_ms, p10_ms, p90_ms, rel_spread, samples, tflops, rel_err,
    max_abs_err, sm_clock_before_mhz, sm_clock_after_mhz, grid_blocks, message, created_at,
    max_scaled_err, workspace_bytes)
SELECT id, run_id, device_id, problem_id, method, config_id, build_id, status, prune_reason,
       median_ms, min_ms, max_ms, p10_ms, p90_ms, rel_spread, samples, tflops, rel_err, max_abs_err,
       sm_clock_before_mhz, sm_clock_after_mhz, grid_blocks, message, created_at, max_scaled_err,
       workspace_bytes
FROM measurements;

DROP TABLE measurements;
ALTER TABLE measurements_new RENAME TO measurements;

-- Resume: a config is measured once per device, problem and method, whatever the run; a library
-- baseline once per run (each run measures its own baselines, so ratios come from one run).
CREATE UNIQUE INDEX measurements_config_once
  ON measurements (device_id, problem_id, method, config_id) WHERE config_id IS NOT NULL;
CREATE UNIQUE INDEX measurements_baseline_per_run
  ON measurements (run_id, device_id, problem_id, method) WHERE config_id IS NULL;
CREATE INDEX measurements_by_run ON measurements (run_id, problem_id, method);

-- A run is on one device: a measurement may not claim another.
CREATE TRIGGER measurements_device_of_run BEFORE INSERT ON measurements
WHEN (SELECT device_id FROM runs WHERE id = NEW.run_id) IS NOT NULL
 AND (SELECT device_id FROM runs WHERE id = NEW.run_id) <> NEW.device_id
BEGIN
  SELECT RAISE(ABORT, 'the measurement''s device is not the device of its run');
END;

-- The views of 0005, unchanged.

-- Every measurement with its device, problem, config, build and the peak of its dtype's math
-- (a problem's dtype names its math mode: f32, tf32, bf16, f16).
CREATE VIEW v_measurements AS
SELECT x.id AS measurement_id, x.run_id, x.device_id, d.name AS device_name, d.uuid AS device_uuid,
       x.problem_id, p.m, p.n, p.k, p.dtype, p.epilogue, x.method, c.family, c.name AS config_name,
       x.config_id, c.params_json, c.source_hash, x.build_id, x.status, x.prune_reason,
       x.median_ms, x.min_ms, x.max_ms, x.p10_ms, x.p90_ms, x.rel_spread, x.samples, x.tflops,
       x.rel_err, x.max_abs_err, x.max_scaled_err, x.sm_clock_before_mhz, x.sm_clock_after_mhz, x.grid_blocks,
       x.workspace_bytes,
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
