set -u
Z=$OUT/db; mkdir -p $Z
t0=$(date +%s)
left() { local l=$(( 570 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; dist/bin/coalesce-tune --version; dist/bin/A/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
# The wgmma GPU test on the build with bank-conflict-free tf32 fragment loads (B) and the
# planted early release that syncs its warpgroup.
timeout $(left 150) dist/bin/wgmma_test > $Z/wgmma_test.txt 2>&1; echo "wgmma_test rc=$? $(( $(date +%s)-t0 ))s" >> $Z/done.txt
# A/B: run DA's build (A: column order, two-way conflicts) against B, the 6 fastest tf32
# configs of run DA at 4096^3, two rounds in alternating order.
C=""
for c in bm256_bn128_bk32_s4_wg2_cm1_cn1_p1 bm256_bn128_bk32_s4_wg2_cm1_cn1_p0 bm256_bn128_bk32_s3_wg2_cm1_cn1_p1 \
         bm256_bn128_bk32_s3_wg2_cm1_cn1_p0 bm128_bn256_bk32_s4_wg2_cm1_cn1_p1 bm128_bn256_bk32_s3_wg2_cm1_cn1_p0; do
  C="$C --config wgmma_tf32_${c}_g8_ts0_bias_gelu"
done
for order in "A B" "B A"; do
  for b in $order; do
    bin=dist/bin/coalesce-tune; [ $b = A ] && bin=dist/bin/A/coalesce-tune
    r=$(ls $Z | grep -c "^ab_$b") 
    timeout $(left 60) $bin sweep --shape 4096 --dtype tf32 --family wgmma $C --db $Z/ab_${b}_$r.db > $Z/ab_${b}_$r.txt 2>&1
    echo "ab $b $r rc=$? $(( $(date +%s)-t0 ))s" >> $Z/done.txt
  done
done
# B's exhaustive tf32 sweeps (bias + GELU) at 4096 and 8192, and its winner with no epilogue.
T=dist/bin/coalesce-tune
for spec in "4096 tf32" "8192 tf32"; do
  set -- $spec
  timeout $(left 120) $T sweep --shape $1 --dtype $2 --family wgmma --db $Z/db.db > $Z/sweep_$1_$2.txt 2>&1
  echo "$spec rc=$? $(( $(date +%s)-t0 ))s" >> $Z/done.txt
done
timeout $(left 60) $T sweep --shape 4096 --dtype tf32 --family wgmma --epilogue none \
  --config wgmma_tf32_bm256_bn128_bk32_s4_wg2_cm1_cn1_p1_g8_ts0_none --config wgmma_tf32_bm256_bn128_bk32_s4_wg2_cm1_cn1_p0_g8_ts0_none \
  --db $Z/none.db > $Z/sweep_none.txt 2>&1; echo "none rc=$? $(( $(date +%s)-t0 ))s" >> $Z/done.txt
tar czf $OUT/db.tgz -C $OUT db && rm -rf $Z
