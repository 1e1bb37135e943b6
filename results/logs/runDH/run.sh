set -u
Z=$OUT/dh; mkdir -p $Z
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version --format=csv; dist/bin/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
# Every GPU test and example on the session's final code (32a7a68): after the timing settings'
# refactor (the worker protocol) and the fragment-origin helper.
OUT=$Z timeout 400 bash scripts/gpu-test.sh > $Z/gpu-test-summary.txt 2>&1; echo "rc=$?" >> $Z/gpu-test-summary.txt
tar czf $OUT/dh.tgz -C $OUT dh && rm -rf $Z
