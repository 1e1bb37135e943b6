set -u
Z=$OUT/ga; mkdir -p $Z/logs
t0=$(date +%s)
left() { local l=$(( 560 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; echo "cores $(nproc)"; dist/bin/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
T=dist/bin/coalesce-tune
# 1. Every GPU test and example on this build (schema 7, --steady-top): none may skip.
OUT=$Z/logs timeout $(left 170) bash scripts/gpu-test.sh > $Z/logs/gpu-test-summary.txt 2>&1; stamp $? >> $Z/logs/gpu-test-summary.txt
# 2. What holds tf32 wgmma back at 4096^3 (issue 11): the steady state's fastest tf32 tile (run 136)
#    with each epilogue, 3000 samples per method back to back.
c=wgmma_tf32_bm256_bn128_bk32_s4_wg2_cm1_cn1_p1_g8_ts0
for e in none bias bias_gelu; do
  timeout -s INT $(left 60) $T sweep --shape 4096 --dtype tf32 --epilogue $e --family wgmma --config ${c}_$e --min-samples 3000 --max-samples 3000 --db $Z/ga.db > $Z/logs/tf32-epi-$e.txt 2>&1
  echo "tf32 $e $(stamp $?)" >> $Z/logs/done.txt
done
# 3. The mma family at 4096^3 in bf16 (issue 10) the way a user tunes it now: every legal config,
#    then the three fastest again in the steady state with their own baselines (--steady-top 3).
timeout -s INT $(left 260) $T sweep --shape 4096 --dtype bf16 --family mma --steady-top 3 -j 16 --db $Z/ga.db > $Z/logs/mma-bf16.txt 2>&1
echo "mma bf16 $(stamp $?)" >> $Z/logs/done.txt
stamp 0 > $Z/done.txt
tar czf $OUT/ga.tgz -C $OUT ga && rm -rf $Z
