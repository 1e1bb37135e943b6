set -u
Z=$OUT/fe; mkdir -p $Z/logs
t0=$(date +%s)
left() { local l=$(( 330 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; echo "cores $(nproc)"; dist/bin/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
T=dist/bin/coalesce-tune
# Every measurement here is 3000 samples per method back to back (the steady state), 4096^3.
# 1. The mma family's fastest tiles per dtype again, on another GPU than run FD's (issue 10).
for d in bf16 f16 tf32; do
  args=(); while read -r c; do args+=(--config "$c"); done < dist/configs_4096_mma_$d.txt
  timeout -s INT $(left 60) $T sweep --shape 4096 --dtype $d --family mma "${args[@]}" --min-samples 3000 --max-samples 3000 --db $Z/mma.db > $Z/logs/mma-$d.txt 2>&1
  echo "mma $d $(stamp $?)" >> $Z/logs/done.txt
done
# 2. What the epilogue costs now: the bf16 winners of both families with each epilogue.
for e in none bias bias_gelu; do
  for c in wgmma_bf16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1 mma_bf16_bm128_bn256_kb128_wm64_wn64_s3_v16_sw1_g8_o1; do
    timeout -s INT $(left 40) $T sweep --shape 4096 --dtype bf16 --epilogue $e --config ${c}_$e --min-samples 3000 --max-samples 3000 --db $Z/epilogues.db > $Z/logs/epi-$e-${c%%_*}.txt 2>&1
    echo "$e $c $(stamp $?)" >> $Z/logs/done.txt
  done
done
stamp 0 > $Z/done.txt
tar czf $OUT/fe.tgz -C $OUT fe && rm -rf $Z
