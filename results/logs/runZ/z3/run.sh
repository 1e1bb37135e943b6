set -u
Z=$OUT/z3; mkdir -p $Z/logs
t0=$(date +%s)
left() { local l=$(( 560 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; echo "cores $(nproc)"; dist/bin/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
# bf16 at M = 1 and 8: the whole gemv space.
timeout -s INT $(left 90) dist/bin/coalesce-tune sweep --shape 1x4096x4096 --shape 8x4096x4096 --dtype bf16 --family gemv -j 16 --db $Z/z.db > $Z/logs/sweep-gemv-bf16.txt 2>&1; stamp $? >> $Z/logs/sweep-gemv-bf16.txt
# bf16 at M = 8 to 256: wgmma and mma, 250 configs each (seed 3).
timeout -s INT $(left 270) dist/bin/coalesce-tune sweep --shapes-file results/logs/runZ/mid-bf16.csv --family wgmma --strategy random --budget 250 --seed 3 -j 16 --db $Z/z.db > $Z/logs/sweep-mid-bf16-wgmma.txt 2>&1; stamp $? >> $Z/logs/sweep-mid-bf16-wgmma.txt
timeout -s INT $(left 150) dist/bin/coalesce-tune sweep --shapes-file results/logs/runZ/mid-bf16.csv --family mma --strategy random --budget 150 --seed 3 -j 16 --db $Z/z.db > $Z/logs/sweep-mid-bf16-mma.txt 2>&1; stamp $? >> $Z/logs/sweep-mid-bf16-mma.txt
# f32 at M = 32 and 128: the focused simt list, and 200 more simt configs at 128.
timeout -s INT $(left 60) dist/bin/coalesce-tune sweep --shape 32x4096x4096 --family simt $(grep -v '^#' results/logs/runZ/simt-f32-focused.txt | sed 's/^/--config /' | tr '\n' ' ') -j 16 --db $Z/z.db > $Z/logs/sweep-m32-f32.txt 2>&1; stamp $? >> $Z/logs/sweep-m32-f32.txt
stamp 0 > $Z/done.txt
tar czf $OUT/z3.tgz -C $OUT z3 && rm -rf $Z
