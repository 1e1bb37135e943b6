# Run KF: the session's last build (main after backing out run KA's and KB's schedules; the
# kernels' SASS identical to run KE's build): every GPU test, then the five fastest configs in
# the steady state on devices 45-50 at each bf16 skinny shape, again, with --steady-top 3.
set -u
. scripts/run-lib.sh
run_begin kf 330
OUT=$Z/logs timeout $(left 150) bash scripts/gpu-test.sh > $Z/logs/gpu-test-summary.txt 2>&1; stamp $? >> $Z/logs/gpu-test-summary.txt
for s in 64x4096x4096 128x4096x4096 512x512x512 32x4096x4096 8x4096x4096 256x4096x4096; do
  sweep_list $s bf16 wgmma results/logs/runKF/configs-$s.txt 30
done
run_end
