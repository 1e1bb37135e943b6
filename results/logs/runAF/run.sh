set -u
Z=$OUT/af; mkdir -p $Z/logs
t0=$(date +%s)
left() { local l=$(( 480 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; echo "cores $(nproc)"; dist/bin/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
# Every GPU test and example: the first run of gemv's staged kernel (MR 16, 32) and simt's 32-row tiles.
OUT=$Z/logs timeout $(left 150) bash scripts/gpu-test.sh > $Z/logs/gpu-test-summary.txt 2>&1; stamp $? >> $Z/logs/gpu-test-summary.txt
# f32 M = 32 (issue 12): every gemv config (MR up to 32), then 200 of the 1,440 legal 32-row simt
# configs (results/logs/runAF/simt-bm32-sample.txt) beside the three fastest configs of runs 50-68.
timeout -s INT $(left 150) dist/bin/coalesce-tune sweep --shape 32x4096x4096 --dtype f32 --family gemv -j 16 --db $Z/af.db > $Z/logs/sweep-f32-32-gemv.txt 2>&1; stamp $? >> $Z/logs/sweep-f32-32-gemv.txt
cfgs=$( (cat results/logs/runAF/simt-bm32-sample.txt; grep '^f32 32 ' results/logs/runZ/ab-configs.txt | cut -d' ' -f3- | tr ' ' '\n') | sed 's/^/--config /' | tr '\n' ' ')
timeout -s INT $(left 150) dist/bin/coalesce-tune sweep --shape 32x4096x4096 --dtype f32 --family simt $cfgs -j 16 --db $Z/af.db > $Z/logs/sweep-f32-32-simt.txt 2>&1; stamp $? >> $Z/logs/sweep-f32-32-simt.txt
# bf16 M = 64 and 128 with the split-K reduce on gelu_exact: the three fastest configs of runs 51-61.
for m in 64 128; do
  cfgs=$(grep "^bf16 $m " results/logs/runZ/ab-configs.txt | cut -d' ' -f3- | tr ' ' '\n' | sed 's/^/--config /' | tr '\n' ' ')
  timeout -s INT $(left 60) dist/bin/coalesce-tune sweep --shape ${m}x4096x4096 --dtype bf16 $cfgs -j 16 --db $Z/af.db > $Z/logs/sweep-bf16-$m.txt 2>&1; stamp $? >> $Z/logs/sweep-bf16-$m.txt
done
stamp 0 > $Z/done.txt
tar czf $OUT/af.tgz -C $OUT af && rm -rf $Z
