set -u
D=$OUT/cm; mkdir -p $D
t0=$(date +%s)
left() { local l=$(( 300 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; dist/bin/coalesce-tune --version; } > $D/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
T=dist/bin/coalesce-tune
C=wgmma_bf16_bm128_bn128_bk64_s6_wg2_cm1_cn1_p1_g8_ts1_bias_gelu
# The SM clock, power and throttle reasons every 10 ms while eight fresh processes time the
# 128x128 tile (runs CG-CJ: two modes about 17% apart), to see whether the slow mode is a clock.
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_event_reasons.sw_power_cap,clocks_event_reasons.hw_slowdown,clocks_event_reasons.sw_thermal_slowdown,temperature.gpu --format=csv,nounits -lms 10 > $D/smi.csv 2>&1 &
SMI=$!
for r in 1 2 3 4 5 6 7 8; do
  date -u +%H:%M:%S.%N > $D/start$r.txt
  timeout $(left 40) $T sweep --shape 4096 --dtype bf16 --family wgmma --config $C --db $D/p$r.db > $D/p$r.txt 2>&1
  echo "process $r rc=$? $(( $(date +%s)-t0 ))s" >> $D/done.txt
done
kill $SMI
tar czf $OUT/cm.tgz -C $OUT cm && rm -rf $D
