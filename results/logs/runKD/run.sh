# Run KD: where the in-cluster reduction (reduce = 2) spends its time at bf16 M = 64: Nsight
# Compute's warp-state samples per SASS instruction (clocks left alone) of the fastest split
# tile reduced in its cluster and, to set beside it, the same tile with the separate reduce.
set -u
. scripts/run-lib.sh
run_begin kd 200
ncu --version | tail -1 >> $Z/env.txt 2>&1
T=dist/bin/coalesce-tune
mkdir -p $Z/ncu
i=0
for name in wgmma_bf16_bm64_bn64_bk64_s8_wg1_cm1_cn1_p0_g8_ts0_sk2_rd2_bias_gelu wgmma_bf16_bm64_bn64_bk64_s8_wg1_cm1_cn1_p0_g8_ts0_sk2_bias_gelu; do
  i=$((i+1))
  timeout $(left 80) ncu --clock-control none --section SourceCounters --section WarpStateStats --page source --print-source sass --csv \
    --target-processes all -k regex:wgmma -c 1 $T sweep --shape 64x4096x4096 --dtype bf16 --config $name --db /tmp/ncu-kd$i.db --timeout 300 > $Z/ncu/$name-sass.csv 2>&1
  stamp $? >> $Z/ncu/$name-sass.csv
done
run_end
