set -u
Z=$OUT/dg; mkdir -p $Z
t0=$(date +%s)
left() { local l=$(( 400 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; dist/bin/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
T=dist/bin/coalesce-tune
W=wgmma_tf32_bm256_bn128_bk32_s4_wg2_cm1_cn1_p1_g8_ts0_none
# Energy per method: the GPU's total energy counter (mJ), power and clock every 20 ms while each
# method of two loaded tf32 sweeps (3000 samples each, back to back) and one rested one (300
# samples, 5 ms rests) is timed; each row's created_at says when its method's timing ended.
nvidia-smi --query-gpu=timestamp,total_energy_consumption,power.draw,clocks.sm,clocks_event_reasons.active --format=csv,noheader,nounits -lms 20 > $Z/smi.csv 2> $Z/smi.err &
P=$!
sleep 1
for r in 1 2; do
  timeout $(left 60) $T sweep --shape 4096 --dtype tf32 --epilogue none --family wgmma --config $W --min-samples 3000 --max-samples 3000 --db $Z/loaded_$r.db > $Z/loaded_$r.txt 2>&1; echo "loaded $r rc=$? $(( $(date +%s)-t0 ))s" >> $Z/done.txt
  sleep 2
done
timeout $(left 60) $T sweep --shape 4096 --dtype tf32 --epilogue none --family wgmma --config $W --min-samples 300 --max-samples 300 --sample-gap-ms 5 --db $Z/rested.db > $Z/rested.txt 2>&1; echo "rested rc=$? $(( $(date +%s)-t0 ))s" >> $Z/done.txt
sleep 1
kill $P
tar czf $OUT/dg.tgz -C $OUT dg && rm -rf $Z
