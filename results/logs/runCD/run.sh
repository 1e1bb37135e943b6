set -u
D=$OUT/cd; mkdir -p $D
t0=$(date +%s)
left() { local l=$(( 560 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; dist/bin/coalesce-tune --version; } > $D/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
T=dist/bin/coalesce-tune
# Correctness first: every wgmma GPU test, with four cluster tiles (2x1, 1x2; edges) and a
# planted early release in a 2x1 cluster.
timeout $(left 240) dist/bin/wgmma_test > $D/wgmma_test.txt 2>&1; echo "wgmma_test rc=$? $(( $(date +%s)-t0 ))s" >> $D/done.txt
# A/B: the winners' tiles with clusters of two (2x1 sharing B, 1x2 sharing A) against 1x1, two rounds.
want='bm128_bn256_bk64_s3_wg2_cm[12]_cn[12]_p1_g8_ts1_(bias|none)|bm256_bn128_bk64_s3_wg2_cm[12]_cn[12]_p1_g8_ts1_(bias|none)|bm128_bn192_bk64_s3_wg2_cm[12]_cn[12]_p1_g8_ts1_(bias|none|ew3)|bm256_bn128_bk64_s4_wg2_cm[12]_cn[12]_p1_g8_ts0_(bias|none)'
for r in 1 2; do
  for spec in "4096 bf16 bias_gelu" "8192 bf16 bias_gelu" "4096 bf16 none" "4096 f16 bias_gelu" "2048 bf16 bias_gelu"; do
    set -- $spec
    C=$($T space --shape $1 --dtype $2 --epilogue $3 --family wgmma 2>/dev/null | awk '$2=="legal"{print $1}' | grep -E "$want" | sed 's/^/--config /' | tr '\n' ' ')
    echo "$spec round $r: $C" >> $D/configs.txt
    timeout $(left 120) $T sweep --shape $1 --dtype $2 --epilogue $3 --family wgmma $C --db $D/r$r.db > $D/sweep_$1_$2_$3_$r.txt 2>&1
    echo "$spec round $r rc=$? $(( $(date +%s)-t0 ))s" >> $D/done.txt
  done
done
echo "rc=0 $(( $(date +%s)-t0 ))s" >> $D/done.txt
tar czf $OUT/cd.tgz -C $OUT cd && rm -rf $D
