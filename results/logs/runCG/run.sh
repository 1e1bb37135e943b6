set -u
D=$OUT/cg; mkdir -p $D
t0=$(date +%s)
left() { local l=$(( 400 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; dist/bin/coalesce-tune --version; } > $D/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
T=dist/bin/coalesce-tune
# Run 103's f16 winner (0.2152 ms, its 4- and 5-stage twins 0.244) and run 101's bf16 winner
# (the 1x2 cluster 256x128), each beside its twins and the earlier winners, three rounds.
F="--config wgmma_f16_bm128_bn128_bk64_s6_wg2_cm1_cn1_p1_g8_ts1_bias_gelu --config wgmma_f16_bm128_bn128_bk64_s5_wg2_cm1_cn1_p1_g8_ts1_bias_gelu --config wgmma_f16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_bias_gelu --config wgmma_f16_bm256_bn128_bk64_s4_wg2_cm1_cn1_p1_g8_ts0_bias_gelu --config wgmma_f16_bm256_bn128_bk64_s3_wg2_cm1_cn2_p1_g8_ts1_bias_gelu"
B="--config wgmma_bf16_bm256_bn128_bk64_s3_wg2_cm1_cn2_p1_g8_ts1_bias_gelu --config wgmma_bf16_bm256_bn128_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_bias_gelu --config wgmma_bf16_bm128_bn256_bk64_s3_wg2_cm2_cn1_p1_g8_ts1_bias_gelu --config wgmma_bf16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_bias_gelu --config wgmma_bf16_bm128_bn128_bk64_s6_wg2_cm1_cn1_p1_g8_ts1_bias_gelu"
for r in 1 2 3; do
  timeout $(left 100) $T sweep --shape 4096 --dtype f16 --family wgmma $F --db $D/r$r.db > $D/f16_$r.txt 2>&1; echo "f16 $r rc=$? $(( $(date +%s)-t0 ))s" >> $D/done.txt
  timeout $(left 100) $T sweep --shape 4096 --dtype bf16 --family wgmma $B --db $D/r$r.db > $D/bf16_$r.txt 2>&1; echo "bf16 $r rc=$? $(( $(date +%s)-t0 ))s" >> $D/done.txt
done
tar czf $OUT/cg.tgz -C $OUT cg && rm -rf $D
