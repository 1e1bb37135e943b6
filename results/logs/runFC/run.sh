set -u
Z=$OUT/fc; mkdir -p $Z/logs
t0=$(date +%s)
left() { local l=$(( 560 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; echo "cores $(nproc)"; dist/bin/coalesce-tune --version; dist/old/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
cfgs() { args=(); while read -r c; do args+=(--config "$c"); done < dist/configs_$1.txt; }
# 1. 8192^3 in the power-capped steady state (3000 samples per method back to back), git
#    e7b6f2c's GELU (dist/old) against this build's, bf16 then f16, old first: run EK's two best tiles.
for d in bf16 f16; do
  cfgs 8192_$d
  for side in old new; do
    bin=dist/bin/coalesce-tune; [ $side = old ] && bin=dist/old/coalesce-tune
    timeout -s INT $(left 100) $bin sweep --shape 8192 --dtype $d --family wgmma "${args[@]}" --min-samples 3000 --max-samples 3000 --db $Z/$side-8192.db > $Z/logs/8192-$d-$side.txt 2>&1
    echo "8192 $d $side $(stamp $?)" >> $Z/logs/done.txt
  done
done
# 2. 4096^3: run FB's five fastest wgmma tiles per 16-bit dtype re-timed in the steady state.
for d in bf16 f16; do
  cfgs 4096_$d
  timeout -s INT $(left 60) dist/bin/coalesce-tune sweep --shape 4096 --dtype $d --family wgmma "${args[@]}" --min-samples 3000 --max-samples 3000 --db $Z/steady-4096.db > $Z/logs/4096-$d-steady.txt 2>&1
  echo "4096 $d steady $(stamp $?)" >> $Z/logs/done.txt
done
# 3. tf32 at 4096^3, the wgmma family exhaustive on this build (issue 11's tf32 line).
timeout -s INT $(left 120) dist/bin/coalesce-tune sweep --shape 4096 --dtype tf32 --family wgmma -j 16 --db $Z/tf32-4096.db > $Z/logs/sweep-4096-wgmma-tf32.txt 2>&1
echo "4096 tf32 sweep $(stamp $?)" >> $Z/logs/done.txt
stamp 0 > $Z/done.txt
tar czf $OUT/fc.tgz -C $OUT fc && rm -rf $Z
