set -u
D=$OUT/cc; mkdir -p $D/ncu
t0=$(date +%s)
left() { local l=$(( 400 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; dist/bin/coalesce-tune --version; ncu --version; } > $D/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
# Is the epilogue warps' time lost to waiting or to the clock? Cycles, SM clock, tensor-pipe
# activity and instructions of each kernel (one launch each, clocks not locked), 4096^3 bf16.
M=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_elapsed,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio
prof() {  # name shape config epilogue
  local name=$1 s=$2 c=$3 e=$4
  timeout $(left 90) ncu --clock-control none -k "$c" -c 1 --metrics $M --csv \
    dist/bin/coalesce-tune sweep --shape $s --dtype bf16 --epilogue $e --config $c --db /tmp/ncu_$name.db --timeout 300 > $D/ncu/$name.csv 2>$D/ncu/$name.err
  echo "$name rc=$? $(( $(date +%s)-t0 ))s" >> $D/done.txt
}
P=wgmma_bf16_bm128_bn
prof base256_gelu 4096 ${P}256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_bias_gelu bias_gelu
prof base256_none 4096 ${P}256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_none none
prof ew2_256_gelu 4096 ${P}256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_ew2_bias_gelu bias_gelu
prof ew2_256_none 4096 ${P}256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_ew2_none none
prof base192_gelu 8192 ${P}192_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_bias_gelu bias_gelu
prof base192_none 8192 ${P}192_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_none none
prof ew3_192_gelu 8192 ${P}192_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_ew3_bias_gelu bias_gelu
prof ew3_192_none 8192 ${P}192_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_ew3_none none
echo "rc=0 $(( $(date +%s)-t0 ))s" >> $D/done.txt
tar czf $OUT/cc.tgz -C $OUT cc && rm -rf $D
