-- 0001_init: the first schema of the Coalesce results database (docs/database.md explains every
-- table, status and view). schema/migrate.cpp applies this file in one transaction together with
-- PRAGMA application_id and PRAGMA user_version = 1; a failure leaves the file as it was.
--
-- Vocabulary columns (dtype, epilogue, family, method, prune_reason) are checked only for being a
-- lower-case identifier: new dtypes, families and methods (torch_compile, triton, ...) arrive
-- without a migration, while a typo such as 'Bias-GELU' is still refused. Statuses are a closed
-- set: the report and the resume logic give each a meaning.

-- One GPU, identified by its UUID. Figures come from cudaGetDeviceProperties and NVML at run time.
CREATE TABLE devices (
  id                    INTEGER PRIMARY KEY,
  uuid                  TEXT    NOT NULL UNIQUE,
  name                  TEXT    NOT NULL,
  arch                  TEXT    NOT NULL CHECK (arch GLOB 'sm_[0-9]*'),
  cc_major              INTEGER NOT NULL CHECK (cc_major >= 0),
  cc_minor              INTEGER NOT NULL CHECK (cc_minor >= 0),
  sm_count              INTEGER NOT NULL CHECK (sm_count > 0),
  l2_bytes              INTEGER NOT NULL CHECK (l2_bytes >= 0),
  global_mem_bytes      INTEGER NOT NULL CHECK (global_mem_bytes >= 0),
  -- NVML's maximum SM clock; 0 when NVML was not available (the peak is then unknown).
  max_sm_clock_mhz      INTEGER NOT NULL CHECK (max_sm_clock_mhz >= 0),
  -- FP32 FMA units per SM (128 on sm_90); 0 when the architecture is not in the tool's table.
  fp32_lanes_per_sm     INTEGER NOT NULL CHECK (fp32_lanes_per_sm >= 0),
  smem_per_block_optin  INTEGER NOT NULL CHECK (smem_per_block_optin > 0),
  smem_per_sm           INTEGER NOT NULL CHECK (smem_per_sm > 0),
  max_threads_per_block INTEGER NOT NULL CHECK (max_threads_per_block > 0),
  max_threads_per_sm    INTEGER NOT NULL CHECK (max_threads_per_sm > 0),
  regs_per_sm           INTEGER NOT NULL CHECK (regs_per_sm > 0),
  max_regs_per_thread   INTEGER NOT NULL CHECK (max_regs_per_thread > 0),
  max_blocks_per_sm     INTEGER NOT NULL CHECK (max_blocks_per_sm > 0)
) STRICT;

