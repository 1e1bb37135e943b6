set -u
Z=$OUT/ha; mkdir -p $Z/logs
t0=$(date +%s)
left() { local l=$(( 560 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; echo "cores $(nproc)"; dist/bin/coalesce-tune --version; python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
T=dist/bin/coalesce-tune
# 1. The planted hazards three more times, each count printed (the new kWgmmaHazardReleaseInFlight
#    asserted on five tiles), then every GPU test and example on this build: none may skip.
timeout $(left 60) dist/bin/wgmma_test --gtest_filter='*PlantedHazard*' --gtest_repeat=3 > $Z/logs/hazards.txt 2>&1; stamp $? >> $Z/logs/hazards.txt
OUT=$Z/logs timeout $(left 200) bash scripts/gpu-test.sh > $Z/logs/gpu-test-summary.txt 2>&1; stamp $? >> $Z/logs/gpu-test-summary.txt
# 2. Run GF's open question: torch.mm's TF32 GEMM 5% faster than our cublas_gemm. Our baselines in
#    the steady state beside the tf32 winner, the cuBLAS kernel our cublas_gemm launches (ncu), then
#    torch.mm timed with the spin, queued without it, and both (probe.py); bf16 as the control.
c=wgmma_tf32_bm256_bn128_bk32_s4_wg2_cm1_cn1_p0_g8_ts0
timeout -s INT $(left 45) $T sweep --shape 4096 --dtype tf32 --family wgmma --config ${c}_bias_gelu --min-samples 3000 --max-samples 3000 --db $Z/ha.db > $Z/logs/sweep-tf32.txt 2>&1
echo "sweep tf32 $(stamp $?)" >> $Z/logs/done.txt
for d in tf32 bf16; do
  timeout $(left 40) ncu --clock-control none -c 2 --metrics gpu__time_duration.sum dist/bin/coalesce-bench --shape 4096 --dtype $d --method cublas_gemm --min-samples 1 --max-samples 1 > $Z/logs/ncu-cublas-$d.txt 2>&1
  echo "ncu $d $(stamp $?)" >> $Z/logs/done.txt
  timeout $(left 60) python3 results/logs/runHA/probe.py $d 4096 > $Z/logs/probe-$d.txt 2>&1
  echo "probe $d $(stamp $?)" >> $Z/logs/done.txt
done
stamp 0 > $Z/done.txt
tar czf $OUT/ha.tgz -C $OUT ha && rm -rf $Z
