set -u
Z=$OUT/ef; mkdir -p $Z
t0=$(date +%s)
left() { local l=$(( 580 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version --format=csv; dist/bin/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
# 1. Every GPU test and example on the session's final code (stream-K with its launch bounds).
OUT=$Z timeout $(left 380) bash scripts/gpu-test.sh > $Z/gpu-test-summary.txt 2>&1; echo "rc=$? $(( $(date +%s)-t0 ))s" >> $Z/gpu-test-summary.txt
# 2. Run EE's stream-K sweeps again on this build (one-consumer stream-K kernels now compiled
# for the model's blocks per SM).
for s in 64x4096x4096 128x4096x4096 256x4096x4096 512; do
  args=(); while read -r c; do args+=(--config "$c"); done < dist/configs_$s.txt
  timeout $(left 60) dist/bin/coalesce-tune sweep --shape $s --dtype bf16 --family wgmma "${args[@]}" --db $Z/ef.db > $Z/sweep_$s.txt 2>&1
  echo "$s rc=$? $(( $(date +%s)-t0 ))s" >> $Z/done.txt
done
tar czf $OUT/ef.tgz -C $OUT ef && rm -rf $Z
