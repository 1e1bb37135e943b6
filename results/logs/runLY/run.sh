# Run LY: bf16 512^3's block, phase by phase, and two changes aimed at it. First every GPU test
# (a skip fails), among them wgmma_phases_test: the 512^3 swapped tiles built with per-block
# phase stamps (docs/kernels.md, "Phase stamps"), its table also in logs/phases.txt. Then sweeps
# over lists of configs (configs-SHAPE-bf16.txt beside this script): at 512^3 every legal
# interleaved swapped tile as a 2x1 cluster's pair sharing B by K rows (cm2), the unpaired 16-,
# 32- and 48-row ones and the earlier 64x64 winner; at M = 64 every legal pair and the shape's
# fastest config. Last the A/B of main's build (dist/old) against this one on ab.txt (the swapped
# tile's bias now loaded before its main loop).
set -u
. scripts/run-lib.sh
run_begin ly 560
timeout -s INT $(left 240) bash scripts/gpu-test.sh > $Z/logs/gpu-test.txt 2>&1
echo "gpu-test $(stamp $?)" >> $Z/logs/done.txt
cp $OUT/gpu-tests.log $Z/logs/ 2>/dev/null
COALESCE_REQUIRE_GPU=1 timeout $(left 60) dist/bin/wgmma_phases_test --gtest_color=no > $Z/logs/phases.txt 2>&1
echo "phases $(stamp $?)" >> $Z/logs/done.txt
sweep_list 512x512x512 bf16 wgmma results/logs/runLY/configs-512-bf16.txt 100
sweep_list 64x4096x4096 bf16 wgmma results/logs/runLY/configs-64-bf16.txt 90
OLD_TUNE=dist/old/coalesce-tune ab_rounds results/logs/runLY/ab.txt 40
echo "ab $(stamp 0)" >> $Z/logs/done.txt
run_end
