set -u
Z=$OUT/jf; mkdir -p $Z/logs
t0=$(date +%s)
left() { local l=$(( 430 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; echo "cores $(nproc)"; dist/bin/coalesce-tune --version; dist/old/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
# 1. Every GPU test and example on this build (the reductions with the bias loaded ahead and
#    rd1's one atom.acq_rel): none may skip.
OUT=$Z/logs timeout $(left 190) bash scripts/gpu-test.sh > $Z/logs/gpu-test-summary.txt 2>&1; stamp $? >> $Z/logs/gpu-test-summary.txt
# 2. A/B in the steady state (3000 samples per method back to back): the build before (dist/old,
#    49cfbd7) against this one (dist/bin), alternating, two rounds, old first.
A=results/logs/runJF/ab-configs.txt
for round in 1 2; do
  for side in old new; do
    bin=dist/bin/coalesce-tune; [ $side = old ] && bin=dist/old/coalesce-tune
    grep -v '^#' $A | while read shape dt rest; do
      cfgs=$(for c in $rest; do printf -- '--config %s ' $c; done)
      timeout -s INT $(left 50) $bin sweep --shape $shape --dtype $dt $cfgs -j 16 --min-samples 3000 --max-samples 3000 --db $Z/$side-$round.db >> $Z/logs/ab-$side-$round.txt 2>&1
      echo "$shape $dt rc=$? $(( $(date +%s)-t0 ))s" >> $Z/logs/ab-$side-$round.txt
    done
  done
done
stamp 0 > $Z/done.txt
tar czf $OUT/jf.tgz -C $OUT jf && rm -rf $Z
