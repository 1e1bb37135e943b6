-- 0008_protocol: every measurement names the protocol it was timed by, and no ranking view puts
-- two protocols in one ratio (docs/tuner.md, "The timing protocol"; docs/database.md).
--
-- A protocol is the per-sample treatment of a run: the L2 flush before each sample (every run so
-- far), what the GPU does between samples (nothing: back to back; a rest of sample_gap_ms; a GPU
-- spin of spin_cycles clock cycles before the window opens) and how many samples are taken (at
-- least 1,000: the steady state). It is a function of the run's harness settings, stated once,
-- in v_run_protocols; harness/timing_settings.hpp's protocol_of() is the same rule in C++:
--   flush_rested  sample_gap_ms > 0
--   steady_spin   a spin, min_samples >= 1000
--   flush_spin    a spin, fewer samples (the shared protocol: the tools' default since schema 8)
--   steady_b2b    back to back, min_samples >= 1000 (schema 7's steady state)
--   flush_b2b     back to back, fewer samples (every sweep before schema 8)
-- The spin is `spin_cycles` in a coalesce-tune run's settings and
-- `gpu_spin_cycles_before_each_sample` in the runs torch_peers.py recorded before schema 8.
--
-- Schema 7 knew one regime key, steady_state (1,000 samples or more without a gap), and so
-- filed nine spun runs of peers (torch_peers.py --steady-samples, a 250 µs spin before each
-- sample) in one steady state with the tuned kernels timed back to back, ranked and compared
-- together. Here they become steady_spin, apart from steady_b2b. steady_state stays, read from
-- the protocol (v_run_regimes: protocols.steady, steady_b2b or steady_spin), so it is the same
-- for every stored row; the protocol is what a ranking and a comparison key on.
--
-- measurements.protocol is the row's run's (a trigger refuses any other, another fills it in
-- when an insert leaves it empty); a config is measured once per device, problem, method and
-- protocol. v_ranked ranks within one protocol; v_best and v_comparison hold one row per device,
-- problem, family and protocol, each beside the baselines of its own run (one run has one
-- protocol). Where one answer is wanted across protocols (the compiler's pick, a report's
-- headline), protocols.preference orders them: steady_spin, flush_spin, steady_b2b, flush_b2b,
-- flush_rested.

CREATE TABLE protocols (
  id          INTEGER PRIMARY KEY,
  name        TEXT    NOT NULL UNIQUE CHECK (name GLOB '[a-z]*'),
  description TEXT    NOT NULL,
  -- 1 = preferred: where a device and problem were measured in several protocols, the best of
  -- the most preferred one answers (the compiler's apply-tile-config, the reports). The shared
  -- protocol (a spin) comes first, its steady sampling ahead of its default one, as schema 7
  -- ranked the steady state ahead: the default sampling times a large kernel before it settles.
  preference  INTEGER NOT NULL UNIQUE,
  spin        INTEGER NOT NULL CHECK (spin IN (0, 1)),   -- a GPU spin before each sample
  rested      INTEGER NOT NULL CHECK (rested IN (0, 1)), -- the GPU idles sample_gap_ms after each
  steady      INTEGER NOT NULL CHECK (steady IN (0, 1))  -- at least 1,000 samples
);

INSERT INTO protocols (name, description, preference, spin, rested, steady) VALUES
  ('flush_spin', 'before each sample: output reset, L2 flushed, a GPU spin of spin_cycles (500,000 by ' ||
                 'default, about 250 us), then the event pair around one launch; 20 samples or more, ' ||
                 'stopping once the mean is known to 0.5% or the 2 s budget is spent. The shared ' ||
                 'protocol of every method, ours and the peers', 2, 1, 0, 0),
  ('steady_spin', 'flush_spin with at least 1,000 samples of every method', 1, 1, 0, 1),
  ('steady_b2b', 'output reset and L2 flushed before each sample, no spin, samples back to back, at ' ||
                 'least 1,000 of them: the steady state of schema 7', 3, 0, 0, 1),
  ('flush_b2b', 'output reset and L2 flushed before each sample, no spin, samples back to back, ' ||
                '20 or more (the default sampling before schema 8)', 4, 0, 0, 0),
  ('flush_rested', 'output reset and L2 flushed before each sample, and the GPU idle sample_gap_ms ' ||
                   'after each (coalesce-tune sweep --sample-gap-ms)', 5, 0, 1, 0);

-- The protocol of every run, from its harness settings: the rule's one statement.
CREATE VIEW v_run_protocols AS
SELECT r.id AS run_id,
       CASE
         WHEN IFNULL(json_extract(r.harness_json, '$.sample_gap_ms'), 0) > 0 THEN 'flush_rested'
         WHEN IFNULL(json_extract(r.harness_json, '$.spin_cycles'),
                     IFNULL(json_extract(r.harness_json, '$.gpu_spin_cycles_before_each_sample'), 0)) > 0
           THEN CASE WHEN IFNULL(json_extract(r.harness_json, '$.min_samples'), 0) >= 1000
                     THEN 'steady_spin' ELSE 'flush_spin' END
         WHEN IFNULL(json_extract(r.harness_json, '$.min_samples'), 0) >= 1000 THEN 'steady_b2b'
         ELSE 'flush_b2b'
       END AS protocol
FROM runs r;

-- Schema 7's regime, now read from the protocol.
DROP TRIGGER measurements_regime_of_run;
DROP TRIGGER measurements_regime_fixed;
DROP VIEW v_run_regimes;
CREATE VIEW v_run_regimes AS
SELECT g.run_id, pr.steady AS steady_state FROM v_run_protocols g JOIN protocols pr ON pr.name = g.protocol;

DROP INDEX measurements_config_once;
ALTER TABLE measurements ADD COLUMN protocol TEXT NOT NULL DEFAULT '';
UPDATE measurements
   SET protocol = (SELECT g.protocol FROM v_run_protocols g WHERE g.run_id = measurements.run_id);
CREATE UNIQUE INDEX measurements_config_once
  ON measurements (device_id, problem_id, method, config_id, protocol) WHERE config_id IS NOT NULL;

-- A row's protocol and regime are its run's. An insert that leaves protocol empty (the column's
-- default) gets its run's; tools name it, so that a duplicate meets the unique index on insert.
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
CREATE TRIGGER measurements_protocol_of_run BEFORE INSERT ON measurements
WHEN NEW.protocol <> ''
 AND NEW.protocol IS NOT (SELECT g.protocol FROM v_run_protocols g WHERE g.run_id = NEW.run_id)
BEGIN
  SELECT RAISE(ABORT, 'a measurement''s protocol must be its run''s (v_run_protocols)');
END;
CREATE TRIGGER measurements_protocol_filled AFTER INSERT ON measurements
WHEN NEW.protocol = ''
BEGIN
  UPDATE measurements SET protocol = (SELECT g.protocol FROM v_run_protocols g WHERE g.run_id = NEW.run_id)
   WHERE id = NEW.id;
END;
CREATE TRIGGER measurements_protocol_fixed BEFORE UPDATE OF protocol, run_id ON measurements
WHEN NEW.protocol IS NOT (SELECT g.protocol FROM v_run_protocols g WHERE g.run_id = NEW.run_id)
BEGIN
  SELECT RAISE(ABORT, 'a measurement''s protocol must be its run''s (v_run_protocols)');
END;

DROP VIEW v_outcomes;
DROP VIEW v_comparison;
DROP VIEW v_best;
DROP VIEW v_ranked;
DROP VIEW v_measurements;

-- Every measurement with its device, problem, config, build, protocol (and its preference) and
-- the peak of its dtype's math (a problem's dtype names its math mode: f32, tf32, bf16, f16).
CREATE VIEW v_measurements AS
SELECT x.id AS measurement_id, x.run_id, x.device_id, d.name AS device_name, d.uuid AS device_uuid,
       x.problem_id, p.m, p.n, p.k, p.dtype, p.epilogue, x.method, c.family, c.name AS config_name,
       x.config_id, c.params_json, c.source_hash, x.build_id, x.status, x.prune_reason,
       x.median_ms, x.min_ms, x.max_ms, x.p10_ms, x.p90_ms, x.rel_spread, x.samples, x.tflops,
       x.rel_err, x.max_abs_err, x.max_scaled_err, x.sm_clock_before_mhz, x.sm_clock_after_mhz, x.grid_blocks,
       x.workspace_bytes, x.steady_state, x.protocol, pr.preference AS protocol_preference,
       b.registers, b.spill_stores_bytes, b.spill_loads_bytes, b.smem_bytes, b.threads,
       b.blocks_per_sm, b.compile_ms, x.message, x.created_at,
       (SELECT v.peak_tflops FROM v_peaks v WHERE v.device_id = x.device_id AND v.math = p.dtype) AS peak_tflops
FROM measurements x
JOIN devices d ON d.id = x.device_id
JOIN problems p ON p.id = x.problem_id
JOIN protocols pr ON pr.name = x.protocol
LEFT JOIN configs c ON c.id = x.config_id
LEFT JOIN builds b ON b.id = x.build_id;

-- The ok rows of tuned kernels ranked per device × problem × family × protocol by median (1 =
-- the fastest); ties go to the earlier row. A rank never compares two protocols.
CREATE VIEW v_ranked AS
SELECT v.*,
       ROW_NUMBER() OVER (PARTITION BY v.device_id, v.problem_id, v.family, v.protocol
                          ORDER BY v.median_ms, v.measurement_id) AS rank
FROM v_measurements v
WHERE v.method = 'coalesce' AND v.status = 'ok';

-- One row per device × problem × family × protocol: the fastest config in that protocol.
CREATE VIEW v_best AS SELECT * FROM v_ranked WHERE rank = 1;

-- The headline: per device × problem × family × protocol the best config and, from the run that
-- measured it (so in the same protocol), each baseline's median (NULL when that run has no ok
-- row of the baseline), then the winner measured unfused (its own GEMM with epilogue none, then
-- the separate bias+GELU kernel).
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
       b.run_id, b.device_id, b.problem_id, b.config_id, b.measurement_id, b.protocol, b.protocol_preference
FROM v_best b;

-- How the configs of each device × problem × family ended: one row per status and reason.
CREATE VIEW v_outcomes AS
SELECT v.device_id, v.device_name, v.problem_id, v.m, v.n, v.k, v.dtype, v.epilogue, v.family,
       v.status, v.prune_reason, COUNT(*) AS configs
FROM v_measurements v
WHERE v.method = 'coalesce'
GROUP BY v.device_id, v.problem_id, v.family, v.status, v.prune_reason;
