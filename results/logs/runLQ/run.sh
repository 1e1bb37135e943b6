# Run LQ: f32 as 3xTF32 on the mma family, with each k-step's three products summed apart and
# added into the accumulators with FADDs (run LP accumulated K in the tensor core: 2.7e-5
# normwise at K = 4096, failing f32's tolerance of 1.45e-5, and 1.44e-5 at K = 2048). Every GPU
# test, then exhaustive sweeps of the mma family in f32 (64-byte slices only) at issue 12's f32
# shapes and the cubes, each with its baselines in the same sweep and its three fastest again
# in the steady state.
set -u
. scripts/run-lib.sh
run_begin lq 585
OUT=$Z/logs timeout $(left 150) bash scripts/gpu-test.sh > $Z/logs/gpu-test-summary.txt 2>&1; stamp $? >> $Z/logs/gpu-test-summary.txt
for job in 128x4096x4096:100 256x4096x4096:100 4096:60 512:30 2048:40 64x4096x4096:60 1024:30; do
  IFS=: read -r shape secs <<< "$job"
  timeout -s INT $(left $secs) dist/bin/coalesce-tune sweep --shape $shape --dtype f32 --family mma \
    --steady-top 3 -j 16 --db $Z/lq.db > $Z/logs/sweep-$shape-f32-mma.txt 2>&1
  echo "sweep $shape $(stamp $?)" >> $Z/logs/done.txt
done
run_end
