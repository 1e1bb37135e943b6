#!/usr/bin/env bash
# The residual epilogue's speed bar (issue 40): `bias_gelu_residual` within 1.02x of our own
# bias-only kernel of the same config at 4096x4096x4096 and 4096x14336x4096. The bar is taken on
# the two fastest bf16 tiles at 4096^3 (results/coalesce.db) of wgmma's register store (the
# stores that add a residual, WgmmaConfig::check_residual) and of mma: each config is timed with
# `bias`, `bias_gelu` and `bias_gelu_residual` in one sitting and protocol (flush_spin, then the
# steady state), beside the baselines. Each step has a time limit within RUN_BUDGET (default 540 s) and stops with SIGINT,
# so what it measured is stored. scripts/residual_bar.py RUN_DB prints the table.
#
# On the GPU host, from the repository root with dist/ carried (scripts/gpu-pack.sh build --bundle):
#   tar xzf dist/bundle.tgz -C dist && bash scripts/residual-run.sh
# The database comes back in $OUT/residual.tgz (residual/residual.db, the logs, env.txt).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
. scripts/run-lib.sh
run_begin residual "${RUN_BUDGET:-540}"
TUNE=${TUNE:-dist/bin/coalesce-tune}
DB=$Z/residual.db
dtype=${RESIDUAL_DTYPE:-bf16}

for epilogue in bias bias_gelu_residual bias_gelu; do
  [ "$(left 600)" -gt 20 ] || break
  cfgs=()
  for tile in wgmma_${dtype}_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts0 wgmma_${dtype}_bm256_bn128_bk64_s4_wg2_cm1_cn1_p1_g8_ts0 \
              mma_${dtype}_bm128_bn256_kb128_wm64_wn64_s3_v16_sw1_g8_o1 mma_${dtype}_bm256_bn128_kb128_wm64_wn64_s3_v16_sw1_g8_o1; do
    cfgs+=(--config "${tile}_${epilogue}")
  done
  timeout -s INT "$(left 175)" "$TUNE" sweep --shape 4096 --shape 4096x14336x4096 --dtype "$dtype" \
    --epilogue "$epilogue" "${cfgs[@]}" --steady-top 2 -j 16 --db "$DB" > "$Z/logs/sweep-$dtype-$epilogue.txt" 2>&1
  echo "$dtype $epilogue $(stamp $?)" >> "$Z/logs/done.txt"
done
run_end
