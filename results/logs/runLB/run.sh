# Run LB: where f32 M = 128 and 256 spend their time. Nsight Compute (clocks left alone, caches
# flushed between kernels, one pass: duration, grid, block, registers) over every kernel of a
# short sweep (3 samples a method) of each shape's winner with its baselines: the split GEMM, the
# reduce kernel, cuBLAS's GEMM, eager's bias + GELU kernel.
set -u
. scripts/run-lib.sh
run_begin lb 300
ncu --version | tail -1 >> $Z/env.txt 2>&1
T=dist/bin/coalesce-tune
mkdir -p $Z/ncu
for w in 128:sk8 256:sk4; do
  m=${w%%:*}; sk=${w##*:}
  name=simt_f32_bm128_bn256_bk16_wm128_wn32_tm16_tn8_s4_v4_g8_o1_${sk}_bias_gelu
  timeout $(left 130) ncu --clock-control none --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,launch__cluster_dim_x \
    --csv --page raw --target-processes all -c 400 \
    $T sweep --shape ${m}x4096x4096 --dtype f32 --family simt --config $name --min-samples 3 --max-samples 3 \
    --db /tmp/ncu-lb-$m.db --timeout 300 > $Z/ncu/m$m.csv 2> $Z/ncu/m$m.err
  stamp $? >> $Z/ncu/m$m.err
done
run_end
