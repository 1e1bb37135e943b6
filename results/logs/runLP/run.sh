# Run LP: f32 on the mma family as 3xTF32 (MmaMath<Math::f32>: each operand split into its TF32
# part and remainder, three TF32 mma per product, f32's own tolerance). Every GPU test (the new
# f32 tests of mma_test among them: four tiles at every shape, split-K, the same bits twice, and
# tf32's single product failing f32's check), then seeded random sweeps of the mma family in f32
# at the shapes issue 12's f32 lines leave open (M = 128 and 256, N = K = 4096: simt at 92-94% of
# cuBLAS and 0.98x eager) and at 4096^3 (simt 93.7% of cuBLAS, slower than eager), each with its
# baselines in the same sweep and its three fastest again in the steady state.
set -u
. scripts/run-lib.sh
run_begin lp 560
OUT=$Z/logs timeout $(left 150) bash scripts/gpu-test.sh > $Z/logs/gpu-test-summary.txt 2>&1; stamp $? >> $Z/logs/gpu-test-summary.txt
for job in 128x4096x4096:120:125 256x4096x4096:120:125 4096:80:140; do
  IFS=: read -r shape budget secs <<< "$job"
  timeout -s INT $(left $secs) dist/bin/coalesce-tune sweep --shape $shape --dtype f32 --family mma --strategy random \
    --budget $budget --seed 12 --steady-top 3 -j 16 --db $Z/lp.db > $Z/logs/sweep-$shape-f32-mma.txt 2>&1
  echo "sweep $shape $(stamp $?)" >> $Z/logs/done.txt
done
run_end
