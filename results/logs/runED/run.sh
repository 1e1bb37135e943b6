set -u
D=$OUT/ed; mkdir -p $D/ncu
t0=$(date +%s)
left() { local l=$(( 540 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; dist/bin/coalesce-tune --version; ncu --version; } > $D/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
# Nsight Compute on stream-K after the uniform-descriptor fix (run EC measured it 4% slower at
# 8192^3 and 21-26% slower than split-K at M = 64): each stream-K kernel and its twin.
for c in wgmma_bf16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_stk2_bias_gelu:8192 wgmma_bf16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_bias_gelu:8192 wgmma_bf16_bm64_bn64_bk64_s5_wg1_cm1_cn1_p1_g8_ts0_stk4_bias_gelu:64x4096x4096 wgmma_bf16_bm64_bn64_bk64_s5_wg1_cm1_cn1_p0_g8_ts0_sk3_bias_gelu:64x4096x4096; do
  name=${c%%:*}; shape=${c##*:}; pattern=${name%_sk3_bias_gelu}  # a split's kernel is named for split 2
  timeout $(left 150) ncu --clock-control none --target-processes all -k "regex:$pattern" -c 1 --set full --import-source no -o $D/ncu/$name \
    dist/bin/coalesce-tune sweep --shape $shape --dtype bf16 --family wgmma --config $name --db /tmp/ncu.db --timeout 300 > $D/ncu/$name.txt 2>&1
  echo "rc=$? $(( $(date +%s)-t0 ))s" >> $D/ncu/$name.txt
  ncu -i $D/ncu/$name.ncu-rep --page details --print-details all >> $D/ncu/$name.txt 2>&1
  ncu -i $D/ncu/$name.ncu-rep --page source --csv --print-source sass > $D/ncu/$name.sass.csv 2>&1
  rm -f $D/ncu/$name.ncu-rep
done
tar czf $OUT/ed.tgz -C $OUT ed && rm -rf $D
