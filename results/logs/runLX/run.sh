# Run LX: Nsight Compute (clocks left alone, caches flushed before each profiled kernel) on run
# LW's fastest bf16 512^3 config, the swapped 32x64 tile on two interleaved consumers: the full
# set of sections (three launches), to set beside run LL's 64x64 ki2 tile (11,643-11,773 cycles
# elapsed, about 8,450 a block) and cuBLAS's 96 blocks (about 5,300 a block, run LC).
set -u
. scripts/run-lib.sh
run_begin lx 200
name=wgmma_bf16_bm32_bn64_bk64_s8_wg2_cm1_cn1_p0_g8_ts0_ki2_sab1_bias_gelu
ncu_page $name-full.txt 150 --set full --target-processes all -k regex:wgmma -c 3 \
  dist/bin/coalesce-tune sweep --shape 512x512x512 --dtype bf16 --config $name --db /tmp/ncu-lx.db --timeout 300
run_end
