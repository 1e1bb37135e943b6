set -u
Z=$OUT/jd; mkdir -p $Z/logs $Z/ncu
t0=$(date +%s)
left() { local l=$(( 300 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; echo "cores $(nproc)"; dist/bin/coalesce-tune --version; ncu --version | tail -1; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
T=dist/bin/coalesce-tune
# bf16 bias+GELU: split-K reduced in the kernel (reduce = 1) and in the tile's cluster
# (reduce = 2) on the deep rings (8 to 16 stages) with 2 to 4 slices, every legal config the
# space lists at the shape, beside run JC's three fastest in the steady state there, then the
# three fastest again in the steady state (--steady-top 3).
sweep() {
  cfgs=$(sed 's/^/--config /' results/logs/runJD/configs-$1.txt | tr '\n' ' ')
  timeout -s INT $(left $2) $T sweep --shape $1 --dtype bf16 --family wgmma $cfgs --steady-top 3 -j 16 --db $Z/jd.db > $Z/logs/sweep-$1.txt 2>&1
  echo "sweep $1 $(stamp $?)" >> $Z/logs/done.txt
}
sweep 64x4096x4096 60
sweep 128x4096x4096 60
sweep 512x512x512 60
# Nsight Compute (speed of light, one launch each, clocks left alone): the split GEMM kernels of
# the three reductions at M = 64 (64 x 64, 8 stages, 2 slices), each in a database of its own.
for rd in "" _rd1 _rd2; do
  name=wgmma_bf16_bm64_bn64_bk64_s8_wg1_cm1_cn1_p0_g8_ts0_sk2${rd}_bias_gelu
  timeout $(left 40) ncu --clock-control none --target-processes all --section SpeedOfLight --section LaunchStats -k 'regex:wgmma|splitk' -c 4 \
    $T sweep --shape 64x4096x4096 --dtype bf16 --config $name --db /tmp/ncu$rd.db --timeout 300 > $Z/ncu/sk2$rd.txt 2>&1
  stamp $? >> $Z/ncu/sk2$rd.txt
done
stamp 0 > $Z/done.txt
tar czf $OUT/jd.tgz -C $OUT jd && rm -rf $Z
