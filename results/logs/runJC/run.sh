set -u
Z=$OUT/jc; mkdir -p $Z/logs
t0=$(date +%s)
left() { local l=$(( 520 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; echo "cores $(nproc)"; dist/bin/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
T=dist/bin/coalesce-tune
# bf16 bias+GELU: every legal config with two consumers taking alternate K slices of the whole
# tile (k_interleave = 1) the space lists at the shape, beside the database's three fastest
# wgmma configs there, then the three fastest again in the steady state (--steady-top 3);
# after the first two shapes, every GPU test and example (none may skip).
sweep() {
  cfgs=$(sed 's/^/--config /' results/logs/runJC/configs-$1.txt | tr '\n' ' ')
  timeout -s INT $(left $2) $T sweep --shape $1 --dtype bf16 --family wgmma $cfgs --steady-top 3 -j 16 --db $Z/jc.db > $Z/logs/sweep-$1.txt 2>&1
  echo "sweep $1 $(stamp $?)" >> $Z/logs/done.txt
}
sweep 64x4096x4096 50
sweep 128x4096x4096 45
OUT=$Z/logs timeout $(left 170) bash scripts/gpu-test.sh > $Z/logs/gpu-test-summary.txt 2>&1; stamp $? >> $Z/logs/gpu-test-summary.txt
sweep 512x512x512 45
sweep 32x4096x4096 45
sweep 256x4096x4096 40
sweep 8x4096x4096 40
stamp 0 > $Z/done.txt
tar czf $OUT/jc.tgz -C $OUT jc && rm -rf $Z
