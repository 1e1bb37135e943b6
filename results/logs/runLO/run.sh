# Run LO: branch simt-frag-interleave: does loading simt's fragments further ahead (double-buffered,
# volatile shared loads, B's chunks first, spread among the current k's FFMA rows; on the CPU the
# lead to first use went from a median 64-68 instructions, minimum 5, to 74, minimum 42, at 254
# registers) take the shared-load stalls out of the f32 M = 128 loop (run LN: 27.6% of its stall
# samples against cuBLAS's 8.4%)? Every GPU test on the new build (configs capped at 128
# registers spill here: a correctness run, not a candidate for main), then the A/B against main.
set -u
. scripts/run-lib.sh
run_begin lo 230
OUT=$Z/logs timeout $(left 110) bash scripts/gpu-test.sh > $Z/logs/gpu-test-summary.txt 2>&1; stamp $? >> $Z/logs/gpu-test-summary.txt
ab_rounds results/logs/runLO/ab-configs.txt 25
run_end
