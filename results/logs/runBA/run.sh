set -u
D=$OUT/ba; mkdir -p $D/ncu
t0=$(date +%s)
left() { local l=$(( 420 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; dist/bin/coalesce-tune --version; ncu --version; } > $D/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
B=mma_bf16_bm256_bn128_kb128_wm64_wn64_s3_v16_sw1_g8_o1
T=mma_tf32_bm128_bn256_kb64_wm64_wn64_s3_v16_sw1_g8_o1
# Where the mma winners' time goes: the same config with no epilogue, bias only, bias + GELU.
for e in none bias bias_gelu; do
  timeout $(left 60) dist/bin/coalesce-tune sweep --shape 4096 --dtype bf16 --epilogue $e --config ${B}_$e --db $D/ba.db > $D/bf16_$e.txt 2>&1
  timeout $(left 60) dist/bin/coalesce-tune sweep --shape 4096 --dtype tf32 --epilogue $e --config ${T}_$e --db $D/ba.db > $D/tf32_$e.txt 2>&1
done
echo "sweeps $(( $(date +%s)-t0 ))s" >> $D/done.txt
prof() {  # name dtype config epilogue
  local name=$1 dt=$2 c=$3 e=$4
  timeout $(left 60) ncu --clock-control none --target-processes all -k "$c" -c 1 --set full --import-source no -o $D/ncu/$name \
    dist/bin/coalesce-tune sweep --shape 4096 --dtype $dt --epilogue $e --config $c --db /tmp/ncu.db --timeout 300 > $D/ncu/$name.txt 2>&1
  echo "rc=$? $(( $(date +%s)-t0 ))s" >> $D/ncu/$name.txt
  ncu -i $D/ncu/$name.ncu-rep --page raw --csv > $D/ncu/$name.raw.csv 2>/dev/null
  ncu -i $D/ncu/$name.ncu-rep --page details --print-details all >> $D/ncu/$name.txt 2>&1
  ncu -i $D/ncu/$name.ncu-rep --page source --csv --print-source sass > $D/ncu/$name.sass.csv 2>&1
  rm -f $D/ncu/$name.ncu-rep
}
prof mma_bf16_gelu bf16 ${B}_bias_gelu bias_gelu
prof mma_bf16_none bf16 ${B}_none none
prof mma_tf32_gelu tf32 ${T}_bias_gelu bias_gelu
echo "rc=0 $(( $(date +%s)-t0 ))s" >> $D/done.txt
tar czf $OUT/ba.tgz -C $OUT ba && rm -rf $D
