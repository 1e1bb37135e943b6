#!/usr/bin/env bash
# The gated MLP's speed (issue 40): Llama-3-8B's merged gate/up GEMM (N = 2 x 14336 = 28672,
# K = 4096; workloads/llama3-8b-mlp.csv) with the swiglu epilogue, at the issue's token counts,
# timed beside the baselines (cuBLAS's merged GEMM alone; the framework path: that GEMM, then one
# act-and-multiply kernel) and the peers (torch eager, torch.compile) in one sitting and one
# protocol (flush_spin, docs/tuner.md "The timing protocol").
#
# Each dtype's steps: the named configs (the register-store twins of the bf16 headline winners:
# the gated store has no TMA-store path) at the large token counts, then a random sample of
# every family's space (GATED_BUDGET configs per problem and family, default 48) at every token
# count with the peers. Each step has a time limit within RUN_BUDGET (default 560 s) and stops
# with SIGINT, so what it measured is stored.
#
# On the GPU host, from the repository root with dist/ carried (scripts/gpu-pack.sh build --bundle):
#   tar xzf dist/bundle.tgz -C dist && bash scripts/gated-run.sh
# The database comes back in $OUT/gated.tgz (gated/gated.db, the logs, env.txt).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
. scripts/run-lib.sh
run_begin gated "${RUN_BUDGET:-560}"
TUNE=${TUNE:-dist/bin/coalesce-tune}
DB=$Z/gated.db
python3 -c "import torch; print('torch', torch.__version__)" >> "$Z/env.txt" 2>&1

BIG=(--shape 4096x28672x4096 --shape 8192x28672x4096)
ALL=(--shape 4096x28672x4096 --shape 8192x28672x4096 --shape 1024x28672x4096
     --shape 128x28672x4096 --shape 16x28672x4096 --shape 1x28672x4096)

for dtype in ${GATED_DTYPES:-bf16 f16}; do
  [ "$(left 600)" -gt 30 ] || break
  cfgs=()
  for c in "wgmma_${dtype}_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts0" \
           "wgmma_${dtype}_bm128_bn256_bk64_s3_wg2_cm2_cn1_p1_g8_ts0" \
           "wgmma_${dtype}_bm128_bn256_bk64_s3_wg2_cm1_cn1_p0_g8_ts0"; do
    cfgs+=(--config "${c}_swiglu")
  done
  timeout -s INT "$(left 90)" "$TUNE" sweep "${BIG[@]}" --dtype "$dtype" --epilogue swiglu "${cfgs[@]}" \
    -j 16 --db "$DB" > "$Z/logs/named-$dtype.txt" 2>&1
  echo "named $dtype $(stamp $?)" >> "$Z/logs/done.txt"
  timeout -s INT "$(left 400)" "$TUNE" sweep "${ALL[@]}" --dtype "$dtype" --epilogue swiglu \
    --strategy random --budget "${GATED_BUDGET:-48}" --seed 1 -j 16 \
    --peers --peers-modes torch_eager,torch_compile --db "$DB" > "$Z/logs/random-$dtype.txt" 2>&1
  echo "random $dtype $(stamp $?)" >> "$Z/logs/done.txt"
done
run_end
