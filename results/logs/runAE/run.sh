set -u
Z=$OUT/ae; mkdir -p $Z/logs
t0=$(date +%s)
left() { local l=$(( 560 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; echo "cores $(nproc)"; dist/bin/coalesce-tune --version; dist/old/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
# The GELU accuracy test first; nothing else if it fails.
COALESCE_REQUIRE_GPU=1 timeout $(left 60) dist/bin/epilogue_test > $Z/logs/epilogue_test.txt 2>&1; rc=$?
stamp $rc >> $Z/logs/epilogue_test.txt; [ $rc = 0 ] || exit 1
# Every GPU test and example on the build with gelu_exact in every fused kernel.
OUT=$Z/logs timeout $(left 150) bash scripts/gpu-test.sh > $Z/logs/gpu-test-summary.txt 2>&1; stamp $? >> $Z/logs/gpu-test-summary.txt
# A/B on one GPU: git 1e36669 (erff in the fused epilogue, dist/old) against this build
# (gelu_exact), alternating, two rounds, each into its own database.
A=results/logs/runAE/ab-configs.txt
for round in 1 2; do
  for side in old new; do
    bin=dist/bin/coalesce-tune; [ $side = old ] && bin=dist/old/coalesce-tune
    grep -v '^#' $A | while read shape dt rest; do
      cfgs=$(for c in $rest; do printf -- '--config %s ' $c; done)
      timeout -s INT $(left 60) $bin sweep --shape $shape --dtype $dt $cfgs -j 16 --db $Z/$side-$round.db >> $Z/logs/ab-$side-$round.txt 2>&1
    done
    stamp $? >> $Z/logs/ab-$side-$round.txt
  done
done
# The new build's full wgmma sweep at 4096^3 in bf16 (every legal config, ping-pong included).
timeout -s INT $(left 200) dist/bin/coalesce-tune sweep --shape 4096 --dtype bf16 --family wgmma -j 16 --db $Z/new-1.db > $Z/logs/sweep-bf16-4096.txt 2>&1; stamp $? >> $Z/logs/sweep-bf16-4096.txt
stamp 0 > $Z/done.txt
tar czf $OUT/ae.tgz -C $OUT ae && rm -rf $Z
