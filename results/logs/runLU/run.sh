# Run LU: branch mma-3xtf32-slice-sums after run LT. LT's mma_test stopped at its f32 test's
# first tile (a 128-byte-slice tile f32's register rule refuses; the test now uses a legal one
# and checks the rule at compile time), so mma_test again; then f32 mma sweeps at the shapes of
# runs LQ-LR, which the longer slices (now legal) and the slice sums may change, each a seeded
# random draw of 200 with its baselines and its three fastest again in the steady state.
set -u
. scripts/run-lib.sh
run_begin lu 450
timeout $(left 60) dist/bin/mma_test > $Z/logs/mma_test.log 2>&1; echo "mma_test $(stamp $?)" >> $Z/logs/done.txt
for job in 128x4096x4096:60 256x4096x4096:60 2048:60 64x4096x4096:60 512:50 1024:50; do
  IFS=: read -r shape secs <<< "$job"
  timeout -s INT $(left $secs) dist/bin/coalesce-tune sweep --shape $shape --dtype f32 --family mma --strategy random \
    --budget 200 --seed 12 --steady-top 3 -j 16 --db $Z/lu.db > $Z/logs/sweep-$shape-f32-mma.txt 2>&1
  echo "sweep $shape $(stamp $?)" >> $Z/logs/done.txt
done
run_end
