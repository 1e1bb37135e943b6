set -u
V=$OUT/v; mkdir -p $V/logs
t0=$(date +%s)
left() { local l=$(( 560 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; echo "cores $(nproc)"; dist/bin/coalesce-tune --version; } > $V/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
# Issue 12's starting point: N = K = 4096, M = 1 to 512, f32 and bf16, every family as it is today.
timeout -s INT $(left 420) dist/bin/coalesce-tune sweep --shapes-file results/logs/runV/skinny-4096.csv --strategy random --budget 64 --seed 1 -j 16 --db $V/v.db > $V/logs/sweep-skinny.txt 2>&1; stamp $? >> $V/logs/sweep-skinny.txt
timeout -s INT $(left 120) python3 scripts/torch_peers.py --db $V/v.db --dtype bf16 --method torch_compile --shape 1x4096x4096 --shape 8x4096x4096 --shape 64x4096x4096 --shape 256x4096x4096 > $V/logs/torch-peers-bf16.txt 2>&1; stamp $? >> $V/logs/torch-peers-bf16.txt
stamp 0 > $V/done.txt
tar czf $OUT/v.tgz -C $OUT v && rm -rf $V
