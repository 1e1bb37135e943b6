set -u
Z=$OUT/ck; mkdir -p $Z
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; dist/bin/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
# Every GPU test and example on the session's final code (1a492cf).
OUT=$Z timeout 400 bash scripts/gpu-test.sh > $Z/gpu-test-summary.txt 2>&1; echo "rc=$?" >> $Z/gpu-test-summary.txt
tar czf $OUT/ck.tgz -C $OUT ck && rm -rf $Z
