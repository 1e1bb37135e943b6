set -u
Z=$OUT/ek; mkdir -p $Z
t0=$(date +%s)
left() { local l=$(( 400 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; dist/bin/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
T=dist/bin/coalesce-tune
# 8192^3 ranked in the power-capped steady state: the eight fastest bf16 tiles of run 102 (the
# committed exhaustive sweep) and run EI's best, and the ten fastest f16 tiles of run EJ's
# default-sampling sweep and run EI's best, each method timed 3000 times back to back.
for d in bf16 f16; do
  args=(); while read -r c; do args+=(--config "$c"); done < dist/configs_$d.txt
  timeout $(left 200) $T sweep --shape 8192 --dtype $d --family wgmma "${args[@]}" --min-samples 3000 --max-samples 3000 --db $Z/$d.db > $Z/$d.txt 2>&1
  echo "$d rc=$? $(( $(date +%s)-t0 ))s" >> $Z/done.txt
done
tar czf $OUT/ek.tgz -C $OUT ek && rm -rf $Z
