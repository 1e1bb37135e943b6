# Run LW: the swapped tile 48 rows high (wgmma's n48; cuBLAS's bf16 512^3 tile is "64x48" on two
# consumer warpgroups, run LC) and the swapped tile on two consumers taking alternate K slices
# (k_interleave 2). First every GPU test (the new tiles' first run; a skip fails), then bf16
# sweeps over lists of configs (configs-SHAPE-bf16.txt beside this script, each with the shape's
# fastest config so far, measured again in the same sweep): at 512^3 every legal 48-row swapped
# config unsplit and split 2 and every interleaved swapped one unsplit and split 2 (74); at
# N = K = 4096 and M = 8, 32 and 64 the interleaved swapped tiles of 16, 32 and 64 rows (any
# split, one block per tile) and at M = 64 the 48-row ones unsplit and split 2.
set -u
. scripts/run-lib.sh
run_begin lw 560
timeout -s INT $(left 200) bash scripts/gpu-test.sh > $Z/logs/gpu-test.txt 2>&1
echo "gpu-test $(stamp $?)" >> $Z/logs/done.txt
cp $OUT/gpu-tests.log $Z/logs/ 2>/dev/null
sweep_list 512x512x512 bf16 wgmma results/logs/runLW/configs-512-bf16.txt 120
for m in 8 32 64; do
  sweep_list ${m}x4096x4096 bf16 wgmma results/logs/runLW/configs-$m-bf16.txt 70
done
run_end
