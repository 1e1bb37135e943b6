# Run LN: run LM's cuBLAS profile caught the harness's fp64 reference GEMM (its kernel filter
# matched "gemm"); this takes cuBLAS's SIMT kernel by name. Nsight Compute (clocks left alone):
# the full set for cutlass_80_simt_sgemm_256x128_8x4 at 128x4096x4096 f32, then the stall samples
# per SASS instruction of it and of our M = 128 winner's split GEMM (three launches each): the
# SASS of cuBLAS's SIMT main loop, which this machine's libraries do not hold as SASS. (ncu's -k matches
# the function's base name, Kernel2, cutlass's template: the first try filtered on simt_sgemm and
# profiled nothing of cuBLAS's.)
set -u
. scripts/run-lib.sh
run_begin ln 240
ncu --version | tail -1 >> $Z/env.txt 2>&1
T=dist/bin/coalesce-tune
B=dist/bin/coalesce-bench
mkdir -p $Z/ncu
timeout $(left 60) ncu --clock-control none --set full -k regex:Kernel2 -c 1 \
  $B --shape 128x4096x4096 --dtype f32 --method cublas_gemm --min-samples 2 --max-samples 2 > $Z/ncu/cublas-full.txt 2>&1
stamp $? >> $Z/ncu/cublas-full.txt
timeout $(left 60) ncu --clock-control none --section SourceCounters --section WarpStateStats \
  --page source --print-source sass --csv -k regex:Kernel2 -c 3 \
  $B --shape 128x4096x4096 --dtype f32 --method cublas_gemm --min-samples 3 --max-samples 3 > $Z/ncu/cublas-source.csv 2> $Z/ncu/cublas-source.err
stamp $? >> $Z/ncu/cublas-source.err
name=simt_f32_bm128_bn256_bk16_wm128_wn32_tm16_tn8_s4_v4_g8_o1_sk8_bias_gelu
timeout $(left 80) ncu --clock-control none --section SourceCounters --section WarpStateStats \
  --page source --print-source sass --csv --target-processes all -k regex:simt_f32 -c 3 \
  $T sweep --shape 128x4096x4096 --dtype f32 --family simt --config $name --db /tmp/ncu-ln.db --timeout 300 > $Z/ncu/$name-source.csv 2> $Z/ncu/$name-source.err
stamp $? >> $Z/ncu/$name-source.err
run_end
