set -u
D=$OUT/d; mkdir -p $D/logs $D/ncu $D/hidden
t0=$(date +%s)
left() { local l=$(( 565 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
{ date -u; nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; dist/bin/coalesce-tune --version; dist/bin/coalesce-tune env; } > $D/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
CUDA_VISIBLE_DEVICES= OUT=$D/hidden timeout $(left 40) scripts/gpu-test.sh > $D/hidden/stdout.txt 2>&1; echo "rc=$?" >> $D/hidden/stdout.txt
prof() {  # name kernel-filter command...
  local name=$1 k=$2; shift 2
  timeout $(left 45) ncu --clock-control none --target-processes all -k "$k" -c 1 --set full -o $D/ncu/$name "$@" > $D/ncu/$name.txt 2>&1
  echo "rc=$? $(( $(date +%s)-t0 ))s" >> $D/ncu/$name.txt
  ncu -i $D/ncu/$name.ncu-rep --page raw --csv > $D/ncu/$name.raw.csv 2>/dev/null
  ncu -i $D/ncu/$name.ncu-rep --page details --print-details all >> $D/ncu/$name.txt 2>&1
  rm -f $D/ncu/$name.ncu-rep
}
sw() { echo dist/bin/coalesce-tune sweep --shape 4096 --dtype $1 --config $2 --db /tmp/ncu-$1.db --timeout 300; }
W=wgmma_bf16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_bias_gelu
M=mma_bf16_bm256_bn128_kb128_wm64_wn64_s3_v16_sw1_g8_o1_bias_gelu
T=mma_tf32_bm128_bn256_kb64_wm64_wn64_s3_v16_sw1_g8_o1_bias_gelu
prof wgmma_bf16 $W $(sw bf16 $W)
prof mma_bf16 $M $(sw bf16 $M)
prof mma_tf32 $T $(sw tf32 $T)
prof cublas_bf16 'regex:nvjet|xmma_gemm_bf16' dist/bin/coalesce-bench --shapes 4096 --dtype bf16 --method cublas_gemm --min-samples 1 --max-samples 2 --budget-ms 1
prof cublas_tf32 'regex:nvjet|xmma_gemm_(tf32|f32)' dist/bin/coalesce-bench --shapes 4096 --dtype tf32 --method cublas_gemm --min-samples 1 --max-samples 2 --budget-ms 1
DTYPES=f16 timeout -s INT $(left 50) scripts/tensor-sweeps.sh 2048 results/coalesce.db $D/logs > $D/sweeps-2048.txt 2>&1; echo "rc=$? $(( $(date +%s)-t0 ))s" >> $D/sweeps-2048.txt
timeout -s INT $(left 170) scripts/tensor-sweeps.sh 1024 results/coalesce.db $D/logs > $D/sweeps-1024.txt 2>&1; echo "rc=$? $(( $(date +%s)-t0 ))s" >> $D/sweeps-1024.txt
BUDGET=48 timeout -s INT $(left 200) scripts/tensor-sweeps.sh 8192 results/coalesce.db $D/logs > $D/sweeps-8192.txt 2>&1; echo "rc=$? $(( $(date +%s)-t0 ))s" >> $D/sweeps-8192.txt
cp results/coalesce.db $D/
tar czf $OUT/d.tgz -C $OUT d && rm -rf $D
