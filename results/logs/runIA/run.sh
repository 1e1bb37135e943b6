set -u
Z=$OUT/ia; mkdir -p $Z/logs $Z/ncu
t0=$(date +%s)
left() { local l=$(( 570 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; echo "cores $(nproc)"; dist/bin/coalesce-tune --version; dist/old/coalesce-tune --version; ncu --version | tail -1; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
# 1. Every GPU test and example on the build whose split-K GEMM kernels launch the reduce early
#    (griddepcontrol.launch_dependents at their start): none may skip.
OUT=$Z/logs timeout $(left 200) bash scripts/gpu-test.sh > $Z/logs/gpu-test-summary.txt 2>&1; stamp $? >> $Z/logs/gpu-test-summary.txt
# 2. A/B in the steady state (3000 samples per method back to back): the build before (dist/old)
#    against this one (dist/bin), alternating, two rounds, old first.
A=results/logs/runIA/ab-configs.txt
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
# 3. Nsight Compute (speed of light, launch statistics; one pass per kernel, clocks left alone):
#    what cuBLAS launches at the shapes the issue has not met, and the durations of ours.
for s in 64x4096x4096:bf16 128x4096x4096:bf16 512x512x512:bf16 128x4096x4096:f32; do
  shape=${s%%:*}; dt=${s##*:}
  timeout $(left 40) ncu --clock-control none --section SpeedOfLight --section LaunchStats -c 12 \
    dist/bin/coalesce-bench --shape $shape --dtype $dt --method cublas_gemm --min-samples 2 --max-samples 2 > $Z/ncu/cublas-$shape-$dt.txt 2>&1
  echo "$(stamp $?)" >> $Z/ncu/cublas-$shape-$dt.txt
done
for c in 64x4096x4096:wgmma_bf16_bm64_bn64_bk64_s6_wg1_cm1_cn1_p0_g8_ts0_sk3_bias_gelu 512x512x512:wgmma_bf16_bm64_bn64_bk64_s6_wg1_cm1_cn1_p1_g8_ts1_bias_gelu; do
  shape=${c%%:*}; name=${c##*:}
  timeout $(left 40) ncu --clock-control none --target-processes all --section SpeedOfLight --section LaunchStats -k 'regex:wgmma|splitk' -c 4 \
    dist/bin/coalesce-tune sweep --shape $shape --dtype bf16 --config $name --db /tmp/ncu.db --timeout 300 > $Z/ncu/ours-$shape.txt 2>&1
  echo "$(stamp $?)" >> $Z/ncu/ours-$shape.txt
done
stamp 0 > $Z/done.txt
tar czf $OUT/ia.tgz -C $OUT ia && rm -rf $Z
