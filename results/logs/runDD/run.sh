set -u
Z=$OUT/dd; mkdir -p $Z
t0=$(date +%s)
left() { local l=$(( 560 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; dist/bin/coalesce-tune --version; ncu --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
T=dist/bin/coalesce-tune
W=wgmma_tf32_bm256_bn128_bk32_s4_wg2_cm1_cn1_p1_g8_ts0
# Why the tf32 winner takes 365 us under Nsight Compute (run DC) but 427-447 us in the tuner's
# timed loop. (1) The harness with each L2 flush, twice in alternating order, with no epilogue.
for f in write read read write; do
  r=$(ls $Z | grep -c "^flush_$f")
  timeout $(left 40) $T sweep --shape 4096 --dtype tf32 --family wgmma --epilogue none --config ${W}_none --l2-flush $f \
    --db $Z/flush_${f}_$r.db > $Z/flush_${f}_$r.txt 2>&1; echo "flush $f $r rc=$? $(( $(date +%s)-t0 ))s" >> $Z/done.txt
done
# (2) Every launch of the kernel in one such sweep, timed by Nsight Compute with no cache
# control (the harness's own flush before each timed sample) and no clock control: the check's
# launch, the warm-up's back-to-back batches, then the timed samples.
M=gpu__time_duration.sum,sm__cycles_elapsed.max,sm__cycles_elapsed.avg.per_second,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct
for who in ours cublas; do
  k="regex:wgmma"; [ $who = cublas ] && k="regex:sm90_xmma|nvjet"
  timeout $(left 150) ncu --clock-control none --cache-control none -k "$k" -c 400 --metrics $M --csv \
    $T sweep --shape 4096 --dtype tf32 --family wgmma --epilogue none --config ${W}_none --db /tmp/ncu_$who.db > $Z/launches_$who.csv 2> $Z/launches_$who.err
  echo "ncu $who rc=$? $(( $(date +%s)-t0 ))s" >> $Z/done.txt
done
tar czf $OUT/dd.tgz -C $OUT dd && rm -rf $Z
