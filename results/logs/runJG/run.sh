set -u
Z=$OUT/jg; mkdir -p $Z/ncu
t0=$(date +%s)
left() { local l=$(( 300 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; echo "cores $(nproc)"; dist/bin/coalesce-tune --version; ncu --version | tail -1; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
T=dist/bin/coalesce-tune
# Nsight Compute, every section's raw metrics (--set full --page raw; clocks left alone), one
# launch each, at bf16 64x4096x4096: cuBLAS's kernel, ours with its recipe (64x32, 16 stages,
# unsplit) with one consumer in a 1x1 and a 1x2 cluster and with two interleaved consumers in a
# 1x2 cluster, and the fastest split config (64x64, 8 stages, 2 slices): where the bytes go.
timeout $(left 60) ncu --clock-control none --set full --page raw -k regex:nvjet -c 1 \
  dist/bin/coalesce-bench --shape 64x4096x4096 --dtype bf16 --method cublas_gemm --min-samples 2 --max-samples 2 > $Z/ncu/cublas.txt 2>&1
stamp $? >> $Z/ncu/cublas.txt
i=0
for name in wgmma_bf16_bm64_bn32_bk64_s16_wg1_cm1_cn1_p0_g8_ts0_bias_gelu wgmma_bf16_bm64_bn32_bk64_s16_wg1_cm1_cn2_p0_g8_ts0_bias_gelu \
            wgmma_bf16_bm64_bn32_bk64_s16_wg2_cm1_cn2_p0_g8_ts0_ki1_bias_gelu wgmma_bf16_bm64_bn64_bk64_s8_wg1_cm1_cn1_p0_g8_ts0_sk2_bias_gelu; do
  i=$((i+1))
  timeout $(left 60) ncu --clock-control none --set full --page raw --target-processes all -k regex:wgmma -c 1 \
    $T sweep --shape 64x4096x4096 --dtype bf16 --config $name --db /tmp/ncu$i.db --timeout 300 > $Z/ncu/$name.txt 2>&1
  stamp $? >> $Z/ncu/$name.txt
done
stamp 0 > $Z/done.txt
tar czf $OUT/jg.tgz -C $OUT jg && rm -rf $Z
