set -u
Z=$OUT/ja; mkdir -p $Z/ncu
t0=$(date +%s)
left() { local l=$(( 200 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; echo "cores $(nproc)"; dist/bin/coalesce-tune --version; ncu --version | tail -1; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
# Nsight Compute, every section (--set full; clocks left alone), one launch each: cuBLAS's
# kernel at bf16 64x4096x4096 beside ours with its recipe (64x32, 16 stages, unsplit) and the
# fastest split config, to see where our extra time per stage goes.
timeout $(left 60) ncu --clock-control none --set full -k regex:nvjet -c 1 \
  dist/bin/coalesce-bench --shape 64x4096x4096 --dtype bf16 --method cublas_gemm --min-samples 2 --max-samples 2 > $Z/ncu/cublas-64.txt 2>&1
stamp $? >> $Z/ncu/cublas-64.txt
for name in wgmma_bf16_bm64_bn32_bk64_s16_wg1_cm1_cn1_p0_g8_ts0_bias_gelu wgmma_bf16_bm64_bn64_bk64_s8_wg1_cm1_cn1_p0_g8_ts0_sk2_bias_gelu; do
  timeout $(left 60) ncu --clock-control none --set full --target-processes all -k regex:wgmma -c 1 \
    dist/bin/coalesce-tune sweep --shape 64x4096x4096 --dtype bf16 --config $name --db /tmp/ncu.db --timeout 300 > $Z/ncu/$name.txt 2>&1
  stamp $? >> $Z/ncu/$name.txt
done
stamp 0 > $Z/done.txt
tar czf $OUT/ja.tgz -C $OUT ja && rm -rf $Z
