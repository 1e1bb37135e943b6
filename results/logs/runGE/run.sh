set -u
Z=$OUT/ge; mkdir -p $Z/logs
t0=$(date +%s)
left() { local l=$(( 300 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; dist/bin/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
T=dist/bin/coalesce-tune
# Our baselines in the steady state beside one fused tile per dtype (3000 samples per method), then
# the probe: torch.mm alone, Inductor's bias + GELU kernel alone, and the two together, timed as
# the harness times (results/logs/runGE/probe.py).
for dc in "tf32 wgmma_tf32_bm256_bn128_bk32_s4_wg2_cm1_cn1_p0_g8_ts0" "bf16 wgmma_bf16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1" "f16 wgmma_f16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1"; do
  set -- $dc
  timeout -s INT $(left 60) $T sweep --shape 4096 --dtype $1 --family wgmma --config ${2}_bias_gelu --min-samples 3000 --max-samples 3000 --db $Z/ge.db > $Z/logs/sweep-$1.txt 2>&1
  echo "sweep $1 $(stamp $?)" >> $Z/logs/done.txt
  timeout $(left 60) python3 results/logs/runGE/probe.py $1 4096 > $Z/logs/probe-$1.txt 2>&1
  echo "probe $1 $(stamp $?)" >> $Z/logs/done.txt
done
stamp 0 > $Z/done.txt
tar czf $OUT/ge.tgz -C $OUT ge && rm -rf $Z
