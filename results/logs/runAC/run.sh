set -u
Z=$OUT/ac; mkdir -p $Z/logs
t0=$(date +%s)
left() { local l=$(( 400 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; echo "cores $(nproc)"; dist/bin/coalesce-tune --version; dist/old/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc COALESCE_REQUIRE_GPU=1
timeout $(left 120) dist/bin/wgmma_test > $Z/logs/wgmma_test.txt 2>&1; stamp $? >> $Z/logs/wgmma_test.txt
# A/B on one GPU at 4096^3 bf16 + bias + GELU: the build before (dist/old, git 4a37edf: bias
# loaded pair by pair inside the TMA store's loop, no ping-pong) and this one (bias loaded in
# groups of 4 pairs), alternating, into separate databases. Ping-pong exists in the new build only.
CO="--config wgmma_bf16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_bias_gelu --config wgmma_bf16_bm128_bn256_bk64_s4_wg2_cm1_cn1_p1_g8_ts0_bias_gelu --config wgmma_bf16_bm128_bn128_bk64_s6_wg2_cm1_cn1_p1_g8_ts1_bias_gelu --config wgmma_bf16_bm256_bn128_bk64_s4_wg2_cm1_cn1_p1_g8_ts0_bias_gelu"
PP="--config wgmma_bf16_bm128_bn192_bk64_s4_wg2_cm1_cn1_p1_g8_ts0_pp1_bias_gelu --config wgmma_bf16_bm64_bn256_bk64_s4_wg2_cm1_cn1_p1_g8_ts1_pp1_bias_gelu"
for round in 1 2; do
  timeout -s INT $(left 60) dist/old/coalesce-tune sweep --shape 4096 --dtype bf16 $CO -j 16 --db $Z/old-$round.db > $Z/logs/ab-old-$round.txt 2>&1; stamp $? >> $Z/logs/ab-old-$round.txt
  timeout -s INT $(left 60) dist/bin/coalesce-tune sweep --shape 4096 --dtype bf16 $CO $PP -j 16 --db $Z/new-$round.db > $Z/logs/ab-new-$round.txt 2>&1; stamp $? >> $Z/logs/ab-new-$round.txt
done
# What the epilogue costs inside each schedule: the same configs with no epilogue, bias, bias+ReLU.
for e in none bias bias_relu; do
  cfgs=$(echo $CO $PP | sed "s/_bias_gelu/_$e/g")
  timeout -s INT $(left 60) dist/bin/coalesce-tune sweep --shape 4096 --dtype bf16 --epilogue $e $cfgs -j 16 --db $Z/new-1.db > $Z/logs/epilogue-$e.txt 2>&1; stamp $? >> $Z/logs/epilogue-$e.txt
done
stamp 0 > $Z/done.txt
