# Run LZ: the swapped tile's epilogue applied to every value it holds before its stores (run LY's
# phase stamps put about 150 cycles a value on the store phase: each value's GELU ran inside its
# store's branch, one chain after another). First every GPU test (a skip fails), among them
# wgmma_phases_test (its table also in logs/phases.txt: the tile with and without the epilogue,
# and with L2 left warm). Then sweeps over lists of configs (configs-SHAPE-bf16.txt beside this
# script): at 512^3 the unpaired interleaved swapped tiles, the one-consumer 32x64 and 48x64 and
# the earlier 64x64 winner; at M = 64 the unpaired swapped 32- and 64-row tiles and the shape's
# fastest config. Last the A/B of run LY's build (dist/old) against this one on ab.txt.
set -u
. scripts/run-lib.sh
run_begin lz 560
timeout -s INT $(left 240) bash scripts/gpu-test.sh > $Z/logs/gpu-test.txt 2>&1
echo "gpu-test $(stamp $?)" >> $Z/logs/done.txt
cp $OUT/gpu-tests.log $Z/logs/ 2>/dev/null
COALESCE_REQUIRE_GPU=1 timeout $(left 60) dist/bin/wgmma_phases_test --gtest_color=no > $Z/logs/phases.txt 2>&1
echo "phases $(stamp $?)" >> $Z/logs/done.txt
sweep_list 512x512x512 bf16 wgmma results/logs/runLZ/configs-512-bf16.txt 100
sweep_list 64x4096x4096 bf16 wgmma results/logs/runLZ/configs-64-bf16.txt 90
OLD_TUNE=dist/old/coalesce-tune ab_rounds results/logs/runLZ/ab.txt 40
echo "ab $(stamp 0)" >> $Z/logs/done.txt
run_end
