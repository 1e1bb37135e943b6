set -u
Z=$OUT/ei; mkdir -p $Z
t0=$(date +%s)
left() { local l=$(( 560 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; dist/bin/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
T=dist/bin/coalesce-tune
# Issue 11's 8192^3 line (95% of cuBLAS's GEMM alone, bias + GELU), in bf16 and f16: the fastest
# wgmma tiles of earlier runs, each sweep with its baselines, 3000 samples back to back per
# method (about 5 s each), three rounds in bf16 and two in f16, power and clock sampled every 20 ms.
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv,noheader,nounits -lms 20 > $Z/smi.csv 2> $Z/smi.err &
Q=$!
sleep 1
B="--config wgmma_bf16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_bias_gelu --config wgmma_bf16_bm256_bn128_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_bias_gelu"
F="--config wgmma_f16_bm128_bn192_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_bias_gelu --config wgmma_f16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_bias_gelu --config wgmma_f16_bm256_bn128_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_bias_gelu"
for r in bf16_r1 f16_r1 bf16_r2 f16_r2 bf16_r3; do
  d=${r%%_*}; if [ $d = bf16 ]; then cfg=$B; else cfg=$F; fi
  timeout $(left 110) $T sweep --shape 8192 --dtype $d --family wgmma $cfg --min-samples 3000 --max-samples 3000 --db $Z/$r.db > $Z/$r.txt 2>&1
  echo "$r rc=$? $(( $(date +%s)-t0 ))s" >> $Z/done.txt
done
kill $Q
tar czf $OUT/ei.tgz -C $OUT ei && rm -rf $Z
