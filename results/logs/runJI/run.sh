set -u
Z=$OUT/ji; mkdir -p $Z/logs
t0=$(date +%s)
left() { local l=$(( 260 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; echo "cores $(nproc)"; dist/bin/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
# 1. Every GPU test and example on the final build of the session: none may skip or fail.
OUT=$Z/logs timeout $(left 170) bash scripts/gpu-test.sh > $Z/logs/gpu-test-summary.txt 2>&1; stamp $? >> $Z/logs/gpu-test-summary.txt
# 2. The split-K reduce's slice-order test (its copy now on the reduce's stream) five times more.
for i in 1 2 3 4 5; do
  timeout $(left 20) dist/bin/splitk_test --gtest_filter='*SliceOrder*' > $Z/logs/slice-order-$i.txt 2>&1; stamp $? >> $Z/logs/slice-order-$i.txt
done
stamp 0 > $Z/done.txt
tar czf $OUT/ji.tgz -C $OUT ji && rm -rf $Z
