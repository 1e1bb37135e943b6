set -u
Z=$OUT/jb; mkdir -p $Z/ncu
t0=$(date +%s)
left() { local l=$(( 240 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; echo "cores $(nproc)"; dist/bin/coalesce-tune --version; ncu --version | tail -1; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
# Nsight Compute at bf16 64x4096x4096 (clocks left alone, one launch each): the warp stall
# reasons (raw metrics) and the per-instruction stall samples of the SASS (source page), for
# cuBLAS's kernel and ours with its recipe (64x32, 16 stages, unsplit) and the fastest split.
M='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$|smsp__inst_executed.sum$|sm__cycles_active.avg$|smsp__warps_active.avg.per_cycle_active$'
prof() {  # name, ncu args..., -- command
  local n=$1; shift
  timeout $(left 50) ncu --clock-control none --page raw --metrics "$M" "$@" > $Z/ncu/$n-raw.txt 2>&1; stamp $? >> $Z/ncu/$n-raw.txt
  timeout $(left 60) ncu --clock-control none --section SourceCounters --section WarpStateStats --page source --print-source sass --csv "$@" > $Z/ncu/$n-sass.csv 2>&1; stamp $? >> $Z/ncu/$n-sass.csv
}
prof cublas -k regex:nvjet -c 1 dist/bin/coalesce-bench --shape 64x4096x4096 --dtype bf16 --method cublas_gemm --min-samples 2 --max-samples 2
for name in wgmma_bf16_bm64_bn32_bk64_s16_wg1_cm1_cn1_p0_g8_ts0_bias_gelu wgmma_bf16_bm64_bn64_bk64_s8_wg1_cm1_cn1_p0_g8_ts0_sk2_bias_gelu; do
  prof $name --target-processes all -k regex:wgmma -c 1 dist/bin/coalesce-tune sweep --shape 64x4096x4096 --dtype bf16 --config $name --db /tmp/ncu.db --timeout 300
done
stamp 0 > $Z/done.txt
tar czf $OUT/jb.tgz -C $OUT jb && rm -rf $Z
