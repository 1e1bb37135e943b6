# Run KG: the cluster reduction after run KE (st.async, no fences) at bf16 M = 64 under Nsight
# Compute (clocks left alone): its duration beside the same tile's split GEMM alone, and its
# per-instruction stall samples.
set -u
. scripts/run-lib.sh
run_begin kg 200
ncu --version | tail -1 >> $Z/env.txt 2>&1
T=dist/bin/coalesce-tune
mkdir -p $Z/ncu
rd2=wgmma_bf16_bm64_bn64_bk64_s8_wg1_cm1_cn1_p0_g8_ts0_sk2_rd2_bias_gelu
sk2=wgmma_bf16_bm64_bn64_bk64_s8_wg1_cm1_cn1_p0_g8_ts0_sk2_bias_gelu
M=gpu__time_duration.sum,sm__cycles_active.avg,launch__grid_size,launch__cluster_size
i=0
for name in $rd2 $sk2; do
  i=$((i+1))
  timeout $(left 50) ncu --clock-control none --metrics $M --target-processes all -k regex:wgmma -c 4 \
    $T sweep --shape 64x4096x4096 --dtype bf16 --config $name --db /tmp/ncu-kg$i.db --timeout 300 > $Z/ncu/$name-time.txt 2>&1
  stamp $? >> $Z/ncu/$name-time.txt
done
timeout $(left 80) ncu --clock-control none --section SourceCounters --section WarpStateStats --page source --print-source sass --csv \
  --target-processes all -k regex:wgmma -c 1 $T sweep --shape 64x4096x4096 --dtype bf16 --config $rd2 --db /tmp/ncu-kg9.db --timeout 300 > $Z/ncu/$rd2-sass.csv 2>&1
stamp $? >> $Z/ncu/$rd2-sass.csv
run_end
