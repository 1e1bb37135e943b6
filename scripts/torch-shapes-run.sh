#!/usr/bin/env bash
# Tunes what the PyTorch benchmark's models actually call (issue 41), then re-runs the benchmark
# with a table that has those rows, in one sitting. The journal of 2026-12-06 (fourth session)
# found the table missing them: GPT-2's c_fc computes the tanh GELU (`bias_gelu_tanh`), of which
# the table had no row, so it ran the runtime's built-in default; decode-size calls (1-128 tokens)
# got the 4096-token tile by the nearest-M rule; BERT-large's 4096x4096x1024 got another shape's.
#
#   1. the default (model-guided) sweep of each problem below, every family that applies (15
#      problems; 5% of each space, at least 16 configs, learning from the published sweeps), bounded
#      by --time-budget TORCH_TIME seconds (default 240) shared among them; no steady-state re-timing
#      (~15 s per problem and family), into $Z/torch.db;
#   2. that database merged into a copy of results/coalesce.db and exported as the tuning table
#      by dist/bin/coalesce-report (the bundle leaves it out: copy it in, below);
#   3. scripts/pytorch-run.sh with that table (BENCH_MODELS "gpt2-xl gpt2 bert-large").
#
# Prepared here: scripts/gpu-pack.sh build --bundle; mkdir -p dist/bin; cp build/bin/coalesce-report
# dist/bin/; strip dist/bin/coalesce-report; the wheel in dist/wheels (docs/pytorch.md, "On the GPU").
# On the GPU host, with dist/ carried:
#   tar xzf dist/bundle.tgz -C dist && RUN_BUDGET=560 bash scripts/torch-shapes-run.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
. scripts/run-lib.sh
run_begin torch "${RUN_BUDGET:-560}"
TUNE=${TUNE:-dist/bin/coalesce-tune}
REPORT=${REPORT:-dist/bin/coalesce-report}
shapes=$Z/shapes.csv
{
  echo "m,n,k,dtype,epilogue,name,count"
  for t in 1 16 128 4096 8192; do
    echo "$t,6400,1600,bf16,bias_gelu_tanh,gpt2-xl.mlp.c_fc,1"
    echo "$t,6400,1600,bf16,bias_gelu,gpt2-xl.mlp.c_fc.erf,1"
  done
  for t in 1 16 128; do echo "$t,1600,6400,bf16,bias,gpt2-xl.mlp.c_proj,1"; done
  echo "4096,3072,768,bf16,bias_gelu_tanh,gpt2.mlp.c_fc,1"
  echo "4096,4096,1024,bf16,bias_gelu,bert-large.intermediate,1"
} > "$shapes"
timeout -s INT "$(left 300)" "$TUNE" sweep --shapes-file "$shapes" --time-budget "${TORCH_TIME:-240}s" \
  -j 16 --db "$Z/torch.db" > "$Z/logs/sweep.txt" 2>&1
echo "sweep $(stamp $?)" >> "$Z/logs/done.txt"
cp results/coalesce.db "$Z/table.db"
"$REPORT" merge "$Z/table.db" "$Z/torch.db" > "$Z/logs/merge.txt" 2>&1 &&
  "$REPORT" --db "$Z/table.db" export --out dist/coalesce-tuning.tsv > "$Z/logs/export.txt" 2>&1
echo "table $(stamp $?)" >> "$Z/logs/done.txt"
RUN_BUDGET=$(left 600) BENCH_MODELS="${BENCH_MODELS:-gpt2-xl gpt2 bert-large}" SKIP_PYTEST=1 \
  OUT=$Z bash scripts/pytorch-run.sh > "$Z/logs/pytorch-run.txt" 2>&1
echo "bench $(stamp $?)" >> "$Z/logs/done.txt"
run_end
