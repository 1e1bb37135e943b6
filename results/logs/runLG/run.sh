# Run LG: branch simt-frag-pipe (c90a174): the simt mainloop with double-buffered fragments (the
# next k's loads in flight during k's FFMAs, and the slice's barrier and refill before its last
# k's FFMAs) where the registers allow. Every GPU test on the new build, then the A/B against
# main (b771ddd, dist/old) in the steady state, two alternating rounds.
set -u
. scripts/run-lib.sh
run_begin lg 330
OUT=$Z/logs timeout $(left 150) bash scripts/gpu-test.sh > $Z/logs/gpu-test-summary.txt 2>&1; stamp $? >> $Z/logs/gpu-test-summary.txt
ab_rounds results/logs/runLG/ab-configs.txt 30
run_end
