set -u
Z=$OUT/ic; mkdir -p $Z/logs
t0=$(date +%s)
left() { local l=$(( 480 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; echo "cores $(nproc)"; dist/bin/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
# 1. Every GPU test and example on the build with deep rings (8 and 12 stages) in the wgmma
#    space and two deep-ring tiles in the wgmma test: none may skip.
OUT=$Z/logs timeout $(left 150) bash scripts/gpu-test.sh > $Z/logs/gpu-test-summary.txt 2>&1; stamp $? >> $Z/logs/gpu-test-summary.txt
# 2. bf16 bias+GELU at the skinny shapes: every legal deep-ring config the space lists there
#    without a split or with 2 to 4 slices reduced by the separate kernel, beside the database's
#    three fastest wgmma configs of the shape; then the three fastest again in the steady state
#    (--steady-top 3) with their own baselines.
for s in 128x4096x4096 64x4096x4096 512x512x512 256x4096x4096; do
  cfgs=$(sed 's/^/--config /' results/logs/runIC/configs-$s.txt | tr '\n' ' ')
  timeout -s INT $(left 110) dist/bin/coalesce-tune sweep --shape $s --dtype bf16 --family wgmma $cfgs --steady-top 3 -j 16 --db $Z/ic.db > $Z/logs/sweep-$s.txt 2>&1
  echo "sweep $s $(stamp $?)" >> $Z/logs/done.txt
done
stamp 0 > $Z/done.txt
tar czf $OUT/ic.tgz -C $OUT ic && rm -rf $Z
