#!/usr/bin/env bash
# Tunes the two GEMMs of the MLP example (compiler/examples/mlp_*.mlir, GPT-2 XL sizes at 4096
# tokens: 4096×6400×1600 with bias + GELU, 4096×1600×6400 with bias) in bf16 and f16, so the
# example's tile options find tuned rows (issue 38). A random sample of every family's space per
# shape (MLP_BUDGET configs, default 80), in the shared protocol, into $OUT/mlp/mlp.db.
#
# On the GPU host, with dist/ carried (scripts/gpu-pack.sh build --bundle):
#   tar xzf dist/bundle.tgz -C dist && bash scripts/mlp-shapes-run.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
. scripts/run-lib.sh
run_begin mlp "${RUN_BUDGET:-300}"
TUNE=${TUNE:-dist/bin/coalesce-tune}
for dtype in bf16 f16; do
  for step in "4096x6400x1600 bias_gelu" "4096x1600x6400 bias"; do
    set -- $step
    timeout -s INT "$(left 120)" "$TUNE" sweep --shape "$1" --dtype "$dtype" --epilogue "$2" \
      --strategy random --budget "${MLP_BUDGET:-80}" --seed 1 -j 16 --db "$Z/mlp.db" \
      > "$Z/logs/sweep-$dtype-$1.txt" 2>&1
    echo "$dtype $1 $2 $(stamp $?)" >> "$Z/logs/done.txt"
  done
done
run_end
