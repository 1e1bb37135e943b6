# Run KA: branch swap-multicast (the swapped tile in a 2x1 cluster sharing B by K rows).
set -u
. scripts/run-lib.sh
run_begin ka 560
ncu --version | tail -1 >> $Z/env.txt 2>&1
T=dist/bin/coalesce-tune
# 1. Every GPU test and example, the two new SwappedPair instances among them: none may skip.
OUT=$Z/logs timeout $(left 170) bash scripts/gpu-test.sh > $Z/logs/gpu-test-summary.txt 2>&1; stamp $? >> $Z/logs/gpu-test-summary.txt
# 2. bf16 bias+GELU: every legal swapped config with a 2x1 cluster (cm2) beside the three fastest
#    in the steady state on devices 45-47, then the three fastest again (--steady-top 3).
sweep() {
  cfgs=$(sed 's/^/--config /' results/logs/runKA/configs-$1.txt | tr '\n' ' ')
  timeout -s INT $(left $2) $T sweep --shape $1 --dtype bf16 --family wgmma $cfgs --steady-top 3 -j 16 --db $Z/ka.db > $Z/logs/sweep-$1.txt 2>&1
  echo "sweep $1 $(stamp $?)" >> $Z/logs/done.txt
}
sweep 64x4096x4096 50
sweep 32x4096x4096 45
sweep 8x4096x4096 45
sweep 128x4096x4096 45
sweep 512x512x512 45
# 3. f32 M = 128 and 256: the five fastest simt configs ever measured, with this tree.
for m in 128 256; do
  cfgs=$(sed 's/^/--config /' results/logs/runKA/configs-f32-${m}x4096x4096.txt | tr '\n' ' ')
  timeout -s INT $(left 60) $T sweep --shape ${m}x4096x4096 --dtype f32 --family simt $cfgs --steady-top 3 -j 16 --db $Z/ka.db > $Z/logs/sweep-f32-$m.txt 2>&1
  echo "sweep f32 $m $(stamp $?)" >> $Z/logs/done.txt
done
# 4. Nsight Compute (clocks left alone) of the swapped 32x64 16-stage kernel in a 2x1 cluster at
#    M = 64, to set beside run JG's cuBLAS kernel (L2 requests, cycles per slice).
name=wgmma_bf16_bm32_bn64_bk64_s16_wg1_cm2_cn1_p0_g8_ts0_sab1_bias_gelu
mkdir -p $Z/ncu
timeout $(left 60) ncu --clock-control none --set full --page raw --target-processes all -k regex:wgmma -c 1 \
  $T sweep --shape 64x4096x4096 --dtype bf16 --config $name --db /tmp/ncu-ka.db --timeout 300 > $Z/ncu/$name.txt 2>&1
stamp $? >> $Z/ncu/$name.txt
run_end
