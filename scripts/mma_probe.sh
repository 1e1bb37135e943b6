#!/usr/bin/env bash
# Runs on the GPU host: a first look at the mma family's speed. For each of bf16, f16 and tf32
# it sweeps 4096^3 (bias + erf GELU) over a seeded random draw of the family's legal configs
# into a scratch database; coalesce-tune prints the best config against cuBLAS and the other
# baselines of the same run. Then a second, exhaustive bf16 sweep if MMA_PROBE_ALL=1 (286
# configs on the H200, about 10 minutes).
#   scripts/mma_probe.sh [build-dir]     (BUDGET=24 SEED=1 DB=/tmp/mma-probe.db by default)
# tf32 needs the compiler's TF32 math attribute: until it lands, its sweep stops with
# "tf32 ... has no math-mode attribute" and the script goes on.
set -uo pipefail
bin=${1:-build}/bin
db=${DB:-/tmp/mma-probe.db}
budget=${BUDGET:-24}
seed=${SEED:-1}
"$bin/coalesce-tune" env || exit $?
for dtype in bf16 f16 tf32; do
  echo "== mma $dtype 4096^3, $budget random configs (seed $seed) into $db"
  "$bin/coalesce-tune" sweep --shape 4096 --dtype "$dtype" --family mma --strategy random --budget "$budget" \
    --seed "$seed" --db "$db" || echo "mma_probe: the $dtype sweep failed (status $?)"
done
if [ "${MMA_PROBE_ALL:-0}" = 1 ]; then
  echo "== mma bf16 4096^3, every legal config"
  "$bin/coalesce-tune" sweep --shape 4096 --dtype bf16 --family mma --strategy exhaustive --db "$db" || exit $?
fi
