# Run LJ: branch wgmma-split-epilogue: k_interleave = 2, the two consumers that take alternate K
# slices of the whole tile each add and finish half its rows (the epilogue on both warpgroups,
# two warps per scheduler; at bf16 512^3 each block holds one tile, and run LH measured the
# persistent tile's epilogue at 0.8-1.2 us). Every GPU test on the new build; the 512^3 configs
# of k_interleave 2 beside their k_interleave 1 twins and the fastest configs so far, then the
# three fastest in the steady state; the same at M = 64 and 128 (N = K = 4096); then two more
# alternating rounds of the 512^3 twins (the same build on both sides of ab_rounds).
set -u
. scripts/run-lib.sh
run_begin lj 470
OUT=$Z/logs timeout $(left 150) bash scripts/gpu-test.sh > $Z/logs/gpu-test-summary.txt 2>&1; stamp $? >> $Z/logs/gpu-test-summary.txt
for s in 512x512x512 64x4096x4096 128x4096x4096; do
  sweep_list $s bf16 wgmma results/logs/runLJ/configs-$s.txt 50
done
OLD_TUNE=dist/bin/coalesce-tune ab_rounds results/logs/runLJ/ab-configs.txt 30
run_end
