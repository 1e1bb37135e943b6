set -u
Z=$OUT/de; mkdir -p $Z
t0=$(date +%s)
left() { local l=$(( 580 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; dist/bin/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
T=dist/bin/coalesce-tune
# (1) The exhaustive tf32 wgmma sweeps, bias + GELU, with their baselines (68 legal configs each).
for s in 1024 2048 4096 8192; do
  timeout $(left 90) $T sweep --shape $s --dtype tf32 --family wgmma --db $Z/de.db > $Z/sweep_${s}_tf32.txt 2>&1
  echo "sweep $s rc=$? $(( $(date +%s)-t0 ))s" >> $Z/done.txt
done
# (2) Loaded or rested: the tf32 and bf16 winners (no epilogue, and bf16 with bias + GELU) with
# their baselines, samples back to back (gap 0) and with the GPU resting 20 ms after each,
# alternating, two rounds.
W=wgmma_tf32_bm256_bn128_bk32_s4_wg2_cm1_cn1_p1_g8_ts0
B=wgmma_bf16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1
for gap in 0 20 20 0; do
  r=$(ls $Z | grep -c "^gap${gap}_tf32")
  timeout $(left 40) $T sweep --shape 4096 --dtype tf32 --epilogue none --family wgmma --config ${W}_none --sample-gap-ms $gap \
    --db $Z/gap${gap}_tf32_$r.db > $Z/gap${gap}_tf32_$r.txt 2>&1; echo "gap $gap tf32 $r rc=$? $(( $(date +%s)-t0 ))s" >> $Z/done.txt
  timeout $(left 40) $T sweep --shape 4096 --dtype bf16 --epilogue bias_gelu --family wgmma --config ${B}_bias_gelu --sample-gap-ms $gap \
    --db $Z/gap${gap}_bf16_$r.db > $Z/gap${gap}_bf16_$r.txt 2>&1; echo "gap $gap bf16 $r rc=$? $(( $(date +%s)-t0 ))s" >> $Z/done.txt
done
# (3) Every GPU test and example on this build.
OUT=$Z timeout $(left 330) bash scripts/gpu-test.sh > $Z/gpu-test-summary.txt 2>&1; echo "gpu-test rc=$? $(( $(date +%s)-t0 ))s" >> $Z/done.txt
tar czf $OUT/de.tgz -C $OUT de && rm -rf $Z
