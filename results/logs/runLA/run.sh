# Run LA: branch simt-cluster-reduce (simt split-K reduced in the tile's cluster, reduce = 2).
set -u
. scripts/run-lib.sh
run_begin la 480
ncu --version | tail -1 >> $Z/env.txt 2>&1
T=dist/bin/coalesce-tune
# 1. Every GPU test and example (the reduction in the cluster's instances and planted bugs among
#    them): none may skip.
OUT=$Z/logs timeout $(left 170) bash scripts/gpu-test.sh > $Z/logs/gpu-test-summary.txt 2>&1; stamp $? >> $Z/logs/gpu-test-summary.txt
# 2. f32 M = 128 and 256: the five fastest simt configs ever measured with the workspace reduce,
#    the same tiles reduced in their cluster (rd2), and a few other splits, --steady-top 3.
sweep_list 128x4096x4096 f32 simt results/logs/runLA/configs-f32-128x4096x4096.txt 100
sweep_list 256x4096x4096 f32 simt results/logs/runLA/configs-f32-256x4096x4096.txt 120
# 3. Nsight Compute (clocks left alone): the M = 128 winner's tile reduced in its cluster of 8,
#    launch and occupancy (do 16 clusters of 8 co-schedule?) and speed of light.
name=simt_f32_bm128_bn256_bk16_wm128_wn32_tm16_tn8_s4_v4_g8_o1_sk8_rd2_bias_gelu
mkdir -p $Z/ncu
timeout $(left 60) ncu --clock-control none --section LaunchStats --section Occupancy --section SpeedOfLight \
  --section MemoryWorkloadAnalysis --page details --target-processes all -k regex:simt -c 1 \
  $T sweep --shape 128x4096x4096 --dtype f32 --family simt --config $name --db /tmp/ncu-la.db --timeout 300 > $Z/ncu/$name.txt 2>&1
stamp $? >> $Z/ncu/$name.txt
run_end
