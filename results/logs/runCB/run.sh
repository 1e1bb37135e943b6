set -u
D=$OUT/cb; mkdir -p $D
t0=$(date +%s)
left() { local l=$(( 560 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; dist/bin/coalesce-tune --version; } > $D/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
T=dist/bin/coalesce-tune
# Epilogue warps with slots for the whole tile: 128x192 through 3 slots beside 3 stages fits
# (run CA: with fewer slots than the tile's chunks the consumers wait for the epilogue warps).
# Controls: the cooperative 128x256 and 128x192 with the consumers' own epilogue, and the
# 8192 sweep's best (256x192 direct). Each epilogue: bias + GELU and none.
want='bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_(bias|none|ew[12])|bm128_bn192_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_(bias|none|ew)|bm256_bn192_bk64_s4_wg2_cm1_cn1_p1_g8_ts0_(bias|none)'
for r in 1 2; do
  for spec in "8192 bf16 bias_gelu" "4096 bf16 bias_gelu" "4096 bf16 none" "8192 f16 bias_gelu" "8192 bf16 none"; do
    set -- $spec
    C=$($T space --shape $1 --dtype $2 --epilogue $3 --family wgmma 2>/dev/null | awk '$2=="legal"{print $1}' | grep -E "$want" | sed 's/^/--config /' | tr '\n' ' ')
    echo "$spec round $r: $C" >> $D/configs.txt
    timeout $(left 120) $T sweep --shape $1 --dtype $2 --epilogue $3 --family wgmma $C --db $D/r$r.db > $D/sweep_$1_$2_$3_$r.txt 2>&1
    echo "$spec round $r rc=$? $(( $(date +%s)-t0 ))s" >> $D/done.txt
  done
done
echo "rc=0 $(( $(date +%s)-t0 ))s" >> $D/done.txt
tar czf $OUT/cb.tgz -C $OUT cb && rm -rf $D
