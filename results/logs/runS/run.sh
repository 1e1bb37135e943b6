set -u
S=$OUT/s; mkdir -p $S/logs
t0=$(date +%s)
left() { local l=$(( 570 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; echo "cores $(nproc)"; dist/bin/coalesce-tune --version; dist/bin/coalesce-tune env --device 0; dist/bin/coalesce-tune env --device 1; } > $S/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
OUT=$S timeout -s INT $(left 160) scripts/gpu-test.sh > $S/gpu-test.txt 2>&1; stamp $? >> $S/gpu-test.txt
W=workloads/gpt2-small.csv
A="--shapes-file $W --dtype bf16 --strategy random --budget 8 --seed 1"
timeout -s INT $(left 170) dist/bin/coalesce-tune sweep $A --devices all -j 32 --db $S/devices-all.db > $S/logs/devices-all.txt 2>&1; stamp $? >> $S/logs/devices-all.txt
# The same work as two shards side by side, one per GPU, as two tasks of a Slurm array would run it.
(timeout -s INT $(left 170) dist/bin/coalesce-tune sweep $A --shard 0/2 --device 0 -j 16 --db $S/shard-0.db > $S/logs/shard-0.txt 2>&1; stamp $? >> $S/logs/shard-0.txt) &
(timeout -s INT $(left 170) dist/bin/coalesce-tune sweep $A --shard 1/2 --device 1 -j 16 --db $S/shard-1.db > $S/logs/shard-1.txt 2>&1; stamp $? >> $S/logs/shard-1.txt) &
wait
dist/bin/coalesce-report merge $S/merged.db $S/shard-0.db $S/shard-1.db > $S/logs/merge.txt 2>&1; stamp $? >> $S/logs/merge.txt
dist/bin/coalesce-report --db $S/devices-all.db --workload $W --out $S/report-devices-all.md > $S/logs/report.txt 2>&1
dist/bin/coalesce-report --db $S/merged.db --workload $W --out $S/report-merged.md >> $S/logs/report.txt 2>&1
stamp 0 > $S/done.txt
tar czf $OUT/s.tgz -C $OUT s && rm -rf $S
