#!/usr/bin/env bash
# The tanh GELU's speed bar (issue 40): `bias_gelu_tanh` at least as fast as cuBLASLt's GELU_BIAS
# epilogue (the same tanh approximation) at 4096³ and 8192³ in bf16 and f16. The bf16 and f16
# headline configs (scripts/headline-run.sh) are timed with the tanh epilogue and, in the same
# sitting and protocol (flush_spin), with the exact `bias_gelu` and `bias_silu`, beside the
# baselines (cuBLAS's GEMM alone, cuBLASLt fused, eager, unfused), so the table shows what each
# activation costs over the same tile. Each step has a time limit within RUN_BUDGET (default 540 s)
# and stops with SIGINT, so what it measured is stored.
#
# On the GPU host, from the repository root with dist/ carried (scripts/gpu-pack.sh build --bundle):
#   tar xzf dist/bundle.tgz -C dist && bash scripts/epilogues-run.sh
# The database comes back in $OUT/epilogues.tgz (epilogues/epilogues.db, the logs, env.txt).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
. scripts/run-lib.sh
run_begin epilogues "${RUN_BUDGET:-540}"
TUNE=${TUNE:-dist/bin/coalesce-tune}
DB=$Z/epilogues.db

for dtype in ${EPILOGUE_DTYPES:-bf16 f16}; do
  for epilogue in bias_gelu_tanh bias_gelu bias_silu; do
    [ "$(left 600)" -gt 20 ] || break 2
    cfgs=()
    for tile in bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1 bm128_bn256_bk64_s3_wg2_cm2_cn1_p1_g8_ts1 \
                bm128_bn256_bk64_s3_wg2_cm1_cn1_p0_g8_ts1; do
      cfgs+=(--config "wgmma_${dtype}_${tile}_${epilogue}")
    done
    timeout -s INT "$(left 120)" "$TUNE" sweep --shape 4096 --shape 8192 --dtype "$dtype" --epilogue "$epilogue" \
      "${cfgs[@]}" --steady-top 3 -j 16 --db "$DB" > "$Z/logs/sweep-$dtype-$epilogue.txt" 2>&1
    echo "$dtype $epilogue $(stamp $?)" >> "$Z/logs/done.txt"
  done
done
run_end
