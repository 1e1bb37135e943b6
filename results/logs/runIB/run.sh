set -u
Z=$OUT/ib; mkdir -p $Z/logs $Z/ncu
t0=$(date +%s)
left() { local l=$(( 570 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; echo "cores $(nproc)"; dist/bin/coalesce-tune --version; dist/old/coalesce-tune --version; ncu --version | tail -1; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
# 1. Every GPU test and example on the build whose split-K reduce has the loads of up to 8 slices
#    in flight at once (kernels/elementwise.cuh, splitk_reduce_vec): none may skip.
OUT=$Z/logs timeout $(left 200) bash scripts/gpu-test.sh > $Z/logs/gpu-test-summary.txt 2>&1; stamp $? >> $Z/logs/gpu-test-summary.txt
# 2. A/B in the steady state (3000 samples per method back to back): the build before (dist/old)
#    against this one (dist/bin), alternating, two rounds, old first.
A=results/logs/runIB/ab-configs.txt
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
# 3. Nsight Compute (speed of light, launch statistics): the M = 64 split GEMM and its reduce.
timeout $(left 40) ncu --clock-control none --target-processes all --section SpeedOfLight --section LaunchStats -k 'regex:wgmma|splitk' -c 4 \
  dist/bin/coalesce-tune sweep --shape 64x4096x4096 --dtype bf16 --config wgmma_bf16_bm64_bn64_bk64_s6_wg1_cm1_cn1_p0_g8_ts0_sk3_bias_gelu --db /tmp/ncu.db --timeout 300 > $Z/ncu-64.txt 2>&1
echo "$(stamp $?)" >> $Z/ncu-64.txt
stamp 0 > $Z/done.txt
tar czf $OUT/ib.tgz -C $OUT ib && rm -rf $Z
