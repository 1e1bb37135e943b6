#!/usr/bin/env bash
# Stores run D's Nsight Compute pages (this directory) as profiles in a results database, one
# `scripts/ncu_summary.py --db` per page (docs/tuner.md, "Recording a profile"). Run from the
# repository root:  results/logs/runD/ncu/store.sh [results/coalesce.db]
#
# The pages were taken on device 5 (env.txt's GPU-2185eaba-...), the H200 of run D; the 4096³
# sweeps that made these configs the winners ran on device 4 (runs 8 and 10, run C). The mma and
# wgmma kernels are the sweep's configs by name; the wgmma name is stored with two source hashes,
# and run D's binary (git 28fb74f, as run C's) emitted ac20bbec0d71, the one runs 8, 11 and 15
# measured. No page records ncu's version, so it is left unknown. profiled_at is when each ncu
# command ended: env.txt's start (13:10:27 UTC) plus the seconds run.sh logged after it
# (the `rc=0 Ns` line of each NAME.txt).
set -eu
db=${1:-results/coalesce.db}
dir=results/logs/runD/ncu
device=GPU-2185eaba-d202-099e-c7b2-3f6718475afa
store() {  # page dtype method profiled_at [--config NAME ...]
  local page=$1 dtype=$2 method=$3 at=$4
  shift 4
  scripts/ncu_summary.py --db "$db" --device "$device" --shape 4096 --dtype "$dtype" --epilogue bias_gelu \
    --method "$method" --profiled-at "$at" "$@" "$dir/$page.raw.csv" | tail -n 1
}
store wgmma_bf16 bf16 coalesce 2026-11-30T13:10:40Z \
  --config wgmma_bf16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_bias_gelu --source-hash ac20bbec0d71
store mma_bf16 bf16 coalesce 2026-11-30T13:10:50Z --config mma_bf16_bm256_bn128_kb128_wm64_wn64_s3_v16_sw1_g8_o1_bias_gelu
store mma_tf32 tf32 coalesce 2026-11-30T13:11:00Z --config mma_tf32_bm128_bn256_kb64_wm64_wn64_s3_v16_sw1_g8_o1_bias_gelu
store cublas_bf16 bf16 cublas_gemm 2026-11-30T13:11:09Z
store cublas_tf32 tf32 cublas_gemm 2026-11-30T13:11:18Z
