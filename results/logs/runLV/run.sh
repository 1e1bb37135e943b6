# Run LV: main with each K slice's products summed apart (runs LT-LU). The README's main job as
# typed, `coalesce-tune sweep --shape 4096 --steady-top 3` (f32: simt's FP32 FMAs and mma's
# 3xTF32 ranked together), as run LS did before the slice sums; then f32 mma at M = 8 and 32
# (N = K = 4096), the two M of issue 12's sweep runs LT-LU left out, a seeded random draw of 200
# as run LR's.
set -u
. scripts/run-lib.sh
run_begin lv 420
timeout -s INT $(left 300) dist/bin/coalesce-tune sweep --shape 4096 --steady-top 3 -j 16 --db $Z/lv.db \
  > $Z/logs/sweep-4096.txt 2>&1
echo "sweep 4096 $(stamp $?)" >> $Z/logs/done.txt
for job in 32x4096x4096:50 8x4096x4096:50; do
  IFS=: read -r shape secs <<< "$job"
  timeout -s INT $(left $secs) dist/bin/coalesce-tune sweep --shape $shape --dtype f32 --family mma --strategy random \
    --budget 200 --seed 12 --steady-top 3 -j 16 --db $Z/lv.db > $Z/logs/sweep-$shape-f32-mma.txt 2>&1
  echo "sweep $shape $(stamp $?)" >> $Z/logs/done.txt
done
run_end
