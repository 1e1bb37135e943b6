set -u
E=$OUT/e; mkdir -p $E/logs
t0=$(date +%s)
left() { local l=$(( 575 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; dist/bin/coalesce-tune --version; dist/bin/coalesce-tune env; python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"; } > $E/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
OUT=$E timeout -s INT $(left 150) scripts/gpu-test.sh > $E/gpu-test.txt 2>&1; stamp $? >> $E/gpu-test.txt
timeout -s INT $(left 170) dist/bin/coalesce-tune sweep --shape 4096 --family simt --db results/coalesce.db -j 16 > $E/logs/sweep-4096-f32.txt 2>&1; stamp $? >> $E/logs/sweep-4096-f32.txt
timeout -s INT $(left 110) python3 scripts/torch_peers.py --db results/coalesce.db --shape 4096 > $E/logs/torch-peers-f32.txt 2>&1; stamp $? >> $E/logs/torch-peers-f32.txt
timeout -s INT $(left 70) dist/bin/coalesce-tune sweep --shape 4096 --dtype bf16 --family wgmma --db results/coalesce.db -j 16 > $E/logs/sweep-4096-bf16.txt 2>&1; stamp $? >> $E/logs/sweep-4096-bf16.txt
timeout -s INT $(left 100) python3 scripts/torch_peers.py --db results/coalesce.db --shape 4096 --dtype bf16 > $E/logs/torch-peers-bf16.txt 2>&1; stamp $? >> $E/logs/torch-peers-bf16.txt
cp results/coalesce.db $E/
tar czf $OUT/e.tgz -C $OUT e && rm -rf $E
