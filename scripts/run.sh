#!/usr/bin/env bash
# The main job (`make run`): print the device, sweep --shape 4096 into results/coalesce.db
# (resuming if an earlier sweep was interrupted), then write results/report.md from it.
# Without a GPU it says so and runs the sweep as a dry run: the space is enumerated and every
# config compiled with NVRTC (into the kernel cache), nothing is measured or stored.
set -uo pipefail
build=${1:-build}
bin=$build/bin
db=results/coalesce.db
echo "== coalesce-tune env"
if "$bin/coalesce-tune" env; then
  mkdir -p results
  echo "== coalesce-tune sweep --shape 4096 --db $db"
  "$bin/coalesce-tune" sweep --shape 4096 --db "$db" || exit $?
  echo "== coalesce-report --db $db --out results/report.md"
  "$bin/coalesce-report" --db "$db" --out results/report.md || exit $?
  echo "run: report written to results/report.md"
else
  out=$build/dry-run-4096.txt
  echo "run: no GPU here, so the sweep runs with --dry-run: it enumerates and compiles every config"
  echo "     of --shape 4096 for sm_90 on $(nproc) cores (cached for the next run), measures nothing and"
  echo "     writes no database; the per-config lines go to $out."
  "$bin/coalesce-tune" sweep --shape 4096 --dry-run > "$out" || exit $?
  grep -v '^simt_' "$out"
fi
