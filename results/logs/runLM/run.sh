# Run LM: why simt's f32 main loop is 8-12% slower than cuBLAS's SIMT kernel at the same tile and
# split (run LB). Nsight Compute (clocks left alone): the full set of sections, warp-state
# breakdown included, for our M = 128 winner's split GEMM (128x256, BK 16, 4 stages, split 8) and
# for cuBLAS's GEMM at 128x4096x4096 f32 (one launch each, caches flushed before it); then every
# kernel's duration in the sweep's own sequence with the caches left alone (--cache-control none:
# the partial sums as L2 holds them for the reduce, as in the timed runs), three samples a method.
set -u
. scripts/run-lib.sh
run_begin lm 300
ncu --version | tail -1 >> $Z/env.txt 2>&1
T=dist/bin/coalesce-tune
B=dist/bin/coalesce-bench
mkdir -p $Z/ncu
name=simt_f32_bm128_bn256_bk16_wm128_wn32_tm16_tn8_s4_v4_g8_o1_sk8_bias_gelu
timeout $(left 70) ncu --clock-control none --set full --target-processes all -k regex:simt -c 1 \
  $T sweep --shape 128x4096x4096 --dtype f32 --family simt --config $name --db /tmp/ncu-lm1.db --timeout 300 > $Z/ncu/$name-full.txt 2>&1
stamp $? >> $Z/ncu/$name-full.txt
timeout $(left 70) ncu --clock-control none --set full -k regex:'sgemm|gemm|cutlass' -c 1 \
  $B --shape 128x4096x4096 --dtype f32 --method cublas_gemm --min-samples 2 --max-samples 2 > $Z/ncu/cublas-full.txt 2>&1
stamp $? >> $Z/ncu/cublas-full.txt
timeout $(left 120) ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum,launch__grid_size \
  --csv --page raw --target-processes all -c 400 \
  $T sweep --shape 128x4096x4096 --dtype f32 --family simt --config $name --min-samples 3 --max-samples 3 \
  --db /tmp/ncu-lm2.db --timeout 300 > $Z/ncu/sequence.csv 2> $Z/ncu/sequence.err
stamp $? >> $Z/ncu/sequence.err
run_end
