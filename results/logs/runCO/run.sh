set -u
D=$OUT/co; mkdir -p $D
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version --format=csv; } > $D/env.txt 2>&1
# The review's refactor (one pair count, one swizzled-word address, the read flush's grid from
# the SM count): the wgmma and timing GPU tests on it.
timeout 200 dist/bin/wgmma_test > $D/wgmma_test.txt 2>&1; echo "wgmma_test rc=$?" >> $D/done.txt
timeout 100 dist/bin/timing_test > $D/timing_test.txt 2>&1; echo "timing_test rc=$?" >> $D/done.txt
tar czf $OUT/co.tgz -C $OUT co && rm -rf $D
