set -u
Z=$OUT/eh; mkdir -p $Z
t0=$(date +%s)
left() { local l=$(( 500 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; dist/bin/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
T=dist/bin/coalesce-tune
P=wgmma_bf16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_bias_gelu
S=wgmma_bf16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_stk2_bias_gelu
# Power, SM clock and throttle reasons every 20 ms while the 8192^3 128x256 tile is timed without
# and with stream-K (3000 samples back to back each, about 5 s), two rounds in alternating order,
# each sweep with its baselines. Each row's created_at says when its method's timing ended.
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv,noheader,nounits -lms 20 > $Z/smi.csv 2> $Z/smi.err &
Q=$!
sleep 1
for r in r1_plain:$P r1_sk:$S r2_sk:$S r2_plain:$P; do
  tag=${r%%:*}; c=${r##*:}
  timeout $(left 100) $T sweep --shape 8192 --dtype bf16 --family wgmma --config $c --min-samples 3000 --max-samples 3000 --db $Z/$tag.db > $Z/$tag.txt 2>&1
  echo "$tag rc=$? $(( $(date +%s)-t0 ))s" >> $Z/done.txt
  sleep 2
done
kill $Q
tar czf $OUT/eh.tgz -C $OUT eh && rm -rf $Z
