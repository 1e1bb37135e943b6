set -u
D=$OUT/bg; mkdir -p $D/ncu
t0=$(date +%s)
left() { local l=$(( 400 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; dist/bin/coalesce-tune --version; dist/tf32b/coalesce-tune --version; ncu --version; } > $D/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
# (1) The tf32 winner built from branch tf32-b128 (16-byte B loads): its instruction mix and
# stall samples, against run BA's profile of the same config on main.
T=mma_tf32_bm128_bn256_kb64_wm64_wn64_s3_v16_sw1_g8_o1_bias_gelu
timeout $(left 90) ncu --clock-control none --target-processes all -k "$T" -c 1 --set full --import-source no -o $D/ncu/tf32b \
  dist/tf32b/coalesce-tune sweep --shape 4096 --dtype tf32 --family mma --config $T --db /tmp/a.db > $D/ncu/tf32b.txt 2>&1
ncu -i $D/ncu/tf32b.ncu-rep --page raw --csv > $D/ncu/tf32b.raw.csv 2>/dev/null
ncu -i $D/ncu/tf32b.ncu-rep --page source --csv --print-source sass > $D/ncu/tf32b.sass.csv 2>&1
rm -f $D/ncu/tf32b.ncu-rep
echo "tf32b $(( $(date +%s)-t0 ))s" >> $D/done.txt
# (2) Split-K at 64x4096x4096 bf16: the GEMM kernel and the reduce kernel of the separate
# reduce, and the one kernel of the in-kernel reduction, each launch's duration (every kernel
# of the sweep's first checked run).
for c in wgmma_bf16_bm64_bn64_bk64_s5_wg1_cm1_cn1_p0_g8_ts0_sk3_bias_gelu wgmma_bf16_bm64_bn64_bk64_s5_wg1_cm1_cn1_p0_g8_ts0_sk3_rd1_bias_gelu; do
  timeout $(left 90) ncu --clock-control none --target-processes all -k regex:"wgmma_bf16|splitk_reduce" -c 6 --section SpeedOfLight -o $D/ncu/$c \
    dist/bin/coalesce-tune sweep --shape 64x4096x4096 --dtype bf16 --family wgmma --config $c --db /tmp/b_$c.db > $D/ncu/$c.txt 2>&1
  ncu -i $D/ncu/$c.ncu-rep --page raw --csv --metrics gpu__time_duration.sum,launch__grid_size > $D/ncu/$c.raw.csv 2>/dev/null
  rm -f $D/ncu/$c.ncu-rep
done
echo "rc=0 $(( $(date +%s)-t0 ))s" >> $D/done.txt
tar czf $OUT/bg.tgz -C $OUT bg && rm -rf $D
