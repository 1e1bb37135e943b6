set -u
U=$OUT/u; mkdir -p $U/logs
t0=$(date +%s)
left() { local l=$(( 565 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; echo "cores $(nproc)"; dist/bin/coalesce-tune --version; python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"; } > $U/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
DB=$U/u.db
# bf16 with the wgmma family at every square shape, then the peers beside it on this GPU.
for s in 1024 2048 4096; do
  timeout -s INT $(left 80) dist/bin/coalesce-tune sweep --shape $s --dtype bf16 --family wgmma -j 16 --db $DB > $U/logs/sweep-$s-bf16.txt 2>&1; stamp $? >> $U/logs/sweep-$s-bf16.txt
done
timeout -s INT $(left 80) dist/bin/coalesce-tune sweep --shape 8192 --dtype bf16 --family wgmma --strategy random --budget 48 --seed 1 -j 16 --db $DB > $U/logs/sweep-8192-bf16.txt 2>&1; stamp $? >> $U/logs/sweep-8192-bf16.txt
timeout -s INT $(left 150) python3 scripts/torch_peers.py --db $DB --dtype bf16 --shape 1024 --shape 2048 --shape 4096 --shape 8192 > $U/logs/torch-peers-bf16.txt 2>&1; stamp $? >> $U/logs/torch-peers-bf16.txt
timeout -s INT $(left 250) python3 scripts/torch_peers.py --db $DB --dtype bf16 --shape 4096 --shape 8192 --shape 2048 --shape 1024 --method torch_compile --compile-mode max-autotune-no-cudagraphs > $U/logs/torch-peers-bf16-max-autotune.txt 2>&1; stamp $? >> $U/logs/torch-peers-bf16-max-autotune.txt
stamp 0 > $U/done.txt
tar czf $OUT/u.tgz -C $OUT u && rm -rf $U
