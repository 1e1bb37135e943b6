set -u
Z=$OUT/hb; mkdir -p $Z/logs
t0=$(date +%s)
left() { local l=$(( 560 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; echo "cores $(nproc)"; dist/bin/coalesce-tune --version; python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
T=dist/bin/coalesce-tune
# The peers in our harness' regime (run HA: the peers' 250 us spin rests a power-capped GPU).
# For tf32 and f16 at 4096^3: the fused winner beside our baselines in the steady state, then
# PyTorch eager and torch.compile timed with no spin (--spin-cycles 0) and with the default spin,
# each 3000 samples per method, each in a database of its own (the spin is not part of a row's
# regime), then the fused winner again. Two rounds.
for d in tf32 f16; do
  case $d in
    tf32) c=wgmma_tf32_bm256_bn128_bk32_s4_wg2_cm1_cn1_p0_g8_ts0 ;;
    f16)  c=wgmma_f16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1 ;;
  esac
  for r in 1 2; do
    timeout -s INT $(left 40) $T sweep --shape 4096 --dtype $d --family wgmma --config ${c}_bias_gelu --min-samples 3000 --max-samples 3000 --db $Z/ours-$d-$r.db > $Z/logs/ours-$d-$r.txt 2>&1
    echo "ours $d $r $(stamp $?)" >> $Z/logs/done.txt
    for spin in 0 500000; do
      timeout -s INT $(left 90) python3 scripts/torch_peers.py --db $Z/peers-$d-spin$spin-$r.db --steady-samples 3000 --spin-cycles $spin --dtype $d --shape 4096 --method torch_eager --method torch_compile > $Z/logs/peers-$d-spin$spin-$r.txt 2>&1
      echo "peers $d spin $spin $r $(stamp $?)" >> $Z/logs/done.txt
    done
  done
done
stamp 0 > $Z/done.txt
tar czf $OUT/hb.tgz -C $OUT hb && rm -rf $Z
