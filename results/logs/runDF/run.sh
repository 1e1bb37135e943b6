set -u
Z=$OUT/df; mkdir -p $Z
t0=$(date +%s)
left() { local l=$(( 500 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; dist/bin/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
T=dist/bin/coalesce-tune
W=wgmma_tf32_bm256_bn128_bk32_s4_wg2_cm1_cn1_p1_g8_ts0_none
B=wgmma_bf16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_bias_gelu
# Power and clocks every 20 ms while each method is timed for about 1.5 s: loaded (3000 samples
# back to back) and rested (300 samples with 5 ms after each), the tf32 winner (no epilogue) and
# the bf16 winner (bias + GELU), each sweep with its baselines. Each row's created_at in the
# databases says when its method's timing ended.
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv,noheader,nounits -lms 20 > $Z/smi.csv 2> $Z/smi.err &
P=$!
sleep 1
timeout $(left 60) $T sweep --shape 4096 --dtype tf32 --epilogue none --family wgmma --config $W --min-samples 3000 --max-samples 3000 --db $Z/tf32_loaded.db > $Z/tf32_loaded.txt 2>&1; echo "tf32 loaded rc=$? $(( $(date +%s)-t0 ))s" >> $Z/done.txt
sleep 2
timeout $(left 60) $T sweep --shape 4096 --dtype tf32 --epilogue none --family wgmma --config $W --min-samples 300 --max-samples 300 --sample-gap-ms 5 --db $Z/tf32_rested.db > $Z/tf32_rested.txt 2>&1; echo "tf32 rested rc=$? $(( $(date +%s)-t0 ))s" >> $Z/done.txt
sleep 2
timeout $(left 60) $T sweep --shape 4096 --dtype bf16 --family wgmma --config $B --min-samples 5000 --max-samples 5000 --db $Z/bf16_loaded.db > $Z/bf16_loaded.txt 2>&1; echo "bf16 loaded rc=$? $(( $(date +%s)-t0 ))s" >> $Z/done.txt
sleep 2
timeout $(left 60) $T sweep --shape 4096 --dtype bf16 --family wgmma --config $B --min-samples 300 --max-samples 300 --sample-gap-ms 5 --db $Z/bf16_rested.db > $Z/bf16_rested.txt 2>&1; echo "bf16 rested rc=$? $(( $(date +%s)-t0 ))s" >> $Z/done.txt
sleep 1
kill $P
tar czf $OUT/df.tgz -C $OUT df && rm -rf $Z
