set -u
W=$OUT/w; mkdir -p $W
t0=$(date +%s)
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; dist/bin/coalesce-tune --version; } > $W/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
OUT=$W timeout -s INT 300 scripts/gpu-test.sh > $W/gpu-test.txt 2>&1; echo "rc=$? $(( $(date +%s)-t0 ))s" >> $W/gpu-test.txt
tar czf $OUT/w.tgz -C $OUT w && rm -rf $W
