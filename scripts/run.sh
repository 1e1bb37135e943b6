#!/usr/bin/env bash
# The main job (`make run`): print the device, sweep --shape 4096 into results/coalesce.db
# (resuming if an earlier sweep was interrupted), then write results/report.md from it.
# Without a GPU it says so and runs the sweep as a dry run: the space is enumerated and a seeded
# random sample of DRY_RUN_BUDGET configs per family (32 unless set: 64 at f32 4096³, simt and mma;
# every legal config with DRY_RUN_ALL=1: 936, 760 simt and 176 mma) is compiled with NVRTC into the
# kernel cache; nothing is measured or stored. tests/unit/tuner/tuner_docs_test.sh checks these counts
# against `space`; tests/unit/scripts/run_sh_test.sh runs this path with DRY_RUN_BUDGET=3.
set -uo pipefail
build=${1:-build}
budget=${DRY_RUN_BUDGET:-32}
if ! [[ $budget =~ ^[1-9][0-9]*$ ]]; then
  echo "run: DRY_RUN_BUDGET '$budget' is not a whole number of configs, 1 or more" >&2
  exit 2
fi
bin=$build/bin
db=results/coalesce.db
echo "== coalesce-tune env"
"$bin/coalesce-tune" env || exit $?
mkdir -p results
echo "== coalesce-tune sweep --shape 4096 --db $db"
"$bin/coalesce-tune" sweep --shape 4096 --db "$db"
status=$?
if [ $status -eq 0 ]; then
  echo "== coalesce-report --db $db --out results/report.md"
  "$bin/coalesce-report" --db "$db" --out results/report.md || exit $?
  echo "run: report written to results/report.md"
elif [ $status -ne 3 ]; then  # 3: no CUDA device (docs/working.md, "Exit status")
  exit $status
else
  out=$build/dry-run-4096.txt
  sample=(--strategy random --budget "$budget" --seed 1)
  what="a seeded random sample of $budget configs per family"
  if [ "${DRY_RUN_ALL:-0}" = 1 ]; then sample=(--strategy exhaustive); what="every config"; fi
  echo "run: no GPU here, so the sweep runs with --dry-run: it enumerates --shape 4096 and compiles"
  echo "     $what for sm_90 on $(nproc) cores (cached for the next run); it measures nothing and"
  echo "     writes no database. The per-config lines go to $out."
  "$bin/coalesce-tune" sweep --shape 4096 --dry-run "${sample[@]}" > "$out" || exit $?
  grep -v '^simt_' "$out"
fi
