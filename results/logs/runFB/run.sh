set -u
Z=$OUT/fb; mkdir -p $Z/logs
t0=$(date +%s)
left() { local l=$(( 570 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; echo "cores $(nproc)"; dist/bin/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
# Every GPU test and example on this build (the 17-instruction GELU, the tolerance with GELU's term).
OUT=$Z/logs timeout $(left 150) bash scripts/gpu-test.sh > $Z/logs/gpu-test-summary.txt 2>&1; stamp $? >> $Z/logs/gpu-test-summary.txt
# Exhaustive sweeps at 4096^3 on this build, each beside its own baselines: the mma family in bf16
# and f16 (issue 10), then the wgmma family in bf16 and f16 (issue 11), while time is left.
for fd in "mma bf16" "mma f16" "wgmma bf16" "wgmma f16"; do
  set -- $fd
  timeout -s INT $(left 150) dist/bin/coalesce-tune sweep --shape 4096 --dtype $2 --family $1 -j 16 --db $Z/fb.db > $Z/logs/sweep-4096-$1-$2.txt 2>&1
  echo "$1 $2 $(stamp $?)" >> $Z/logs/sweeps-done.txt
done
stamp 0 > $Z/done.txt
tar czf $OUT/fb.tgz -C $OUT fb && rm -rf $Z
