set -u
Z=$OUT/ec; mkdir -p $Z
t0=$(date +%s)
left() { local l=$(( 560 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; dist/bin/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
T=dist/bin/coalesce-tune
# 1. The wgmma GPU tests, stream-K's first (its configs against fp64, determinism, planted bugs).
timeout $(left 150) dist/bin/wgmma_test --gtest_filter='*StreamK*' > $Z/wgmma_test_streamk.txt 2>&1; echo "streamk tests rc=$? $(( $(date +%s)-t0 ))s" >> $Z/done.txt
timeout $(left 200) dist/bin/wgmma_test --gtest_filter='-*StreamK*' > $Z/wgmma_test_rest.txt 2>&1; echo "rest tests rc=$? $(( $(date +%s)-t0 ))s" >> $Z/done.txt
# 2. A/B at 4096^3 and 8192^3, bf16 bias+GELU: each tile without and with stream-K, in separate
# processes, two rounds in alternating order, each with its baselines.
P4A=wgmma_bf16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_bias_gelu
P4B=wgmma_bf16_bm128_bn256_bk64_s4_wg2_cm1_cn1_p1_g8_ts0_bias_gelu
S4A=wgmma_bf16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_stk2_bias_gelu
S4B=wgmma_bf16_bm128_bn256_bk64_s4_wg2_cm1_cn1_p1_g8_ts0_stk2_bias_gelu
P8A=wgmma_bf16_bm256_bn128_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_bias_gelu
P8B=wgmma_bf16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_bias_gelu
S8A=wgmma_bf16_bm256_bn128_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_stk2_bias_gelu
S8B=wgmma_bf16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_stk2_bias_gelu
sw() { local tag=$1 shape=$2; shift 2; local args=(); for c in "$@"; do args+=(--config "$c"); done
  timeout $(left 90) $T sweep --shape $shape --dtype bf16 --family wgmma "${args[@]}" --db $Z/$tag.db > $Z/$tag.txt 2>&1
  echo "$tag rc=$? $(( $(date +%s)-t0 ))s" >> $Z/done.txt; }
sw r1_4096_plain 4096 $P4A $P4B
sw r1_4096_sk 4096 $S4A $S4B
sw r1_8192_plain 8192 $P8A $P8B
sw r1_8192_sk 8192 $S8A $S8B
sw r2_4096_sk 4096 $S4A $S4B
sw r2_4096_plain 4096 $P4A $P4B
sw r2_8192_sk 8192 $S8A $S8B
sw r2_8192_plain 8192 $P8A $P8B
# 3. Skinny shapes and 512^3: the committed split-K winner beside stream-K tiles.
sw m64 64x4096x4096 wgmma_bf16_bm64_bn64_bk64_s5_wg1_cm1_cn1_p0_g8_ts0_sk3_bias_gelu wgmma_bf16_bm64_bn64_bk64_s5_wg1_cm1_cn1_p1_g8_ts0_stk4_bias_gelu wgmma_bf16_bm64_bn128_bk64_s6_wg1_cm1_cn1_p1_g8_ts0_stk4_bias_gelu wgmma_bf16_bm64_bn128_bk64_s6_wg1_cm1_cn1_p1_g8_ts0_stk8_bias_gelu
sw m128 128x4096x4096 wgmma_bf16_bm64_bn64_bk64_s6_wg1_cm1_cn1_p0_g8_ts0_sk2_bias_gelu wgmma_bf16_bm64_bn64_bk64_s6_wg1_cm1_cn1_p1_g8_ts0_stk2_bias_gelu wgmma_bf16_bm128_bn128_bk64_s6_wg2_cm1_cn1_p1_g8_ts0_stk4_bias_gelu wgmma_bf16_bm128_bn64_bk64_s6_wg2_cm1_cn1_p1_g8_ts0_stk4_bias_gelu wgmma_bf16_bm64_bn128_bk64_s6_wg1_cm1_cn1_p1_g8_ts0_stk2_bias_gelu
sw m256 256x4096x4096 wgmma_bf16_bm128_bn128_bk64_s6_wg1_cm1_cn1_p0_g8_ts0_sk2_bias_gelu wgmma_bf16_bm128_bn64_bk64_s6_wg2_cm1_cn1_p1_g8_ts0_stk2_bias_gelu wgmma_bf16_bm128_bn128_bk64_s6_wg2_cm1_cn1_p1_g8_ts0_stk4_bias_gelu wgmma_bf16_bm128_bn256_bk64_s4_wg2_cm1_cn1_p1_g8_ts0_stk4_bias_gelu wgmma_bf16_bm64_bn128_bk64_s6_wg1_cm1_cn1_p1_g8_ts0_stk2_bias_gelu
sw m512 512 wgmma_bf16_bm64_bn64_bk64_s6_wg1_cm1_cn1_p1_g8_ts1_bias_gelu wgmma_bf16_bm64_bn64_bk64_s6_wg1_cm1_cn1_p1_g8_ts1_stk2_bias_gelu wgmma_bf16_bm64_bn64_bk64_s6_wg1_cm1_cn1_p1_g8_ts0_stk4_bias_gelu wgmma_bf16_bm64_bn128_bk64_s6_wg1_cm1_cn1_p1_g8_ts0_stk2_bias_gelu
tar czf $OUT/ec.tgz -C $OUT ec && rm -rf $Z
