set -u
Z=$OUT/jh; mkdir -p $Z/logs
t0=$(date +%s)
left() { local l=$(( 480 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; echo "cores $(nproc)"; dist/bin/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
T=dist/bin/coalesce-tune
# 1. Every GPU test and example with the swapped 16-bit tile (swap_ab): none may skip.
OUT=$Z/logs timeout $(left 170) bash scripts/gpu-test.sh > $Z/logs/gpu-test-summary.txt 2>&1; stamp $? >> $Z/logs/gpu-test-summary.txt
# 2. bf16 bias+GELU: every legal swapped config the space lists at the shape (unsplit or 2 to 4
#    slices), beside run JC/JD's three fastest in the steady state there, then the three fastest
#    again in the steady state (--steady-top 3).
sweep() {
  cfgs=$(sed 's/^/--config /' results/logs/runJH/configs-$1.txt | tr '\n' ' ')
  timeout -s INT $(left $2) $T sweep --shape $1 --dtype bf16 --family wgmma $cfgs --steady-top 3 -j 16 --db $Z/jh.db > $Z/logs/sweep-$1.txt 2>&1
  echo "sweep $1 $(stamp $?)" >> $Z/logs/done.txt
}
sweep 64x4096x4096 60
sweep 32x4096x4096 55
sweep 8x4096x4096 55
sweep 128x4096x4096 55
sweep 512x512x512 55
stamp 0 > $Z/done.txt
tar czf $OUT/jh.tgz -C $OUT jh && rm -rf $Z
