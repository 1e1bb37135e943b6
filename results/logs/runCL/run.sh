set -u
D=$OUT/cl; mkdir -p $D
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; /usr/local/cuda/bin/compute-sanitizer --version; } > $D/env.txt 2>&1
# The new test alone, then under compute-sanitizer: memcheck (out-of-bounds and misaligned
# accesses, including shared memory) and synccheck (barrier misuse) on the cluster and
# epilogue-warp tiles at the edge shapes.
timeout 120 dist/bin/wgmma_test --gtest_filter='*ClustersAndEpilogueWarps*' > $D/plain.txt 2>&1; echo "plain rc=$?" >> $D/done.txt
timeout 200 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 9 dist/bin/wgmma_test --gtest_filter='*ClustersAndEpilogueWarps*' > $D/memcheck.txt 2>&1; echo "memcheck rc=$?" >> $D/done.txt
timeout 200 /usr/local/cuda/bin/compute-sanitizer --tool synccheck --error-exitcode 9 dist/bin/wgmma_test --gtest_filter='*ClustersAndEpilogueWarps*' > $D/synccheck.txt 2>&1; echo "synccheck rc=$?" >> $D/done.txt
tar czf $OUT/cl.tgz -C $OUT cl && rm -rf $D
