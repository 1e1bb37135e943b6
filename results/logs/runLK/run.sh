# Run LK: branch wgmma-split-epilogue with the kernel's tail and head changed: the TMA store's last
# wait is for its reads of shared memory only (run LD's samples put 3% of the persistent 512^3
# tile's on the CCTL.IVALL after the wait for the writes), and thread 0 prefetches the tensor
# maps before it initializes the barriers. Every GPU test on the new build (with run LJ's
# corrected instance counts); the A/B against a9d2130 (run LJ's build); then k_interleave 2
# beside its k_interleave 1 twin and the fastest config at M = 8 and 32 (N = K = 4096), which
# decides whether the sweep lists both.
set -u
. scripts/run-lib.sh
run_begin lk 470
OUT=$Z/logs timeout $(left 150) bash scripts/gpu-test.sh > $Z/logs/gpu-test-summary.txt 2>&1; stamp $? >> $Z/logs/gpu-test-summary.txt
ab_rounds results/logs/runLK/ab-configs.txt 35
for s in 8x4096x4096 32x4096x4096; do
  sweep_list $s bf16 wgmma results/logs/runLK/configs-$s.txt 45
done
run_end
