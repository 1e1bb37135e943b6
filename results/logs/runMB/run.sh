# Run MB: the review's refactor of the swapped tile's epilogue (WgmmaSwappedEpilogue; the same
# computation, its cubins rescheduled). The wgmma GPU tests (a skip fails), then the A/B of run
# LZ's build (dist/old) against this one on ab.txt.
set -u
. scripts/run-lib.sh
run_begin mb 300
export COALESCE_REQUIRE_GPU=1
for t in wgmma_test wgmma_phases_test; do
  timeout $(left 120) dist/bin/$t --gtest_color=no > $Z/logs/$t.txt 2>&1
  echo "$t $(stamp $?)" >> $Z/logs/done.txt
done
OLD_TUNE=dist/old/coalesce-tune ab_rounds results/logs/runMB/ab.txt 40
echo "ab $(stamp 0)" >> $Z/logs/done.txt
run_end
