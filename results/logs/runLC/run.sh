# Run LC: where bf16 512^3's time goes. Nsight Compute (clocks left alone, caches flushed before
# each profiled kernel): the full set of sections for cuBLAS's GEMM and our two fastest kernels
# (64x64 split 2 reduced in the cluster; 64x64 persistent with the TMA store), then the stall
# samples per SASS instruction of both of ours (the smallest sampling interval, five launches).
set -u
. scripts/run-lib.sh
run_begin lc 330
ncu --version | tail -1 >> $Z/env.txt 2>&1
T=dist/bin/coalesce-tune
B=dist/bin/coalesce-bench
mkdir -p $Z/ncu
timeout $(left 60) ncu --clock-control none --set full -k regex:'nvjet|xmma|cutlass|gemm' -c 3 \
  $B --shape 512x512x512 --dtype bf16 --method cublas_gemm --min-samples 2 --max-samples 2 > $Z/ncu/cublas-full.txt 2>&1
stamp $? >> $Z/ncu/cublas-full.txt
i=0
for name in wgmma_bf16_bm64_bn64_bk64_s8_wg1_cm1_cn1_p0_g8_ts0_sk2_rd2_bias_gelu wgmma_bf16_bm64_bn64_bk64_s6_wg1_cm1_cn1_p1_g8_ts1_bias_gelu; do
  i=$((i+1))
  timeout $(left 60) ncu --clock-control none --set full --target-processes all -k regex:wgmma -c 3 \
    $T sweep --shape 512x512x512 --dtype bf16 --config $name --db /tmp/ncu-lc$i.db --timeout 300 > $Z/ncu/$name-full.txt 2>&1
  stamp $? >> $Z/ncu/$name-full.txt
  timeout $(left 60) ncu --clock-control none --section SourceCounters --section WarpStateStats --sampling-interval 0 \
    --page source --print-source sass --csv --target-processes all -k regex:wgmma -c 5 \
    $T sweep --shape 512x512x512 --dtype bf16 --config $name --db /tmp/ncu-lc$i-s.db --timeout 300 > $Z/ncu/$name-source.csv 2> $Z/ncu/$name-source.err
  stamp $? >> $Z/ncu/$name-source.err
done
run_end
