set -u
D=$OUT/ca; mkdir -p $D
t0=$(date +%s)
left() { local l=$(( 560 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; dist/bin/coalesce-tune --version; } > $D/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
T=dist/bin/coalesce-tune
# Correctness first: every wgmma GPU test, with the epilogue-warp tiles and their planted hazard.
timeout $(left 220) dist/bin/wgmma_test > $D/wgmma_test.txt 2>&1; echo "wgmma_test rc=$? $(( $(date +%s)-t0 ))s" >> $D/done.txt
# A/B at 4096^3 and 8192^3 bf16 and 4096^3 f16, bias + GELU: the cooperative winner and its
# 256x128 twin with the consumers' own epilogue, against the same tiles with epilogue warps.
want='bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_(bias|ew)|bm256_bn128_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_(bias|ew)|bm128_bn256_bk64_s[24]_wg2_cm1_cn1_p1_g8_ts1_ew|bm256_bn128_bk64_s2_wg2_cm1_cn1_p1_g8_ts1_ew'
for r in 1 2; do
  for spec in "4096 bf16" "8192 bf16" "4096 f16"; do
    set -- $spec
    C=$($T space --shape $1 --dtype $2 --family wgmma 2>/dev/null | awk '$2=="legal"{print $1}' | grep -E "$want" | sed 's/^/--config /' | tr '\n' ' ')
    echo "$spec round $r: $C" >> $D/configs.txt
    timeout $(left 120) $T sweep --shape $1 --dtype $2 --family wgmma $C --db $D/r$r.db > $D/sweep_$1_$2_$r.txt 2>&1
    echo "$spec round $r rc=$? $(( $(date +%s)-t0 ))s" >> $D/done.txt
  done
done
echo "rc=0 $(( $(date +%s)-t0 ))s" >> $D/done.txt
tar czf $OUT/ca.tgz -C $OUT ca && rm -rf $D
