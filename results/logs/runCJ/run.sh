set -u
D=$OUT/cj; mkdir -p $D
t0=$(date +%s)
left() { local l=$(( 500 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; dist/bin/coalesce-tune --version; } > $D/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
T=dist/bin/coalesce-tune
C=wgmma_bf16_bm128_bn128_bk64_s6_wg2_cm1_cn1_p1_g8_ts1_bias_gelu
# Is the 128x128 tile's mode set per process or per allocation? Each process sweeps four
# problems of nearly the same size, each with its own workspace (A, B, bias, C) in the one
# worker process: 4096^3 and three with one side 8 larger.
for r in 1 2 3 4 5 6; do
  timeout $(left 80) $T sweep --shape 4096 --shape 4096x4096x4104 --shape 4104x4096x4096 --shape 4096x4104x4096 --dtype bf16 --family wgmma --config $C --db $D/p$r.db > $D/p$r.txt 2>&1
  echo "process $r rc=$? $(( $(date +%s)-t0 ))s" >> $D/done.txt
done
tar czf $OUT/cj.tgz -C $OUT cj && rm -rf $D
