# Run KC: where the harness's time goes at bf16 M = 64 and 512^3: each kernel's duration under
# Nsight Compute (clocks left alone, caches flushed before each profiled kernel as the harness
# flushes L2 before each sample): cuBLAS's GEMM, the unfused pair (cuBLAS + our bias-GELU
# kernel), our fastest split config's GEMM and reduce kernels, the same tile reduced in its
# cluster (reduce = 2), and at 512^3 cuBLAS and our fastest config.
set -u
. scripts/run-lib.sh
run_begin kc 300
ncu --version | tail -1 >> $Z/env.txt 2>&1
T=dist/bin/coalesce-tune
B=dist/bin/coalesce-bench
M=gpu__time_duration.sum,sm__cycles_active.avg,launch__grid_size,launch__cluster_size,dram__bytes_read.sum,lts__t_requests_srcunit_tex.sum
mkdir -p $Z/ncu
prof() {  # name, ncu args... -- the command after them
  local n=$1; shift
  timeout $(left 60) ncu --clock-control none --metrics $M "$@" > $Z/ncu/$n.txt 2>&1; stamp $? >> $Z/ncu/$n.txt
}
i=0
for s in 64x4096x4096 512x512x512; do
  prof cublas-$s -k regex:'nvjet|xmma|cutlass|gemm' -c 6 $B --shape $s --dtype bf16 --method cublas_gemm --min-samples 2 --max-samples 2
  prof unfused-$s -k regex:'nvjet|xmma|cutlass|gemm|bias|gelu|epilogue' -c 8 $B --shape $s --dtype bf16 --method unfused --min-samples 2 --max-samples 2
done
for name in wgmma_bf16_bm64_bn64_bk64_s8_wg1_cm1_cn1_p0_g8_ts0_sk2_bias_gelu wgmma_bf16_bm64_bn64_bk64_s8_wg1_cm1_cn1_p0_g8_ts0_sk2_rd2_bias_gelu; do
  i=$((i+1))
  prof $name --target-processes all -k regex:'wgmma|splitk' -c 6 $T sweep --shape 64x4096x4096 --dtype bf16 --config $name --db /tmp/ncu-kc$i.db --timeout 300
done
i=$((i+1))
prof wgmma-512 --target-processes all -k regex:wgmma -c 3 $T sweep --shape 512x512x512 --dtype bf16 --config wgmma_bf16_bm64_bn64_bk64_s6_wg1_cm1_cn1_p1_g8_ts1_bias_gelu --db /tmp/ncu-kc$i.db --timeout 300
run_end