-- One invocation of a tool that writes measurements. A resumed sweep continues its run (same id),
-- so an interrupted and resumed sweep ends with the same rows as an uninterrupted one.
CREATE TABLE runs (
  id              INTEGER PRIMARY KEY,
  device_id       INTEGER REFERENCES devices (id),  -- NULL for a run that used no GPU (--dry-run)
  status          TEXT    NOT NULL DEFAULT 'running'
                  CHECK (status IN ('running', 'completed', 'interrupted', 'failed')),
  started_at      TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  ended_at        TEXT,
  resumed         INTEGER NOT NULL DEFAULT 0 CHECK (resumed >= 0),
  -- What makes a later invocation "the same sweep" (the tuner's normalized arguments).
  resume_key      TEXT    NOT NULL,
  tool            TEXT    NOT NULL,
  tool_version    TEXT    NOT NULL,
  git_revision    TEXT    NOT NULL,
  command_line    TEXT    NOT NULL,
  host            TEXT    NOT NULL,
  driver_version  INTEGER NOT NULL DEFAULT 0,   -- cudaDriverGetVersion, e.g. 13000; 0 = unknown
  driver_release  TEXT    NOT NULL DEFAULT '',  -- NVML's driver string, e.g. 580.95.05
  runtime_version INTEGER NOT NULL DEFAULT 0,   -- cudaRuntimeGetVersion
  toolkit         TEXT    NOT NULL DEFAULT '',  -- NVRTC's version, e.g. 13.0
  harness_json    TEXT    NOT NULL DEFAULT '{}'
                  CHECK (json_valid(harness_json) AND json_type(harness_json) = 'object')
) STRICT;

-- C = epilogue(A·B + bias): A is M×K, B is K×N, both row-major (kernels/core/problem.hpp).
CREATE TABLE problems (
  id       INTEGER PRIMARY KEY,
  m        INTEGER NOT NULL CHECK (m > 0),
  n        INTEGER NOT NULL CHECK (n > 0),
  k        INTEGER NOT NULL CHECK (k > 0),
  dtype    TEXT    NOT NULL CHECK (dtype GLOB '[a-z]*' AND dtype NOT GLOB '*[^a-z0-9_]*'),
  epilogue TEXT    NOT NULL CHECK (epilogue GLOB '[a-z]*' AND epilogue NOT GLOB '*[^a-z0-9_]*'),
  UNIQUE (m, n, k, dtype, epilogue)
) STRICT;

-- A tile config of one family, as emitted: the same name with a changed kernel template has a
-- new source hash and so a new row, measured afresh.
CREATE TABLE configs (
  id          INTEGER PRIMARY KEY,
  family      TEXT NOT NULL CHECK (family GLOB '[a-z]*' AND family NOT GLOB '*[^a-z0-9_]*'),
  name        TEXT NOT NULL CHECK (name <> ''),  -- config_name(), never typed by hand
  params_json TEXT NOT NULL CHECK (json_valid(params_json) AND json_type(params_json) = 'object'),
  -- Hash of the emitted CUDA source (the JIT cache key); '' for a config pruned before emission.
  source_hash TEXT NOT NULL,
  UNIQUE (name, source_hash)
) STRICT;

-- One compilation of a config for an architecture with one toolkit, with ptxas' own figures and
-- the tuner's predictions beside them, so the prediction model can be checked.
CREATE TABLE builds (
  id                      INTEGER PRIMARY KEY,
  config_id               INTEGER NOT NULL REFERENCES configs (id),
  arch                    TEXT    NOT NULL CHECK (arch GLOB 'sm_[0-9]*'),
  toolkit                 TEXT    NOT NULL,
  status                  TEXT    NOT NULL CHECK (status IN ('ok', 'failed')),
  registers               INTEGER CHECK (registers >= 0),
  spill_stores_bytes      INTEGER CHECK (spill_stores_bytes >= 0),
  spill_loads_bytes       INTEGER CHECK (spill_loads_bytes >= 0),
  stack_bytes             INTEGER CHECK (stack_bytes >= 0),
  smem_bytes              INTEGER CHECK (smem_bytes >= 0),  -- static + dynamic, per block
  threads                 INTEGER CHECK (threads > 0),
  blocks_per_sm           INTEGER CHECK (blocks_per_sm >= 0),  -- from ptxas' registers
  predicted_registers     INTEGER,
  predicted_smem_bytes    INTEGER,
  predicted_blocks_per_sm INTEGER,
  compile_ms              REAL    CHECK (compile_ms >= 0),
  log                     TEXT    NOT NULL DEFAULT '',  -- the compiler's log; always kept on failure
  created_at              TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  UNIQUE (config_id, arch, toolkit),
  CHECK (status = 'failed' OR (registers IS NOT NULL AND smem_bytes IS NOT NULL)),
  CHECK (status = 'ok' OR log <> '')
) STRICT;

-- One row per (run, device, problem, method, config): a timing only when status = 'ok', and error
-- figures whenever the result was checked (a wrong answer is never a timing).
CREATE TABLE measurements (
  id                  INTEGER PRIMARY KEY,
  run_id              INTEGER NOT NULL REFERENCES runs (id),
  device_id           INTEGER NOT NULL REFERENCES devices (id),
  problem_id          INTEGER NOT NULL REFERENCES problems (id),
  method              TEXT    NOT NULL CHECK (method GLOB '[a-z]*' AND method NOT GLOB '*[^a-z0-9_]*'),
  config_id           INTEGER REFERENCES configs (id),  -- NULL for a library baseline
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
  CHECK ((status = 'ok') = (median_ms IS NOT NULL)),
  CHECK (status <> 'ok' OR (min_ms > 0 AND min_ms <= p10_ms AND p10_ms <= median_ms
                            AND median_ms <= p90_ms AND p90_ms <= max_ms AND samples > 0
                            AND rel_spread IS NOT NULL AND tflops IS NOT NULL)),
  CHECK (status = 'ok' OR (min_ms IS NULL AND max_ms IS NULL AND p10_ms IS NULL AND p90_ms IS NULL
                           AND tflops IS NULL AND rel_spread IS NULL)),
  CHECK (status NOT IN ('ok', 'wrong_result') OR (rel_err IS NOT NULL AND max_abs_err IS NOT NULL)),
  CHECK ((status = 'pruned') = (prune_reason IS NOT NULL)),
  CHECK (status NOT IN ('pruned', 'compile_failed') OR config_id IS NOT NULL)
) STRICT;

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

-- Devices with their FP32 CUDA-core peak: SMs × FP32 lanes per SM × 2 FLOP per FMA × max SM clock.
CREATE VIEW v_devices AS
SELECT d.*,
       NULLIF(d.sm_count * d.fp32_lanes_per_sm * 2.0 * d.max_sm_clock_mhz / 1e6, 0) AS fp32_peak_tflops
FROM devices d;

-- Every measurement with its device, problem, config and build spelled out.
CREATE VIEW v_measurements AS
SELECT x.id AS measurement_id, x.run_id, x.device_id, d.name AS device_name, d.uuid AS device_uuid,
       x.problem_id, p.m, p.n, p.k, p.dtype, p.epilogue, x.method, c.family, c.name AS config_name,
       x.config_id, c.params_json, c.source_hash, x.build_id, x.status, x.prune_reason,
       x.median_ms, x.min_ms, x.max_ms, x.p10_ms, x.p90_ms, x.rel_spread, x.samples, x.tflops,
       x.rel_err, x.max_abs_err, x.sm_clock_before_mhz, x.sm_clock_after_mhz, x.grid_blocks,
       b.registers, b.spill_stores_bytes, b.spill_loads_bytes, b.smem_bytes, b.threads,
       b.blocks_per_sm, b.compile_ms, x.message, x.created_at
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
