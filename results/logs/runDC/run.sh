set -u
Z=$OUT/dc; mkdir -p $Z/ncu
t0=$(date +%s)
left() { local l=$(( 560 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; dist/bin/B/coalesce-tune --version; dist/bin/C/coalesce-tune --version; ncu --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
# A/B: the tf32 kernel with two half-slice groups (B, run DB's build) against one group per
# slice with fragment registers alternating by slice (C), the 8 fastest tf32 configs of runs
# DA/DB at 4096^3 with bias + GELU, two rounds in alternating order.
C=""
for c in bm256_bn128_bk32_s4_wg2_cm1_cn1_p1 bm256_bn128_bk32_s4_wg2_cm1_cn1_p0 bm256_bn128_bk32_s3_wg2_cm1_cn1_p1 \
         bm256_bn128_bk32_s3_wg2_cm1_cn1_p0 bm128_bn256_bk32_s4_wg2_cm1_cn1_p1 bm128_bn256_bk32_s3_wg2_cm1_cn1_p0 \
         bm128_bn128_bk32_s5_wg2_cm1_cn1_p1 bm128_bn128_bk32_s4_wg2_cm1_cn1_p1; do
  C="$C --config wgmma_tf32_${c}_g8_ts0_bias_gelu"
done
for order in "B C" "C B"; do
  for b in $order; do
    r=$(ls $Z | grep -c "^ab_$b")
    timeout $(left 60) dist/bin/$b/coalesce-tune sweep --shape 4096 --dtype tf32 --family wgmma $C --db $Z/ab_${b}_$r.db > $Z/ab_${b}_$r.txt 2>&1
    echo "ab $b $r rc=$? $(( $(date +%s)-t0 ))s" >> $Z/done.txt
  done
done
# C's exhaustive tf32 sweep at 4096^3.
timeout $(left 90) dist/bin/C/coalesce-tune sweep --shape 4096 --dtype tf32 --family wgmma --db $Z/c.db > $Z/sweep_c.txt 2>&1
echo "sweep C rc=$? $(( $(date +%s)-t0 ))s" >> $Z/done.txt
# Nsight Compute: B's winner with no epilogue (full set), and cuBLAS's TF32 GEMM in the same sweep.
prof() {  # name bin config kernel-regex
  timeout $(left 90) ncu --clock-control none -k "$4" -c 1 --set full --import-source no -o $Z/ncu/$1 \
    dist/bin/$2/coalesce-tune sweep --shape 4096 --dtype tf32 --epilogue none --family wgmma --config $3 --db /tmp/ncu_$1.db --timeout 300 > $Z/ncu/$1.txt 2>&1
  echo "$1 rc=$? $(( $(date +%s)-t0 ))s" >> $Z/done.txt
  ncu -i $Z/ncu/$1.ncu-rep --page raw --csv > $Z/ncu/$1.raw.csv 2>/dev/null
  ncu -i $Z/ncu/$1.ncu-rep --page details --print-details all >> $Z/ncu/$1.txt 2>&1
  rm -f $Z/ncu/$1.ncu-rep
}
W=wgmma_tf32_bm256_bn128_bk32_s4_wg2_cm1_cn1_p1_g8_ts0_none
prof b_none B $W "regex:wgmma"
prof cublas B $W "regex:sm90_xmma|nvjet"
tar czf $OUT/dc.tgz -C $OUT dc && rm -rf $Z
