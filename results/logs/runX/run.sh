set -u
X=$OUT/x; mkdir -p $X/logs
t0=$(date +%s)
left() { local l=$(( 555 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; echo "cores $(nproc)"; dist/bin/coalesce-tune --version; python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"; } > $X/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
DB=$X/x.db
# f16 (wgmma) and tf32 (mma: wgmma refuses tf32) at every square shape, then the peers beside them on this GPU.
for s in 1024 2048 4096; do
  timeout -s INT $(left 60) dist/bin/coalesce-tune sweep --shape $s --dtype f16 --family wgmma -j 16 --db $DB > $X/logs/sweep-$s-f16.txt 2>&1; stamp $? >> $X/logs/sweep-$s-f16.txt
done
timeout -s INT $(left 50) dist/bin/coalesce-tune sweep --shape 8192 --dtype f16 --family wgmma --strategy random --budget 48 --seed 1 -j 16 --db $DB > $X/logs/sweep-8192-f16.txt 2>&1; stamp $? >> $X/logs/sweep-8192-f16.txt
for s in 1024 2048 4096; do
  timeout -s INT $(left 60) dist/bin/coalesce-tune sweep --shape $s --dtype tf32 --family mma --strategy random --budget 96 --seed 1 -j 16 --db $DB > $X/logs/sweep-$s-tf32.txt 2>&1; stamp $? >> $X/logs/sweep-$s-tf32.txt
done
timeout -s INT $(left 50) dist/bin/coalesce-tune sweep --shape 8192 --dtype tf32 --family mma --strategy random --budget 32 --seed 1 -j 16 --db $DB > $X/logs/sweep-8192-tf32.txt 2>&1; stamp $? >> $X/logs/sweep-8192-tf32.txt
timeout -s INT $(left 110) python3 scripts/torch_peers.py --db $DB --dtype f16 --shape 1024 --shape 2048 --shape 4096 --shape 8192 > $X/logs/torch-peers-f16.txt 2>&1; stamp $? >> $X/logs/torch-peers-f16.txt
timeout -s INT $(left 110) python3 scripts/torch_peers.py --db $DB --dtype tf32 --shape 1024 --shape 2048 --shape 4096 --shape 8192 > $X/logs/torch-peers-tf32.txt 2>&1; stamp $? >> $X/logs/torch-peers-tf32.txt
stamp 0 > $X/done.txt
tar czf $OUT/x.tgz -C $OUT x && rm -rf $X
