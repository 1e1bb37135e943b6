# Run LD: run LC's stall samples again (its ncu took no --sampling-interval): per SASS instruction,
# twenty launches each of our two fastest bf16 512^3 kernels (Nsight Compute, clocks left alone).
set -u
. scripts/run-lib.sh
run_begin ld 200
ncu --version | tail -1 >> $Z/env.txt 2>&1
T=dist/bin/coalesce-tune
mkdir -p $Z/ncu
i=0
for name in wgmma_bf16_bm64_bn64_bk64_s8_wg1_cm1_cn1_p0_g8_ts0_sk2_rd2_bias_gelu wgmma_bf16_bm64_bn64_bk64_s6_wg1_cm1_cn1_p1_g8_ts1_bias_gelu; do
  i=$((i+1))
  timeout $(left 90) ncu --clock-control none --section SourceCounters --section WarpStateStats \
    --page source --print-source sass --csv --target-processes all -k regex:wgmma -c 20 \
    $T sweep --shape 512x512x512 --dtype bf16 --config $name --db /tmp/ncu-ld$i.db --timeout 300 > $Z/ncu/$name-source.csv 2> $Z/ncu/$name-source.err
  stamp $? >> $Z/ncu/$name-source.err
done
run_end
