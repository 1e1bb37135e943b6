set -u
Z=$OUT/fa; mkdir -p $Z/logs
t0=$(date +%s)
left() { local l=$(( 570 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; echo "cores $(nproc)"; dist/bin/coalesce-tune --version; dist/old/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
# The GELU accuracy test first (the new normal_cdf against fp64, band by band).
COALESCE_REQUIRE_GPU=1 timeout $(left 60) dist/bin/epilogue_test > $Z/logs/epilogue_test.txt 2>&1; stamp $? >> $Z/logs/epilogue_test.txt
# Every GPU test and example on the new build.
OUT=$Z/logs timeout $(left 200) bash scripts/gpu-test.sh > $Z/logs/gpu-test-summary.txt 2>&1; stamp $? >> $Z/logs/gpu-test-summary.txt
# A/B on one GPU: git e7b6f2c (dist/old) against this build, alternating, two rounds, each
# round and side into its own database.
A=dist/ab-configs.txt
for round in 1 2; do
  for side in old new; do
    bin=dist/bin/coalesce-tune; [ $side = old ] && bin=dist/old/coalesce-tune
    grep -v '^#' $A | while read shape dt rest; do
      cfgs=$(for c in $rest; do printf -- '--config %s ' $c; done)
      timeout -s INT $(left 60) $bin sweep --shape $shape --dtype $dt $cfgs -j 16 --db $Z/$side-$round.db >> $Z/logs/ab-$side-$round.txt 2>&1
      echo "$shape $dt rc=$? $(( $(date +%s)-t0 ))s" >> $Z/logs/ab-$side-$round.txt
    done
  done
done
stamp 0 > $Z/done.txt
tar czf $OUT/fa.tgz -C $OUT fa && rm -rf $Z
