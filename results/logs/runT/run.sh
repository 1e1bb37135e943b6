set -u
S=$OUT/t; mkdir -p $S/logs
t0=$(date +%s)
left() { local l=$(( 560 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; echo "cores $(nproc)"; dist/bin/coalesce-tune --version; } > $S/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
# Every GPU test on the two-GPU host, then the several-devices test with one GPU visible.
OUT=$S timeout -s INT $(left 170) scripts/gpu-test.sh > $S/gpu-test.txt 2>&1; stamp $? >> $S/gpu-test.txt
CUDA_VISIBLE_DEVICES=0 COALESCE_REQUIRE_GPU=1 timeout -s INT $(left 90) dist/bin/tuner_sweep_test --gtest_filter='*EveryDeviceOfTheHostSweepsItsShare*' > $S/one-gpu-devices-test.txt 2>&1; stamp $? >> $S/one-gpu-devices-test.txt
for w in bert-base bert-large; do
  timeout -s INT $(left 150) dist/bin/coalesce-tune sweep --shapes-file workloads/$w.csv --dtype bf16 --strategy random --budget 8 --seed 1 --devices all -j 32 --db $S/workloads.db > $S/logs/sweep-$w-bf16.txt 2>&1; stamp $? >> $S/logs/sweep-$w-bf16.txt
done
stamp 0 > $S/done.txt
tar czf $OUT/t.tgz -C $OUT t && rm -rf $S
