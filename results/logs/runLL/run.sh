# Run LL: bf16 512^3 after k_interleave 2 (main, b6c656b). Nsight Compute (clocks left alone,
# caches flushed before each profiled kernel) on the fastest config, 64x64 with both interleaved
# consumers finishing half the tile: the full set of sections (three launches), then the stall
# samples per SASS instruction (twenty launches), to set beside runs LC and LD; then k_interleave
# 2 with a 1x2 cluster (A multicast to the pair) and the narrow 64x32 tile beside the fastest
# configs, with --steady-top 3.
set -u
. scripts/run-lib.sh
run_begin ll 420
ncu --version | tail -1 >> $Z/env.txt 2>&1
T=dist/bin/coalesce-tune
mkdir -p $Z/ncu
name=wgmma_bf16_bm64_bn64_bk64_s8_wg2_cm1_cn1_p1_g8_ts1_ki2_bias_gelu
timeout $(left 80) ncu --clock-control none --set full --target-processes all -k regex:wgmma -c 3 \
  $T sweep --shape 512x512x512 --dtype bf16 --config $name --db /tmp/ncu-ll1.db --timeout 300 > $Z/ncu/$name-full.txt 2>&1
stamp $? >> $Z/ncu/$name-full.txt
timeout $(left 120) ncu --clock-control none --section SourceCounters --section WarpStateStats \
  --page source --print-source sass --csv --target-processes all -k regex:wgmma -c 20 \
  $T sweep --shape 512x512x512 --dtype bf16 --config $name --db /tmp/ncu-ll2.db --timeout 300 > $Z/ncu/$name-source.csv 2> $Z/ncu/$name-source.err
stamp $? >> $Z/ncu/$name-source.err
sweep_list 512x512x512 bf16 wgmma results/logs/runLL/configs-512x512x512.txt 60
run_end
