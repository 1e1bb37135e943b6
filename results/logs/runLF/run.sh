# Run LF: where the f32 simt main loop's time goes at M = 128 (split 8), beside cuBLAS's SIMT
# kernel. Nsight Compute (clocks left alone): our winner's per-SASS-instruction stall samples
# (two launches), and the warp-state and instruction sections of both kernels.
set -u
. scripts/run-lib.sh
run_begin lf 240
ncu --version | tail -1 >> $Z/env.txt 2>&1
T=dist/bin/coalesce-tune
B=dist/bin/coalesce-bench
mkdir -p $Z/ncu
name=simt_f32_bm128_bn256_bk16_wm128_wn32_tm16_tn8_s4_v4_g8_o1_sk8_bias_gelu
timeout $(left 80) ncu --clock-control none --section SourceCounters --section WarpStateStats \
  --page source --print-source sass --csv --target-processes all -k regex:simt -c 2 \
  $T sweep --shape 128x4096x4096 --dtype f32 --family simt --config $name --db /tmp/ncu-lf1.db --timeout 300 > $Z/ncu/$name-source.csv 2> $Z/ncu/$name-source.err
stamp $? >> $Z/ncu/$name-source.err
timeout $(left 60) ncu --clock-control none --section WarpStateStats --section InstructionStats --section SpeedOfLight --section ComputeWorkloadAnalysis \
  --target-processes all -k regex:simt -c 2 \
  $T sweep --shape 128x4096x4096 --dtype f32 --family simt --config $name --db /tmp/ncu-lf2.db --timeout 300 > $Z/ncu/$name-details.txt 2>&1
stamp $? >> $Z/ncu/$name-details.txt
timeout $(left 60) ncu --clock-control none --section WarpStateStats --section InstructionStats --section SpeedOfLight --section ComputeWorkloadAnalysis \
  -k regex:sgemm -c 2 $B --shape 128x4096x4096 --method cublas_gemm --min-samples 2 --max-samples 2 > $Z/ncu/cublas-details.txt 2>&1
stamp $? >> $Z/ncu/cublas-details.txt
run_end
