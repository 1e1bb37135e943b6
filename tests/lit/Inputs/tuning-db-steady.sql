-- A steady-state run on the H200 (coalesce-apply-tile-config-steady.mlir): its harness asked for
-- 3,000 samples of each method, so its rows are steady_state = 1 (v_run_regimes; the schema's
-- trigger refuses any other value). Config 2 measured 0.030 ms there.
INSERT INTO runs (id, device_id, resume_key, tool, tool_version, git_revision, command_line, host, harness_json)
  VALUES (3, 1, 'k3', 'coalesce-tune', '0.1.0', 'abc', 'coalesce-tune sweep --steady-top 1', 'h200-host',
          '{"min_samples":3000,"max_samples":3000}');
INSERT INTO measurements (id, run_id, device_id, problem_id, method, config_id, status, median_ms,
                          min_ms, max_ms, p10_ms, p90_ms, rel_spread, samples, tflops, rel_err,
                          max_abs_err, steady_state)
  VALUES (6, 3, 1, 1, 'coalesce', 2, 'ok', 0.030, 0.029, 0.032, 0.029, 0.031, 0.1, 3000, 0.13, 1e-7, 1e-6, 1);
