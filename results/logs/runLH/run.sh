# Run LH: what the fused epilogue costs our fastest kernels, each swept with --epilogue none beside
# bias_gelu (the baselines follow the epilogue: cuBLAS's GEMM alone is the same in both), in the
# steady state: bf16 512^3 and M = 64, f32 M = 128.
set -u
. scripts/run-lib.sh
run_begin lh 150
T=dist/bin/coalesce-tune
for e in none bias_gelu; do
  timeout -s INT $(left 40) $T sweep --shape 512x512x512 --dtype bf16 --epilogue $e --family wgmma --config wgmma_bf16_bm64_bn64_bk64_s8_wg1_cm1_cn1_p0_g8_ts0_sk2_rd2_$e --config wgmma_bf16_bm64_bn64_bk64_s6_wg1_cm1_cn1_p1_g8_ts1_$e --steady-top 2 -j 16 --db $Z/lh.db > $Z/logs/sweep-512-$e.txt 2>&1
  echo "512 $e $(stamp $?)" >> $Z/logs/done.txt
  timeout -s INT $(left 40) $T sweep --shape 64x4096x4096 --dtype bf16 --epilogue $e --family wgmma --config wgmma_bf16_bm64_bn64_bk64_s8_wg1_cm1_cn1_p0_g8_ts0_sk2_rd2_$e --steady-top 1 -j 16 --db $Z/lh.db > $Z/logs/sweep-64-$e.txt 2>&1
  echo "64 $e $(stamp $?)" >> $Z/logs/done.txt
done
run_end
