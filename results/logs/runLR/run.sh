# Run LR: every GPU test on the tree that fixes tuner_sweep_test's device-sharing test for f32's
# two families (run LQ: its only failure, 4 configs drawn where it counted 2), then the f32 mma
# sweeps run LQ's timeouts cut short (512^3, 64x4096x4096 and 1024^3 had no steady-state pass)
# and M = 8 and 32, each a seeded random draw of 200 with its baselines and its three fastest
# again in the steady state.
set -u
. scripts/run-lib.sh
run_begin lr 470
OUT=$Z/logs timeout $(left 150) bash scripts/gpu-test.sh > $Z/logs/gpu-test-summary.txt 2>&1; stamp $? >> $Z/logs/gpu-test-summary.txt
for job in 512:60 64x4096x4096:60 1024:60 32x4096x4096:55 8x4096x4096:55; do
  IFS=: read -r shape secs <<< "$job"
  timeout -s INT $(left $secs) dist/bin/coalesce-tune sweep --shape $shape --dtype f32 --family mma --strategy random \
    --budget 200 --seed 12 --steady-top 3 -j 16 --db $Z/lr.db > $Z/logs/sweep-$shape-f32-mma.txt 2>&1
  echo "sweep $shape $(stamp $?)" >> $Z/logs/done.txt
done
run_end
