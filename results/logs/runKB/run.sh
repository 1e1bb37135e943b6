# Run KB: stream-K on the deep rings (deep_stream_k) of problems of few tiles.
set -u
. scripts/run-lib.sh
run_begin kb 400
T=dist/bin/coalesce-tune
# 1. Every GPU test and example, the two deep stream-K instances among them: none may skip.
OUT=$Z/logs timeout $(left 170) bash scripts/gpu-test.sh > $Z/logs/gpu-test-summary.txt 2>&1; stamp $? >> $Z/logs/gpu-test-summary.txt
# 2. bf16 bias+GELU: every legal stream-K config on a deep ring (8, 12 or 16 stages) beside the
#    three fastest in the steady state on devices 45-48, then the three fastest again (--steady-top 3).
sweep() {
  cfgs=$(sed 's/^/--config /' results/logs/runKB/configs-$1.txt | tr '\n' ' ')
  timeout -s INT $(left $2) $T sweep --shape $1 --dtype bf16 --family wgmma $cfgs --steady-top 3 -j 16 --db $Z/kb.db > $Z/logs/sweep-$1.txt 2>&1
  echo "sweep $1 $(stamp $?)" >> $Z/logs/done.txt
}
sweep 64x4096x4096 45
sweep 128x4096x4096 40
sweep 32x4096x4096 40
sweep 8x4096x4096 40
sweep 256x4096x4096 40
sweep 512x512x512 40
run_end
