set -u
Z=$OUT/bi; mkdir -p $Z
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; dist/bin/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
# Every GPU test and example on main's final tree (7815f9f's code).
OUT=$Z timeout 400 bash scripts/gpu-test.sh > $Z/gpu-test-summary.txt 2>&1; echo "rc=$?" >> $Z/gpu-test-summary.txt
tar czf $OUT/bi.tgz -C $OUT bi && rm -rf $Z
