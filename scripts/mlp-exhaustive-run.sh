#!/usr/bin/env bash
# A shape searched two ways in one sitting, for issues 38 and 43 (first written for the MLP
# example's two bf16 GEMMs, GPT-2 XL at 4096 tokens, the default MLP_SHAPES):
#   1. the default (model-guided) sweep as a new user runs it, cold kernel cache, default
#      families, `--time-budget 60s`, learning from what it finds by default (results/coalesce.db
#      and results/history.tsv), the wall time taken by the clock around the command -> $Z/model.db;
#   2. then every legal config of the family named (default `wgmma`, which won both MLP shapes in
#      runs 419-422; mma's best there was 1.4x slower), the three fastest re-timed in the steady
#      state, beside the library baselines -> $Z/exhaustive.db.
# MLP_SHAPES: SHAPE:EPILOGUE[:DTYPE[:FAMILY]] words (dtype bf16, family wgmma unless given).
# Step 1 against step 2 is issue 43's GPU bar (within 2% of the exhaustive best in at most 60 s);
# step 2's winners of the MLP shapes are what the MLP example's tile options read once merged
# into results/coalesce.db. Protocol: the sweep's default (flush_spin).
#
# On the GPU host, with dist/ carried (scripts/gpu-pack.sh build --bundle):
#   tar xzf dist/bundle.tgz -C dist && RUN_BUDGET=560 bash scripts/mlp-exhaustive-run.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
. scripts/run-lib.sh
run_begin mlpx "${RUN_BUDGET:-560}"
TUNE=${TUNE:-dist/bin/coalesce-tune}
SHAPES=${MLP_SHAPES:-"4096x6400x1600:bias_gelu 4096x1600x6400:bias"}
for step in $SHAPES; do
  IFS=: read -r shape epilogue dtype family <<< "$step"
  dtype=${dtype:-bf16}
  t0=$(date +%s%N)
  timeout -s INT "$(left 150)" "$TUNE" sweep --shape "$shape" --dtype "$dtype" --epilogue "$epilogue" \
    --time-budget 60s -j 16 --db "$Z/model.db" > "$Z/logs/model-$shape-$dtype.txt" 2>&1
  rc=$?
  echo "model $shape $dtype $epilogue rc=$rc wall_ms=$(( ($(date +%s%N) - t0) / 1000000 )) $(stamp $rc)" >> "$Z/logs/done.txt"
done
for step in $SHAPES; do
  IFS=: read -r shape epilogue dtype family <<< "$step"
  dtype=${dtype:-bf16} family=${family:-wgmma}
  timeout -s INT "$(left 240)" "$TUNE" sweep --shape "$shape" --dtype "$dtype" --epilogue "$epilogue" \
    --family "$family" --strategy exhaustive --steady-top 3 -j 16 --db "$Z/exhaustive.db" \
    > "$Z/logs/exhaustive-$shape-$dtype.txt" 2>&1
  echo "exhaustive $shape $dtype $epilogue $family $(stamp $?)" >> "$Z/logs/done.txt"
done
run_end
