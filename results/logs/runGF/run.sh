set -u
Z=$OUT/gf; mkdir -p $Z/logs
t0=$(date +%s)
left() { local l=$(( 140 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; dist/bin/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
T=dist/bin/coalesce-tune
# Run GE again with the probe's GPU spin (results/logs/runGE/probe.py --spin): our baselines in the
# steady state beside one tile, then torch.mm alone, Inductor's bias + GELU alone and the two.
for dc in "tf32 wgmma_tf32_bm256_bn128_bk32_s4_wg2_cm1_cn1_p0_g8_ts0" "bf16 wgmma_bf16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1"; do
  set -- $dc
  timeout -s INT $(left 45) $T sweep --shape 4096 --dtype $1 --family wgmma --config ${2}_bias_gelu --min-samples 3000 --max-samples 3000 --db $Z/gf.db > $Z/logs/sweep-$1.txt 2>&1
  echo "sweep $1 $(stamp $?)" >> $Z/logs/done.txt
  timeout $(left 40) python3 results/logs/runGE/probe.py $1 4096 --spin > $Z/logs/probe-$1.txt 2>&1
  echo "probe $1 $(stamp $?)" >> $Z/logs/done.txt
done
stamp 0 > $Z/done.txt
tar czf $OUT/gf.tgz -C $OUT gf && rm -rf $Z
