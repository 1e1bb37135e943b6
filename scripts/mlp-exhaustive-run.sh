#!/usr/bin/env bash
# The MLP example's two bf16 GEMMs (GPT-2 XL at 4096 tokens: 4096×6400×1600 with bias + GELU,
# 4096×1600×6400 with bias) searched two ways in one sitting, for issues 38 and 43:
#   1. the model-guided strategy as a new user would run it, cold kernel cache, default families,
#      `--time-budget 60s`, learning from the published database only (results/coalesce.db), each
#      shape's wall time taken by the clock around the command -> $Z/model.db;
#   2. then every legal `wgmma` config of each shape (exhaustive, the family that won both shapes
#      in runs 419-422; mma's best there was 1.4x slower), the three fastest re-timed in the steady
#      state, beside the library baselines -> $Z/exhaustive.db.
# Step 2's winners are what the MLP example's tile options read once merged into
# results/coalesce.db; step 1 against step 2 is issue 43's GPU bar (within 2% of the exhaustive
# best in at most 60 s) on these shapes. Protocol: the sweep's default (flush_spin).
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
  shape=${step%%:*} epilogue=${step##*:}
  t0=$(date +%s%N)
  timeout -s INT "$(left 150)" "$TUNE" sweep --shape "$shape" --dtype bf16 --epilogue "$epilogue" \
    --strategy model --time-budget 60s --history results/coalesce.db -j 16 --db "$Z/model.db" \
    > "$Z/logs/model-$shape.txt" 2>&1
  rc=$?
  echo "model $shape $epilogue rc=$rc wall_ms=$(( ($(date +%s%N) - t0) / 1000000 )) $(stamp $rc)" >> "$Z/logs/done.txt"
done
for step in $SHAPES; do
  shape=${step%%:*} epilogue=${step##*:}
  timeout -s INT "$(left 240)" "$TUNE" sweep --shape "$shape" --dtype bf16 --epilogue "$epilogue" \
    --family wgmma --strategy exhaustive --steady-top 3 -j 16 --db "$Z/exhaustive.db" > "$Z/logs/exhaustive-$shape.txt" 2>&1
  echo "exhaustive $shape $epilogue $(stamp $?)" >> "$Z/logs/done.txt"
done
run_end
