set -u
D=$OUT/ci; mkdir -p $D
t0=$(date +%s)
left() { local l=$(( 500 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; dist/bin/coalesce-tune --version; } > $D/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
T=dist/bin/coalesce-tune
timeout $(left 60) dist/bin/timing_test > $D/timing_test.txt 2>&1; echo "timing_test rc=$? $(( $(date +%s)-t0 ))s" >> $D/done.txt
C=wgmma_bf16_bm128_bn128_bk64_s6_wg2_cm1_cn1_p1_g8_ts1_bias_gelu
W=wgmma_bf16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_bias_gelu
# The flush that leaves L2 dirty (write, the default) against the one that leaves it clean
# (read), alternating, each in eight fresh processes: bf16 4096^3, the 128x128 tile with two
# modes in runs CG and CH, the 128x256 winner and the baselines.
for r in 1 2 3 4 5 6 7 8; do
  for f in write read; do
    timeout $(left 60) $T sweep --shape 4096 --dtype bf16 --family wgmma --config $C --config $W --l2-flush $f --db $D/${f}$r.db > $D/${f}$r.txt 2>&1
    echo "$f $r rc=$? $(( $(date +%s)-t0 ))s" >> $D/done.txt
  done
done
tar czf $OUT/ci.tgz -C $OUT ci && rm -rf $D
