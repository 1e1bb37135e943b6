set -u
Z=$OUT/gb; mkdir -p $Z/logs
t0=$(date +%s)
left() { local l=$(( 560 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; echo "cores $(nproc)"; dist/bin/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
T=dist/bin/coalesce-tune
# Each sweep tunes every legal config, then times its fastest again in the steady state with its
# own baselines (--steady-top): the mma family in f16 at 4096^3 (issue 10), then the wgmma family
# in bf16 at 4096^3 (issue 11), while time is left.
for fd in "mma f16 3" "wgmma bf16 5"; do
  set -- $fd
  timeout -s INT $(left 300) $T sweep --shape 4096 --dtype $2 --family $1 --steady-top $3 -j 16 --db $Z/gb.db > $Z/logs/$1-$2.txt 2>&1
  echo "$1 $2 $(stamp $?)" >> $Z/logs/done.txt
done
stamp 0 > $Z/done.txt
tar czf $OUT/gb.tgz -C $OUT gb && rm -rf $Z
