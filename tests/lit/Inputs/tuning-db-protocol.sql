-- Two more H200 runs for coalesce-apply-tile-config-protocol.mlir, beside Inputs/tuning-db.sql's
-- sweep (flush_b2b: no spin, 20 samples or more): one timed with the GPU spin before each sample
-- (flush_spin, the shared protocol), one back to back with 3,000 samples (steady_b2b). The
-- measurements leave `protocol` empty and take their run's (the schema's trigger fills it in).
INSERT INTO runs (id, device_id, resume_key, tool, tool_version, git_revision, command_line, host, harness_json)
  VALUES (3, 1, 'k3', 'coalesce-tune', '0.1.0', 'abc', 'coalesce-tune sweep', 'h200-host',
          '{"min_samples":20,"max_samples":1000,"spin_cycles":500000}'),
         (4, 1, 'k4', 'coalesce-tune', '0.1.0', 'abc', 'coalesce-tune sweep --steady-top 1', 'h200-host',
          '{"min_samples":3000,"max_samples":3000}');
-- Config 2 at 0.030 ms in flush_spin, slower than config 1 in flush_b2b (0.010 ms) and in
-- steady_b2b (0.005 ms); config 3 at 0.040 ms in flush_spin.
INSERT INTO measurements (id, run_id, device_id, problem_id, method, config_id, status, median_ms,
                          min_ms, max_ms, p10_ms, p90_ms, rel_spread, samples, tflops, rel_err,
                          max_abs_err, steady_state)
  VALUES (6, 3, 1, 1, 'coalesce', 2, 'ok', 0.030, 0.029, 0.032, 0.029, 0.031, 0.1, 20, 0.13, 1e-7, 1e-6, 0),
         (7, 3, 1, 1, 'coalesce', 3, 'ok', 0.040, 0.039, 0.042, 0.039, 0.041, 0.1, 20, 0.1, 1e-7, 1e-6, 0),
         (8, 4, 1, 1, 'coalesce', 1, 'ok', 0.005, 0.005, 0.005, 0.005, 0.005, 0.0, 3000, 0.8, 1e-7, 1e-6, 1);
