set -u
Z=$OUT/ab; mkdir -p $Z/logs
t0=$(date +%s)
left() { local l=$(( 570 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; echo "cores $(nproc)"; dist/bin/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc COALESCE_REQUIRE_GPU=1
L=results/logs/runAB/pingpong-configs.txt
# The wgmma GPU tests with the ping-pong tiles and the ping-pong planted hazard; the bf16 check
# first, and nothing else if it fails (a deadlocked config traps after 10 s per launch).
timeout $(left 60) dist/bin/wgmma_test --gtest_filter='*ReferenceInBf16' > $Z/logs/wgmma_test_bf16.txt 2>&1; rc=$?
stamp $rc >> $Z/logs/wgmma_test_bf16.txt; [ $rc = 0 ] || exit 1
timeout $(left 180) dist/bin/wgmma_test --gtest_filter='-*ReferenceInBf16' > $Z/logs/wgmma_test.txt 2>&1; stamp $? >> $Z/logs/wgmma_test.txt
# Every legal ping-pong config at 4096^3 (bf16, f16) beside the best cooperative config of the
# earlier sweeps (the control), the baselines measured in the same run.
sweep() {  # dtype shape control-config
  local cfgs=$(grep "_$1_" $L | sed "s/^/--config /" | tr '\n' ' ')
  timeout -s INT $(left 200) dist/bin/coalesce-tune sweep --shape $2 --dtype $1 $cfgs --config $3 -j 16 --db $Z/ab.db > $Z/logs/sweep-$1-$2.txt 2>&1
  stamp $? >> $Z/logs/sweep-$1-$2.txt
}
sweep bf16 4096 wgmma_bf16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_bias_gelu
sweep f16 4096 wgmma_f16_bm256_bn128_bk64_s4_wg2_cm1_cn1_p1_g8_ts0_bias_gelu
sweep bf16 8192 wgmma_bf16_bm256_bn192_bk64_s4_wg2_cm1_cn1_p1_g8_ts0_bias_gelu
stamp 0 > $Z/done.txt
