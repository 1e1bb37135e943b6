# Run MA: the swapped tile's C staged in shared memory and stored 16 bytes at a time (run LZ's
# phase stamps put ~700 cycles a block on its 2-byte stores from registers). First every GPU
# test (a skip fails), among them wgmma_phases_test (its table also in logs/phases.txt). Then
# sweeps over lists of configs (configs-SHAPE-bf16.txt beside this script): at 512^3 every legal
# unpaired unsplit swapped tile; at M = 64 the unpaired unsplit swapped 32- and 64-row tiles and
# the shape's fastest config. Last the A/B of run LZ's build (dist/old) against this one on ab.txt.
set -u
. scripts/run-lib.sh
run_begin ma 560
timeout -s INT $(left 240) bash scripts/gpu-test.sh > $Z/logs/gpu-test.txt 2>&1
echo "gpu-test $(stamp $?)" >> $Z/logs/done.txt
cp $OUT/gpu-tests.log $Z/logs/ 2>/dev/null
COALESCE_REQUIRE_GPU=1 timeout $(left 60) dist/bin/wgmma_phases_test --gtest_color=no > $Z/logs/phases.txt 2>&1
echo "phases $(stamp $?)" >> $Z/logs/done.txt
sweep_list 512x512x512 bf16 wgmma results/logs/runMA/configs-512-bf16.txt 100
sweep_list 64x4096x4096 bf16 wgmma results/logs/runMA/configs-64-bf16.txt 90
OLD_TUNE=dist/old/coalesce-tune ab_rounds results/logs/runMA/ab.txt 40
echo "ab $(stamp 0)" >> $Z/logs/done.txt
run_end
