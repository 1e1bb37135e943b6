#!/usr/bin/env bash
# Issue 39's speed bar: on unaligned shapes near a tuned aligned one, the fused kernel keeps at
# least 90% of the aligned shape's throughput and beats cuBLAS, cuBLASLt's fused epilogue and
# torch.compile, in bf16 and f16; the GPT-2 LM-head-like 8192x50257x768 runs at >= 90% of
# cuBLAS GEMM-alone. Each pair (unaligned, aligned neighbour) is swept in one sitting by the
# default strategy over every family (wgmma on staged rows, mma), then the two fastest configs again in the
# steady state, with the baselines and the peers (torch eager, torch.compile) by the same
# protocol. Each sweep has a time limit within RUN_BUDGET (default 540 s) and stops with SIGINT,
# so what it measured is stored. scripts/unaligned_bar.py RUN_DB prints the table.
#
# On the GPU host, from the repository root with dist/ carried (scripts/gpu-pack.sh build --bundle):
#   tar xzf dist/bundle.tgz -C dist && bash scripts/unaligned-run.sh
# UNALIGNED_DTYPES (default "bf16 f16") and UNALIGNED_PAIRS (default the three below) narrow it.
# The database comes back in $OUT/unaligned.tgz (unaligned/unaligned.db, the logs, env.txt).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
. scripts/run-lib.sh
run_begin unaligned "${RUN_BUDGET:-540}"
TUNE=${TUNE:-dist/bin/coalesce-tune}
DB=$Z/unaligned.db
pairs=${UNALIGNED_PAIRS:-"4095x4097x4100:4096 2047x8191x4095:2048x8192x4096 8192x50257x768:8192x50256x768"}

for dtype in ${UNALIGNED_DTYPES:-bf16 f16}; do
  for pair in $pairs; do
    [ "$(left 600)" -gt 30 ] || break 2
    odd=${pair%%:*} even=${pair##*:}
    timeout -s INT "$(left 150)" "$TUNE" sweep --shape "$odd" --shape "$even" --dtype "$dtype" \
      --family all --steady-top 2 --peers --peers-modes torch_eager,torch_compile -j 16 \
      --db "$DB" > "$Z/logs/sweep-$dtype-$odd.txt" 2>&1
    echo "$dtype $pair $(stamp $?)" >> "$Z/logs/done.txt"
  done
done
run_end
