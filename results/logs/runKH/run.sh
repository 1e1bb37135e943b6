# Run KH: the cluster reduction's epilogue reordered (all loads, then all epilogues, then the
# stores) against the build before (50e8196, dist/old): every GPU test on the new build, then
# the A/B in the steady state, two alternating rounds.
set -u
. scripts/run-lib.sh
run_begin kh 330
OUT=$Z/logs timeout $(left 150) bash scripts/gpu-test.sh > $Z/logs/gpu-test-summary.txt 2>&1; stamp $? >> $Z/logs/gpu-test-summary.txt
ab_rounds results/logs/runKH/ab-configs.txt 30
run_end
