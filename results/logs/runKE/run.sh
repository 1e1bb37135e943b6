# Run KE: split-K reduced in the tile's cluster (rd2) with st.async and the start's cluster
# barrier split (a3ddcf4) against the build before (cacf7c8, dist/old).
set -u
. scripts/run-lib.sh
run_begin ke 500
T=dist/bin/coalesce-tune
# 1. Every GPU test and example on this build (the cluster reduction's checks, planted bugs and
#    determinism among them): none may skip.
OUT=$Z/logs timeout $(left 150) bash scripts/gpu-test.sh > $Z/logs/gpu-test-summary.txt 2>&1; stamp $? >> $Z/logs/gpu-test-summary.txt
# 2. A/B in the steady state (3000 samples per method back to back): old (dist/old) against new
#    (dist/bin), alternating, two rounds, old first.
A=results/logs/runKE/ab-configs.txt
for round in 1 2; do
  for side in old new; do
    bin=dist/bin/coalesce-tune; [ $side = old ] && bin=dist/old/coalesce-tune
    grep -v '^#' $A | while read shape dt rest; do
      cfgs=$(for c in $rest; do printf -- '--config %s ' $c; done)
      timeout -s INT $(left 30) $bin sweep --shape $shape --dtype $dt $cfgs -j 16 --min-samples 3000 --max-samples 3000 --db $Z/$side-$round.db >> $Z/logs/ab-$side-$round.txt 2>&1
      echo "$shape $dt rc=$? $(( $(date +%s)-RUN_T0 ))s" >> $Z/logs/ab-$side-$round.txt
    done
  done
done
# 3. The new build: every legal rd2 config at each shape beside the three fastest in the steady
#    state on devices 45-48, then the three fastest again (--steady-top 3).
for s in 64x4096x4096 128x4096x4096 512x512x512 32x4096x4096 8x4096x4096; do
  cfgs=$(sed 's/^/--config /' results/logs/runKE/configs-$s.txt | tr '\n' ' ')
  timeout -s INT $(left 45) $T sweep --shape $s --dtype bf16 --family wgmma $cfgs --steady-top 3 -j 16 --db $Z/ke.db > $Z/logs/sweep-$s.txt 2>&1
  echo "sweep $s $(stamp $?)" >> $Z/logs/done.txt
done
run_end
