set -u
Z=$OUT/ej; mkdir -p $Z
t0=$(date +%s)
left() { local l=$(( 540 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; dist/bin/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
T=dist/bin/coalesce-tune
# f16 at 8192^3 (94.6-94.7% of cuBLAS in run EI): every persistent two-consumer wgmma tile of
# 128x192, 128x256, 256x128 and 256x192 (configs_f16_8192.txt: stages, stores, clusters), then
# the three fastest again with 3000 samples per method, two rounds.
args=(); while read -r c; do args+=(--config "$c"); done < dist/configs_f16_8192.txt
timeout $(left 240) $T sweep --shape 8192 --dtype f16 --family wgmma "${args[@]}" --db $Z/all.db > $Z/all.txt 2>&1
echo "all rc=$? $(( $(date +%s)-t0 ))s" >> $Z/done.txt
top=$(sqlite3 $Z/all.db "select config_name from v_measurements where status='ok' and method='coalesce' order by median_ms limit 3" 2>/dev/null)
[ -z "$top" ] && top=$(grep -o 'wgmma_f16_[a-z0-9_]*_bias_gelu' $Z/all.txt | head -3)
echo "$top" > $Z/top.txt
for r in r1 r2; do
  a=(); for c in $top; do a+=(--config "$c"); done
  timeout $(left 120) $T sweep --shape 8192 --dtype f16 --family wgmma "${a[@]}" --min-samples 3000 --max-samples 3000 --db $Z/$r.db > $Z/$r.txt 2>&1
  echo "$r rc=$? $(( $(date +%s)-t0 ))s" >> $Z/done.txt
done
tar czf $OUT/ej.tgz -C $OUT ej && rm -rf $Z
