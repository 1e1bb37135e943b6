#!/usr/bin/env bash
# The tensor-core sweeps of runs 8–20 (docs/journal/2026-11-30.md), run on the GPU host from a dist/ built by
# scripts/gpu-pack.sh: every family that computes each 16-bit dtype and TF32, into one database.
#   scripts/tensor-sweeps.sh SHAPES [DB] [LOGDIR]     e.g. scripts/tensor-sweeps.sh "1024 2048 4096"
# SHAPES at 4096 and below are swept exhaustively; larger ones draw a seeded random sample of
# BUDGET configs per family (default 64: one config's timing at 8192^3 costs 8x that at 4096^3).
# Each sweep's progress and summary go to LOGDIR/sweep-SHAPE-DTYPE.txt. An interrupted call
# resumes where it stopped when run again; an interrupted sweep ends the call (status 130).
set -uo pipefail
shapes=${1:?usage: scripts/tensor-sweeps.sh SHAPES [DB] [LOGDIR]}
db=${2:-results/coalesce.db}
logs=${3:-results/logs}
bin=${BIN:-dist/bin}
budget=${BUDGET:-64}
mkdir -p "$logs"
status=0
for shape in $shapes; do
  strategy=(--strategy exhaustive)
  if [ "$shape" -gt 4096 ]; then strategy=(--strategy random --budget "$budget" --seed 1); fi
  for dtype in ${DTYPES:-bf16 f16 tf32}; do
    log=$logs/sweep-$shape-$dtype.txt
    echo "== coalesce-tune sweep --shape $shape --dtype $dtype ${strategy[*]} --db $db  (log: $log)"
    "$bin/coalesce-tune" sweep --shape "$shape" --dtype "$dtype" "${strategy[@]}" --db "$db" > "$log" 2>&1 || status=$?
    tail -n 12 "$log"
    # Interrupted (Ctrl-C, or SIGINT from a time limit): stop here; the same call resumes.
    if [ "$status" = 130 ]; then exit 130; fi
  done
done
exit $status
