set -u
Z=$OUT/hf; mkdir -p $Z/logs
t0=$(date +%s)
left() { local l=$(( 290 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; dist/bin/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
T=dist/bin/coalesce-tune
C=results/logs/runHF/configs.txt
# Issue 10's line on one more GPU with the final build: the three fastest mma configs of each
# dtype at 4096^3 in the steady state (3000 samples per method), two rounds; then tf32's at
# 1024, 2048 and 8192 (operands swapped since those sweeps) at the default sampling.
for r in 1 2; do
  grep '^4096 ' $C | while read shape dt rest; do
    cfgs=$(for c in $rest; do printf -- '--config %s ' $c; done)
    timeout -s INT $(left 40) $T sweep --shape $shape --dtype $dt $cfgs -j 16 --min-samples 3000 --max-samples 3000 --db $Z/steady-$r.db > $Z/logs/steady-$dt-$r.txt 2>&1
    echo "steady $dt $r $(stamp $?)" >> $Z/logs/done.txt
  done
done
grep -v '^4096 ' $C | while read shape dt rest; do
  cfgs=$(for c in $rest; do printf -- '--config %s ' $c; done)
  timeout -s INT $(left 40) $T sweep --shape $shape --dtype $dt $cfgs -j 16 --db $Z/hf.db > $Z/logs/sweep-$shape.txt 2>&1
  echo "sweep $shape $dt $(stamp $?)" >> $Z/logs/done.txt
done
stamp 0 > $Z/done.txt
tar czf $OUT/hf.tgz -C $OUT hf && rm -rf $Z
