set -u
Z=$OUT/je; mkdir -p $Z/ncu
t0=$(date +%s)
left() { local l=$(( 200 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; echo "cores $(nproc)"; dist/bin/coalesce-tune --version; ncu --version | tail -1; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
T=dist/bin/coalesce-tune
# Nsight Compute at bf16 64x4096x4096 (clocks left alone, one launch each, each config in a
# database of its own so that it runs): the per-instruction stall samples of the SASS (source
# page) of the split GEMM kernel (64 x 64, 8 stages, 2 slices) reduced in the kernel (reduce =
# 1) and in the cluster (reduce = 2), and without a reduction (the reduce kernel's input).
for rd in _rd1 _rd2 ""; do
  name=wgmma_bf16_bm64_bn64_bk64_s8_wg1_cm1_cn1_p0_g8_ts0_sk2${rd}_bias_gelu
  timeout $(left 60) ncu --clock-control none --target-processes all --section SourceCounters --section WarpStateStats --page source --print-source sass --csv -k regex:wgmma -c 1 \
    $T sweep --shape 64x4096x4096 --dtype bf16 --config $name --db /tmp/ncu$rd.db --timeout 300 > $Z/ncu/sk2$rd-sass.csv 2>&1
  stamp $? >> $Z/ncu/sk2$rd-sass.csv
done
stamp 0 > $Z/done.txt
tar czf $OUT/je.tgz -C $OUT je && rm -rf $Z
