# Run KI: the last build (f093d19 and its records): each bf16 skinny shape's five fastest configs
# in the steady state on devices 45-51 and the 64x64 split-2 tile reduced in its cluster, with
# --steady-top 3 (the A/B of run KH is not merged; these rows are).
set -u
. scripts/run-lib.sh
run_begin ki 120
for s in 64x4096x4096 32x4096x4096 128x4096x4096 512x512x512 8x4096x4096; do
  sweep_list $s bf16 wgmma results/logs/runKI/configs-$s.txt 25
done
run_end
