set -u
Z=$OUT/gd; mkdir -p $Z/logs
t0=$(date +%s)
left() { local l=$(( 520 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; echo "cores $(nproc)"; dist/bin/coalesce-tune --version; python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
T=dist/bin/coalesce-tune
P="python3 scripts/torch_peers.py --db $Z/gd.db --steady-samples 3000"
# The peers in the steady state (3000 samples per method), beside the steady-state wgmma rows of
# the same GPU: runs GA-GC's device 33 if this is it, else the wgmma sweeps first (--steady-top).
if ! grep -q GPU-d052abc0 $Z/env.txt; then
  for d in tf32 f16; do
    timeout -s INT $(left 150) $T sweep --shape 4096 --dtype $d --family wgmma --steady-top 3 -j 16 --db $Z/gd.db > $Z/logs/wgmma-4096-$d.txt 2>&1
    echo "wgmma 4096 $d $(stamp $?)" >> $Z/logs/done.txt
  done
fi
for d in tf32 f16; do
  timeout -s INT $(left 150) $P --dtype $d --shape 4096 --shape 8192 > $Z/logs/peers-$d.txt 2>&1
  echo "peers $d $(stamp $?)" >> $Z/logs/done.txt
done
for d in tf32 f16; do
  timeout -s INT $(left 120) $P --dtype $d --shape 4096 --method torch_compile --compile-mode max-autotune-no-cudagraphs > $Z/logs/peers-max-autotune-$d.txt 2>&1
  echo "peers max-autotune $d $(stamp $?)" >> $Z/logs/done.txt
done
timeout -s INT $(left 150) $P --dtype bf16 --shape 4096 --shape 8192 > $Z/logs/peers-bf16.txt 2>&1
echo "peers bf16 $(stamp $?)" >> $Z/logs/done.txt
stamp 0 > $Z/done.txt
tar czf $OUT/gd.tgz -C $OUT gd && rm -rf $Z
