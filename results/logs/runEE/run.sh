set -u
Z=$OUT/ee; mkdir -p $Z
t0=$(date +%s)
left() { local l=$(( 570 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; dist/bin/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
# 1. Stream-K's GPU tests (now with a tile two blocks to an SM, and the residency refusal).
timeout $(left 120) dist/bin/wgmma_test --gtest_filter='*StreamK*' > $Z/wgmma_test_streamk.txt 2>&1; echo "streamk tests rc=$? $(( $(date +%s)-t0 ))s" >> $Z/done.txt
# 2. Every legal stream-K config of the space at N = K = 4096, M = 64, 128, 256, and at 512^3,
# bf16 bias+GELU, beside the committed winner of each shape (results/logs/runEE/configs_*.txt).
for s in 64x4096x4096 128x4096x4096 256x4096x4096 512; do
  args=(); while read -r c; do args+=(--config "$c"); done < dist/configs_$s.txt
  timeout $(left 140) dist/bin/coalesce-tune sweep --shape $s --dtype bf16 --family wgmma "${args[@]}" --db $Z/ee.db > $Z/sweep_$s.txt 2>&1
  echo "$s rc=$? $(( $(date +%s)-t0 ))s" >> $Z/done.txt
done
tar czf $OUT/ee.tgz -C $OUT ee && rm -rf $Z
