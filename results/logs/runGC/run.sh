set -u
Z=$OUT/gc; mkdir -p $Z/logs
t0=$(date +%s)
left() { local l=$(( 570 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; echo "cores $(nproc)"; dist/bin/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
T=dist/bin/coalesce-tune
# Each sweep tunes every legal config, then times its fastest again in the steady state with its
# own baselines (--steady-top): mma tf32 at 4096^3 (issue 10), wgmma f16 and tf32 at 4096^3 and
# bf16 and f16 at 8192^3 (issue 11), in that order while time is left.
for fd in "4096 mma tf32 3" "4096 wgmma f16 5" "4096 wgmma tf32 5" "8192 wgmma bf16 3" "8192 wgmma f16 3"; do
  set -- $fd
  timeout -s INT $(left 200) $T sweep --shape $1 --dtype $3 --family $2 --steady-top $4 -j 16 --db $Z/gc.db > $Z/logs/$1-$2-$3.txt 2>&1
  echo "$1 $2 $3 $(stamp $?)" >> $Z/logs/done.txt
done
stamp 0 > $Z/done.txt
tar czf $OUT/gc.tgz -C $OUT gc && rm -rf $Z
