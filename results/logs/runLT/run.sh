# Run LT (prepared, not yet run): branch mma-3xtf32-slice-sums, 3xTF32 summing each K slice's
# products (not each k-step's) before the FADDs. Every GPU test (mma_test's f32 tiles now include
# two with 128-byte slices), the A/B against main's build (pack with --old <main's coalesce-tune>)
# on main's four winners, then the exhaustive f32 mma sweep at 4096^3, where 128- and 256-byte
# slices are now legal (176 configs against 88).
set -u
. scripts/run-lib.sh
run_begin lt 560
OUT=$Z/logs timeout $(left 120) bash scripts/gpu-test.sh > $Z/logs/gpu-test-summary.txt 2>&1; stamp $? >> $Z/logs/gpu-test-summary.txt
ab_rounds results/logs/runLT/ab-configs.txt 40
timeout -s INT $(left 120) dist/bin/coalesce-tune sweep --shape 4096 --dtype f32 --family mma --steady-top 3 -j 16 \
  --db $Z/lt.db > $Z/logs/sweep-4096-f32-mma.txt 2>&1
echo "sweep 4096 $(stamp $?)" >> $Z/logs/done.txt
run_end
