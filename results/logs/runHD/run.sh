set -u
Z=$OUT/hd; mkdir -p $Z/logs
t0=$(date +%s)
left() { local l=$(( 570 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; echo "cores $(nproc)"; dist/bin/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
T=dist/bin/coalesce-tune
# 1. Every GPU test and example on the build with split-K reduced in the cluster (reduce = 2).
OUT=$Z/logs timeout $(left 200) bash scripts/gpu-test.sh > $Z/logs/gpu-test-summary.txt 2>&1; stamp $? >> $Z/logs/gpu-test-summary.txt
# 2. bf16 bias+GELU at the skinny shapes issue 12 has not met: every reduce = 2 config the space
#    lists there, beside the database's three fastest configs of the shape, then the three
#    fastest of all again in the steady state (--steady-top 3) with their own baselines.
for s in 64x4096x4096 128x4096x4096 256x4096x4096 512x512x512; do
  cfgs=$(sed 's/^/--config /' results/logs/runHD/configs-$s.txt | tr '\n' ' ')
  timeout -s INT $(left 120) $T sweep --shape $s --dtype bf16 --family wgmma $cfgs --steady-top 3 -j 16 --db $Z/hd.db > $Z/logs/sweep-$s.txt 2>&1
  echo "sweep $s $(stamp $?)" >> $Z/logs/done.txt
done
stamp 0 > $Z/done.txt
tar czf $OUT/hd.tgz -C $OUT hd && rm -rf $Z
