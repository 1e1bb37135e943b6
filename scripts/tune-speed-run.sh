#!/usr/bin/env bash
# Issue 43's sweep bar on the GPU host: the default sweep of a shape, as a user types it, from a
# cold kernel cache, finishes in at most 60 s and lands within 2% of the exhaustive best measured
# in the same sitting. For each shape of TUNE_SHAPES (default 4096x14336x4096) in TUNE_DTYPE
# (default bf16):
#   1. `coalesce-tune sweep --shape S --dtype D --db default.db`, the default strategy and
#      families, with an empty kernel cache (XDG_CACHE_HOME a fresh folder); its wall time in
#      $Z/logs/times.txt;
#   2. `--strategy exhaustive` of the same shape into exhaustive.db (its own database, so that
#      nothing is skipped as already measured), with the cache the first step filled; every
#      config of every default family, so the default's winner is measured again there too.
# Each step is bounded within RUN_BUDGET (default 540 s) and stopped with SIGINT, so what it
# measured is stored; each step's status and wall time go to logs/times.txt, and an exhaustive
# sweep cut short (rc=124 or 130) is not an exhaustive best. Shapes are written MxNxK.
# scripts/tune_speed.py reads the two databases and times.txt.
#
# On the GPU host, from the repository root with dist/ carried (scripts/gpu-pack.sh build --bundle):
#   tar xzf dist/bundle.tgz -C dist && bash scripts/tune-speed-run.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
. scripts/run-lib.sh
run_begin tunespeed "${RUN_BUDGET:-540}"
TUNE=${TUNE:-dist/bin/coalesce-tune}
dtype=${TUNE_DTYPE:-bf16}
# timed STEP ARGS...: one sweep of $shape, its status and wall time a line of times.txt
# ("STEP SHAPE DTYPE rc=N wall_s=T", what tune_speed.py reads) and of done.txt.
timed() {
  local step=$1 seconds=$2 t0 rc
  shift 2
  t0=$(date +%s.%N)
  timeout -s INT "$(left "$seconds")" "$TUNE" sweep --shape "$shape" --dtype "$dtype" "$@" \
    > "$Z/logs/$step-$shape-$dtype.txt" 2>&1
  rc=$?
  echo "$step $shape $dtype rc=$rc wall_s=$(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $t0 }")" >> "$Z/logs/times.txt"
  echo "$step $shape $dtype $(stamp $rc)" >> "$Z/logs/done.txt"
}
for shape in ${TUNE_SHAPES:-4096x14336x4096}; do
  [ "$(left 600)" -gt 30 ] || break
  export XDG_CACHE_HOME=$Z/cache-$shape
  rm -rf "$XDG_CACHE_HOME"
  timed default 300 --db "$Z/default.db"
  timed exhaustive 420 --strategy exhaustive --db "$Z/exhaustive.db"
  rm -rf "$XDG_CACHE_HOME"
done
run_end
