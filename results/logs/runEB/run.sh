set -u
D=$OUT/eb; mkdir -p $D/ncu
t0=$(date +%s)
left() { local l=$(( 500 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; dist/bin/coalesce-tune --version; ncu --version; } > $D/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
# Nsight Compute on the 4096^3 bf16 winner and its stream-K twin (run EA measured the twin 14-25% slower).
for c in wgmma_bf16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_stk2_bias_gelu wgmma_bf16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_bias_gelu wgmma_bf16_bm64_bn128_bk64_s6_wg1_cm1_cn1_p1_g8_ts0_stk4_bias_gelu; do
  shape=4096; case $c in *bm64_bn128*) shape=64x4096x4096;; esac
  timeout $(left 120) ncu --clock-control none --target-processes all -k "$c" -c 1 --set full --import-source no -o $D/ncu/$c \
    dist/bin/coalesce-tune sweep --shape $shape --dtype bf16 --family wgmma --config $c --db /tmp/ncu.db --timeout 300 > $D/ncu/$c.txt 2>&1
  echo "rc=$? $(( $(date +%s)-t0 ))s" >> $D/ncu/$c.txt
  ncu -i $D/ncu/$c.ncu-rep --page details --print-details all >> $D/ncu/$c.txt 2>&1
  ncu -i $D/ncu/$c.ncu-rep --page source --csv --print-source sass > $D/ncu/$c.sass.csv 2>&1
  rm -f $D/ncu/$c.ncu-rep
done
tar czf $OUT/eb.tgz -C $OUT eb && rm -rf $D
