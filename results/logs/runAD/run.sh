set -u
D=$OUT/ad; mkdir -p $D/ncu
t0=$(date +%s)
left() { local l=$(( 300 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; dist/bin/coalesce-tune --version; ncu --version; } > $D/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
# Nsight Compute on the wgmma kernels at 4096^3 bf16: the cooperative winner and the best ping-pong
# config, each with bias + GELU and with no epilogue; per-instruction stall samples (SASS) too.
prof() {  # name config epilogue
  local name=$1 c=$2 e=$3
  timeout $(left 60) ncu --clock-control none --target-processes all -k "$c" -c 1 --set full --import-source no -o $D/ncu/$name \
    dist/bin/coalesce-tune sweep --shape 4096 --dtype bf16 --epilogue $e --config $c --db /tmp/ncu.db --timeout 300 > $D/ncu/$name.txt 2>&1
  echo "rc=$? $(( $(date +%s)-t0 ))s" >> $D/ncu/$name.txt
  ncu -i $D/ncu/$name.ncu-rep --page raw --csv > $D/ncu/$name.raw.csv 2>/dev/null
  ncu -i $D/ncu/$name.ncu-rep --page details --print-details all >> $D/ncu/$name.txt 2>&1
  ncu -i $D/ncu/$name.ncu-rep --page source --csv --print-source sass > $D/ncu/$name.sass.csv 2>&1
  rm -f $D/ncu/$name.ncu-rep
}
prof coop_gelu wgmma_bf16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_bias_gelu bias_gelu
prof coop_none wgmma_bf16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_none none
prof pp_gelu wgmma_bf16_bm128_bn192_bk64_s4_wg2_cm1_cn1_p1_g8_ts0_pp1_bias_gelu bias_gelu
prof pp_none wgmma_bf16_bm128_bn192_bk64_s4_wg2_cm1_cn1_p1_g8_ts0_pp1_none none
echo "rc=0 $(( $(date +%s)-t0 ))s" > $D/done.txt
tar czf $OUT/ad.tgz -C $OUT ad && rm -rf $D
