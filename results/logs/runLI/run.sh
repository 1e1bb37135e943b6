# Run LI: branch wgmma-bias-prefetch: the wgmma producer pulls each tile's bias columns into L2 at
# the tile's start (prefetch.global.L2), so the epilogue's bias loads after the tile's last wgmma
# hit L2 (run LH: the persistent TMA-store tile's epilogue cost 0.8-1.2 us at bf16 512^3). Every
# GPU test on the new build, then the A/B against main (dist/old) in the steady state, two
# alternating rounds.
set -u
. scripts/run-lib.sh
run_begin li 420
OUT=$Z/logs timeout $(left 150) bash scripts/gpu-test.sh > $Z/logs/gpu-test-summary.txt 2>&1; stamp $? >> $Z/logs/gpu-test-summary.txt
ab_rounds results/logs/runLI/ab-configs.txt 30
run_end
