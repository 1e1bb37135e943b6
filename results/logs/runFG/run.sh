set -u
D=$OUT/fg; mkdir -p $D/ncu
t0=$(date +%s)
left() { local l=$(( 330 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; dist/bin/coalesce-tune --version; ncu --version; } > $D/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
# Where the GELU's time goes in the wgmma 4096^3 bf16 tile fastest in the steady state: one
# launch each with the bias alone and with bias + GELU, every counter and the per-instruction
# stall samples (clocks not locked).
for e in bias bias_gelu; do
  c=wgmma_bf16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_$e; name=wgmma_bf16_$e
  timeout $(left 120) ncu --clock-control none --target-processes all -k "$c" -c 1 --set full --import-source no -o $D/ncu/$name \
    dist/bin/coalesce-tune sweep --shape 4096 --dtype bf16 --epilogue $e --config $c --db /tmp/ncu.db --timeout 300 > $D/ncu/$name.txt 2>&1
  echo "rc=$? $(( $(date +%s)-t0 ))s" >> $D/ncu/$name.txt
  ncu -i $D/ncu/$name.ncu-rep --page raw --csv > $D/ncu/$name.raw.csv 2>/dev/null
  ncu -i $D/ncu/$name.ncu-rep --page details --print-details all >> $D/ncu/$name.txt 2>&1
  ncu -i $D/ncu/$name.ncu-rep --page source --csv --print-source sass > $D/ncu/$name.sass.csv 2>&1
  gzip $D/ncu/$name.sass.csv
  rm -f $D/ncu/$name.ncu-rep
done
echo "done $(( $(date +%s)-t0 ))s" > $D/done.txt
tar czf $OUT/fg.tgz -C $OUT fg && rm -rf $D
