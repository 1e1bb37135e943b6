-- 0004_profiles: what a profiler (Nsight Compute) saw of one kernel (issue 15, item 2; docs/
-- database.md, "Profiles"). A profile belongs to a device, a problem and a method like a
-- measurement, with the config for a tuned or peer method and none for a library kernel; it is
-- the figures of one launch of one kernel, so a method that launches several (eager: the GEMM,
-- then the bias add, then the activation) has a profile per kernel.
--   * metrics_json holds every metric of the page as the profiler printed it (name -> number, or
--     text where it printed text), units_json each metric's unit where it printed one;
--   * the first-class columns are the figures every report reads, in fixed units, derived from
--     those metrics by `coalesce-tune record-profile` (tuner/record_profile.cpp), NULL when the
--     page lacks the metric.
-- A new table only: every existing row is kept.

CREATE TABLE profiles (
  id                     INTEGER PRIMARY KEY,
  device_id              INTEGER NOT NULL REFERENCES devices (id),
  problem_id             INTEGER NOT NULL REFERENCES problems (id),
  method                 TEXT    NOT NULL CHECK (method GLOB '[a-z]*' AND method NOT GLOB '*[^a-z0-9_]*'),
  config_id              INTEGER REFERENCES configs (id),  -- NULL for a library kernel
  kernel                 TEXT    NOT NULL CHECK (kernel <> ''),  -- the kernel's name as the profiler saw it
  tool                   TEXT    NOT NULL CHECK (tool <> ''),    -- e.g. 'ncu'
  tool_version           TEXT    NOT NULL DEFAULT '',            -- '' = unknown
  -- When the profiler ran, UTC (e.g. 2026-11-30T13:10:40Z); NULL = unknown.
  profiled_at            TEXT    CHECK (profiled_at GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]*Z'),
  duration_us            REAL    CHECK (duration_us > 0),
  sm_clock_mhz           REAL    CHECK (sm_clock_mhz > 0),       -- the clock the SMs ran at during the launch
  tensor_pipe_active_pct REAL    CHECK (tensor_pipe_active_pct BETWEEN 0 AND 100),
  achieved_occupancy_pct REAL    CHECK (achieved_occupancy_pct BETWEEN 0 AND 100),
  registers              INTEGER CHECK (registers > 0),          -- per thread, as launched
  metrics_json           TEXT    NOT NULL
                         CHECK (json_valid(metrics_json) AND json_type(metrics_json) = 'object'),
  units_json             TEXT    NOT NULL DEFAULT '{}'
                         CHECK (json_valid(units_json) AND json_type(units_json) = 'object'),
  created_at             TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;

-- One profile per kernel of a device × problem × method × config (a library kernel: config NULL,
-- which ifnull keeps from counting as distinct; ids start at 1).
CREATE UNIQUE INDEX profiles_once
  ON profiles (device_id, problem_id, method, ifnull(config_id, 0), kernel);
