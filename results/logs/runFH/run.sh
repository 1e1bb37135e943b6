set -u
Z=$OUT/fh; mkdir -p $Z/logs
t0=$(date +%s)
left() { local l=$(( 450 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; echo "cores $(nproc)"; dist/bin/coalesce-tune --version; dist/old/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
# The GELU's accuracy (P(t) by Estrin's scheme), then every GPU test and example.
COALESCE_REQUIRE_GPU=1 timeout $(left 60) dist/bin/epilogue_test > $Z/logs/epilogue_test.txt 2>&1; stamp $? >> $Z/logs/epilogue_test.txt
OUT=$Z/logs timeout $(left 150) bash scripts/gpu-test.sh > $Z/logs/gpu-test-summary.txt 2>&1; stamp $? >> $Z/logs/gpu-test-summary.txt
# A/B in the steady state (3000 samples per method back to back): git 850661f (dist/old, P(t)
# by Horner's rule) against this build (Estrin's scheme), alternating, two rounds.
A=dist/ab-configs.txt
for round in 1 2; do
  for side in old new; do
    bin=dist/bin/coalesce-tune; [ $side = old ] && bin=dist/old/coalesce-tune
    grep -v '^#' $A | while read shape dt rest; do
      cfgs=$(for c in $rest; do printf -- '--config %s ' $c; done)
      timeout -s INT $(left 60) $bin sweep --shape $shape --dtype $dt $cfgs -j 16 --min-samples 3000 --max-samples 3000 --db $Z/$side-$round.db >> $Z/logs/ab-$side-$round.txt 2>&1
      echo "$shape $dt rc=$? $(( $(date +%s)-t0 ))s" >> $Z/logs/ab-$side-$round.txt
    done
  done
done
stamp 0 > $Z/done.txt
tar czf $OUT/fh.tgz -C $OUT fh && rm -rf $Z
