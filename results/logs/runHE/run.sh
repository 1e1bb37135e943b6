set -u
Z=$OUT/he; mkdir -p $Z/logs
t0=$(date +%s)
left() { local l=$(( 570 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; echo "cores $(nproc)"; dist/bin/coalesce-tune --version; python3 -c 'import torch; print("torch", torch.__version__)'; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
T=dist/bin/coalesce-tune
# Both sides rested (runs HA, HB: the peers' 250 us spin rests the GPU before each sample): the
# fused winner and our baselines with a 0.25 ms rest after each sample (--sample-gap-ms 0.25, a
# host sleep, so the GPU idles before the next sample's reset and flush), beside the same in the
# steady state and the peers with their default spin; 3000 samples per method, each in a
# database of its own, two rounds.
for r in 1 2; do
  for d in tf32 f16; do
    case $d in
      tf32) c=wgmma_tf32_bm256_bn128_bk32_s4_wg2_cm1_cn1_p0_g8_ts0 ;;
      f16)  c=wgmma_f16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1 ;;
    esac
    timeout -s INT $(left 40) $T sweep --shape 4096 --dtype $d --family wgmma --config ${c}_bias_gelu --min-samples 3000 --max-samples 3000 --sample-gap-ms 0.25 --db $Z/rested-$d-$r.db > $Z/logs/rested-$d-$r.txt 2>&1
    echo "rested $d $r $(stamp $?)" >> $Z/logs/done.txt
    timeout -s INT $(left 30) $T sweep --shape 4096 --dtype $d --family wgmma --config ${c}_bias_gelu --min-samples 3000 --max-samples 3000 --db $Z/steady-$d-$r.db > $Z/logs/steady-$d-$r.txt 2>&1
    echo "steady $d $r $(stamp $?)" >> $Z/logs/done.txt
    timeout -s INT $(left 60) python3 scripts/torch_peers.py --db $Z/peers-$d-$r.db --steady-samples 3000 --dtype $d --shape 4096 --method torch_eager --method torch_compile > $Z/logs/peers-$d-$r.txt 2>&1
    echo "peers $d $r $(stamp $?)" >> $Z/logs/done.txt
  done
done
stamp 0 > $Z/done.txt
tar czf $OUT/he.tgz -C $OUT he && rm -rf $Z
