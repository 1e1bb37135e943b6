set -u
Z=$OUT/z4; mkdir -p $Z/logs
t0=$(date +%s)
left() { local l=$(( 560 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; echo "cores $(nproc)"; dist/bin/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc COALESCE_REQUIRE_GPU=1
# The split-K tests on the build whose reduce is a programmatic dependent launch.
timeout $(left 60) dist/bin/splitk_test > $Z/logs/splitk_test.txt 2>&1; stamp $? >> $Z/logs/splitk_test.txt
timeout $(left 120) dist/bin/mma_test --gtest_filter='*Split*' > $Z/logs/mma_test_split.txt 2>&1; stamp $? >> $Z/logs/mma_test_split.txt
timeout $(left 120) dist/bin/wgmma_test --gtest_filter='*Split*' > $Z/logs/wgmma_test_split.txt 2>&1; stamp $? >> $Z/logs/wgmma_test_split.txt
timeout $(left 60) dist/bin/compiler_runtime_test > $Z/logs/compiler_runtime_test.txt 2>&1; stamp $? >> $Z/logs/compiler_runtime_test.txt
# A/B on one GPU: the fastest split configs per problem, each measured by the previous build
# (reduce launched plainly: dist/old/coalesce-tune) and by this one, alternating, into two databases.
for round in 1 2; do
  for side in old new; do
    bin=dist/bin/coalesce-tune; [ $side = old ] && bin=dist/old/coalesce-tune
    grep -v '^#' results/logs/runZ/ab-configs.txt | while read dt m rest; do
      cfgs=$(for c in $rest; do printf -- '--config %s ' $c; done)
      timeout -s INT $(left 60) $bin sweep --shape ${m}x4096x4096 --dtype $dt $cfgs -j 16 --db $Z/$side-$round.db >> $Z/logs/ab-$side-$round.txt 2>&1
    done
    stamp $? >> $Z/logs/ab-$side-$round.txt
  done
done
stamp 0 > $Z/done.txt
tar czf $OUT/z4.tgz -C $OUT z4 && rm -rf $Z
