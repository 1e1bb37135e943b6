set -u
D=$OUT/ch; mkdir -p $D/ncu
t0=$(date +%s)
left() { local l=$(( 500 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; dist/bin/coalesce-tune --version; ncu --version; } > $D/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
T=dist/bin/coalesce-tune
C=wgmma_bf16_bm128_bn128_bk64_s6_wg2_cm1_cn1_p1_g8_ts1_bias_gelu
W=wgmma_bf16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_bias_gelu
# The two modes of run CG: eight fresh processes timing the 128x128 tile (and the 128x256 one)...
for r in 1 2 3 4 5 6 7 8; do
  timeout $(left 60) $T sweep --shape 4096 --dtype bf16 --family wgmma --config $C --config $W --db $D/t$r.db > $D/t$r.txt 2>&1
  echo "time $r rc=$? $(( $(date +%s)-t0 ))s" >> $D/done.txt
done
# ...and eight under Nsight Compute (one launch each, clocks not locked): cycles, clock, L2 and
# DRAM traffic, the traffic between the L2's two partitions.
M=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,lts__t_sectors_srcunit_ltcfabric.sum,l1tex__m_xbar2l1tex_read_bytes.sum,smsp__inst_executed.sum
for r in 1 2 3 4 5 6 7 8; do
  timeout $(left 60) ncu --clock-control none -k "$C" -c 1 --metrics $M --csv \
    $T sweep --shape 4096 --dtype bf16 --family wgmma --config $C --db /tmp/n$r.db > $D/ncu/n$r.csv 2>$D/ncu/n$r.err
  echo "ncu $r rc=$? $(( $(date +%s)-t0 ))s" >> $D/done.txt
done
tar czf $OUT/ch.tgz -C $OUT ch && rm -rf $D
