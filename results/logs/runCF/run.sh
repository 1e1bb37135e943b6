set -u
Z=$OUT/cf; mkdir -p $Z
t0=$(date +%s)
left() { local l=$(( 570 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; dist/bin/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
# Every GPU test and example on main's code with epilogue warps and clusters (0ad28ef).
OUT=$Z timeout $(left 200) bash scripts/gpu-test.sh > $Z/gpu-test-summary.txt 2>&1; echo "rc=$? $(( $(date +%s)-t0 ))s" >> $Z/done.txt
# The exhaustive wgmma sweeps with the new knobs (499 legal configs at 4096), bias + GELU, each
# with its baselines: bf16 4096^3 and 8192^3, f16 4096^3.
T=dist/bin/coalesce-tune
for spec in "4096 bf16" "8192 bf16" "4096 f16"; do
  set -- $spec
  timeout $(left 200) $T sweep --shape $1 --dtype $2 --family wgmma --db $Z/cf.db > $Z/sweep_$1_$2.txt 2>&1
  echo "$spec rc=$? $(( $(date +%s)-t0 ))s" >> $Z/done.txt
done
tar czf $OUT/cf.tgz -C $OUT cf && rm -rf $Z
