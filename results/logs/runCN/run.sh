set -u
D=$OUT/cn; mkdir -p $D
t0=$(date +%s)
left() { local l=$(( 540 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; dist/bin/coalesce-tune --version; } > $D/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
T=dist/bin/coalesce-tune
# The leaders of runs 101-103 and CG re-measured in eight fresh processes each, beside the
# baselines of the same process: where the fused kernel stands when one draw is not trusted.
P=wgmma_bf16_bm
B="--config ${P}128_bn128_bk64_s6_wg2_cm1_cn1_p1_g8_ts1_bias_gelu --config ${P}128_bn128_bk64_s5_wg2_cm1_cn1_p1_g8_ts1_bias_gelu --config ${P}128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_bias_gelu --config ${P}128_bn256_bk64_s3_wg2_cm2_cn1_p1_g8_ts1_bias_gelu --config ${P}256_bn128_bk64_s3_wg2_cm1_cn2_p1_g8_ts1_bias_gelu --config ${P}256_bn128_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_bias_gelu"
F=$(echo "$B" | sed 's/wgmma_bf16/wgmma_f16/g')
for r in 1 2 3 4 5 6 7 8; do
  timeout $(left 60) $T sweep --shape 4096 --dtype bf16 --family wgmma $B --db $D/bf16_4096_$r.db > $D/bf16_4096_$r.txt 2>&1; echo "bf16 4096 $r rc=$? $(( $(date +%s)-t0 ))s" >> $D/done.txt
  timeout $(left 60) $T sweep --shape 4096 --dtype f16 --family wgmma $F --db $D/f16_4096_$r.db > $D/f16_4096_$r.txt 2>&1; echo "f16 4096 $r rc=$? $(( $(date +%s)-t0 ))s" >> $D/done.txt
done
for r in 1 2 3 4; do
  timeout $(left 80) $T sweep --shape 8192 --dtype bf16 --family wgmma $B --db $D/bf16_8192_$r.db > $D/bf16_8192_$r.txt 2>&1; echo "bf16 8192 $r rc=$? $(( $(date +%s)-t0 ))s" >> $D/done.txt
done
tar czf $OUT/cn.tgz -C $OUT cn && rm -rf $D
