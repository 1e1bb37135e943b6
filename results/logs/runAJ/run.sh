set -u
Z=$OUT/aj; mkdir -p $Z/logs
t0=$(date +%s)
left() { local l=$(( 330 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; echo "cores $(nproc)"; dist/bin/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
L=results/logs/runAJ/overlap-configs.txt
# The wgmma GPU tests with the overlapped-epilogue tiles; nothing else if they fail.
COALESCE_REQUIRE_GPU=1 timeout $(left 90) dist/bin/wgmma_test > $Z/logs/wgmma_test.txt 2>&1; rc=$?
stamp $rc >> $Z/logs/wgmma_test.txt; [ $rc = 0 ] || { tar czf $OUT/aj.tgz -C $OUT aj; exit 1; }
# Every legal overlap config beside the cooperative winner and the same tiles without overlap.
sweep() {  # dtype shape controls...
  local dt=$1 shape=$2; shift 2
  local cfgs=$( (grep "_${dt}_" $L; for c in "$@"; do echo $c; done) | sed "s/^/--config /" | tr '\n' ' ')
  timeout -s INT $(left 120) dist/bin/coalesce-tune sweep --shape $shape --dtype $dt $cfgs -j 16 --db $Z/aj.db > $Z/logs/sweep-$dt-$shape.txt 2>&1
  stamp $? >> $Z/logs/sweep-$dt-$shape.txt
}
sweep bf16 4096 wgmma_bf16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_bias_gelu wgmma_bf16_bm128_bn128_bk64_s4_wg2_cm1_cn1_p1_g8_ts0_bias_gelu wgmma_bf16_bm64_bn192_bk64_s5_wg1_cm1_cn1_p1_g8_ts0_bias_gelu
sweep f16 4096 wgmma_f16_bm256_bn128_bk64_s4_wg2_cm1_cn1_p1_g8_ts0_bias_gelu wgmma_f16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_bias_gelu
sweep bf16 8192 wgmma_bf16_bm256_bn192_bk64_s4_wg2_cm1_cn1_p1_g8_ts0_bias_gelu wgmma_bf16_bm128_bn192_bk64_s4_wg2_cm1_cn1_p1_g8_ts0_pp1_bias_gelu
stamp 0 > $Z/done.txt
tar czf $OUT/aj.tgz -C $OUT aj && rm -rf $Z
