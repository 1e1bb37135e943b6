# Run LS: the README's main job as a user types it, `coalesce-tune sweep --shape 4096` (f32,
# every family that computes it: simt's FP32 FMAs and mma's 3xTF32, ranked together), with the
# three fastest of each family again in the steady state.
set -u
. scripts/run-lib.sh
run_begin ls 420
timeout -s INT $(left 400) dist/bin/coalesce-tune sweep --shape 4096 --steady-top 3 -j 16 --db $Z/ls.db > $Z/logs/sweep-4096.txt 2>&1
echo "sweep 4096 $(stamp $?)" >> $Z/logs/done.txt
run_end
