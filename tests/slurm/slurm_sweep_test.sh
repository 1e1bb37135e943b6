#!/usr/bin/env bash
# docs/scale.md's Slurm job array, run as written on a private single-node Slurm
# (local_slurm.sh): scripts/slurm-sweep.sbatch as a 3-task array with a stand-in worker (no GPU),
# scripts/slurm-merge.sbatch as the job that depends on it; the merged database must hold the
# rows of one unsharded sweep of the same problems, and each task's the problems of its shard
# (problem i in shard i mod 3). Skipped (status 77, with the reason) where Slurm cannot run here;
# a Slurm that is installed and does not come up fails the test.
# Usage: slurm_sweep_test.sh BIN SOURCE_DIR   (BIN holds coalesce-tune and coalesce-report)
set -u
bin=$(realpath "$1") src=$(realpath "$2")
# A run inside a Slurm job must not hand that job's array, if any, to the sweeps below.
unset "${!SLURM_@}"
source "$src/tests/slurm/local_slurm.sh"
work=$(mktemp -d)
trap 'local_slurm_stop; rm -rf "$work"' EXIT
# bash runs no EXIT trap when a signal kills it: ctest's timeout and Ctrl-C must stop the daemons.
trap 'exit 130' INT
trap 'exit 143' TERM
fail=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi; }
# query DB SQL: read-only, so that a missing database is an error rather than a new empty one.
query() { sqlite3 -readonly "$1" "$2" 2>&1; }

started=$SECONDS
local_slurm_start "$work/slurm" || exit $?
echo "Slurm up in $((SECONDS - started)) s ($SLURM_CONF)"

# wait_jobs SECONDS: until the queue is empty (only this test submits to this Slurm).
wait_jobs() {
  local deadline=$((SECONDS + $1))
  while [ -n "$(squeue -h -o %i)" ]; do
    if ((SECONDS >= deadline)); then
      echo "FAIL: jobs still queued or running after $1 s:"
      squeue
      return 1
    fi
    sleep 0.2
  done
}
# succeeded JOBID COUNT: the job (every task of an array) completed with status 0, COUNT records.
succeeded() {
  local records
  records=$(scontrol show job -o "$1")
  [ "$(grep -c 'JobState=COMPLETED .*ExitCode=0:0' <<<"$records")" -eq "$2" ] && return 0
  grep -o 'JobId=[0-9]* \(ArrayJobId=[0-9]* ArrayTaskId=[0-9]* \)\{0,1\}\|JobState=[A-Z_]* Reason=[^ ]*\|ExitCode=[0-9:]*' \
    <<<"$records" | paste -d ' ' - - -
  return 1
}
# show_outputs: every job's stdout and stderr (slurm-*.out), for a failure's report.
show_outputs() {
  local f
  for f in "$work"/run/slurm-*.out; do
    [ -e "$f" ] || continue
    echo "---- ${f##*/}"
    tail -n 30 "$f"
  done
}

# The contract the sweep's shard rests on: each task of `--array=4-6` sees its index, the
# array's lowest index and its task count, so the shard is ID - MIN of COUNT.
mkdir -p "$work/run" && cd "$work/run" || exit 1
started=$SECONDS
id=$(sbatch --parsable --array=4-6 --wrap \
  'echo "$SLURM_ARRAY_TASK_ID $SLURM_ARRAY_TASK_MIN $SLURM_ARRAY_TASK_COUNT" > task-$SLURM_ARRAY_TASK_ID.txt')
wait_jobs 60 || exit 1
check "a 3-task array ran ($((SECONDS - started)) s)" 'succeeded "$id" 3'
for i in 4 5 6; do
  check "task $i sees ID $i, MIN 4, COUNT 3" '[ "$(cat task-$i.txt 2>/dev/null)" = "$i 4 3" ]'
done
rm -f task-*.txt slurm-*.out
if [ $fail -ne 0 ]; then exit 1; fi


# Five problems over three tasks: shards of two, two and one. The stand-in worker's timings
# follow the request, which names the cubin in the kernel cache, so both sweeps share it.
shapes=(256 128x256x64 512 64x128x256 384)
sweep=(--strategy random --budget 2 --seed 5 --cache-dir "$work/cache")
for s in "${shapes[@]}"; do sweep+=(--shape "$s"); done
export COALESCE_TEST_STANDIN_WORKER=$src/tests/unit/tuner/standin_worker.sh
started=$SECONDS
"$bin/coalesce-tune" sweep "${sweep[@]}" --db "$work/unsharded.db" >"$work/unsharded.txt" 2>&1
rc=$?
check "the unsharded sweep ran ($((SECONDS - started)) s)" '[ $rc -eq 0 ] || { tail -n 20 "$work/unsharded.txt"; false; }'
check "the unsharded sweep stored rows" '[ "$(query "$work/unsharded.db" "SELECT COUNT(*) FROM measurements")" -gt 0 ]'

# docs/scale.md's two commands, from a directory standing in for the repository root.
export BIN=$bin
started=$SECONDS
array=$(sbatch --parsable --array=0-2 "$src/scripts/slurm-sweep.sbatch" "${sweep[@]}")
merge=$(sbatch --parsable --dependency=afterok:"$array" "$src/scripts/slurm-merge.sbatch")
check "both jobs submitted" '[ -n "$array" ] && [ -n "$merge" ]'
wait_jobs 300 || { show_outputs; exit 1; }
check "every task of the array succeeded ($((SECONDS - started)) s with the merge)" 'succeeded "$array" 3'
check "the merge job succeeded" 'succeeded "$merge" 1'
if [ $fail -ne 0 ]; then show_outputs; exit 1; fi

# Natural keys only: ids differ between databases, and the merged one holds three runs.
rows='SELECT device_uuid, m, n, k, dtype, epilogue, method, family, config_name, source_hash,
             status, prune_reason, median_ms, rel_err, registers
      FROM v_measurements ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15'
problems="SELECT DISTINCT m || 'x' || n || 'x' || k FROM v_measurements ORDER BY 1"
extent() { case "$1" in *x*) echo "$1" ;; *) echo "${1}x${1}x${1}" ;; esac; }
for shard in 0 1 2; do
  db=results/shard-$shard.db
  expected=$(for i in "${!shapes[@]}"; do ((i % 3 == shard)) && extent "${shapes[i]}"; done | sort)
  check "task $shard swept the problems of shard $shard/3 into $db" \
    '[ "$(query "$db" "$problems" | sort)" = "$expected" ]'
done
check "the merged database holds the unsharded sweep's rows" \
  'diff <(query "$work/unsharded.db" "$rows") <(query results/coalesce.db "$rows") >"$work/rows.diff" ||
   { head -n 20 "$work/rows.diff"; false; }'
check "every run in the merged database completed" \
  '[ "$(query results/coalesce.db "SELECT COUNT(*) FROM runs WHERE status <> '"'completed'"'")" = 0 ]'
[ $fail -eq 0 ] || show_outputs
exit $fail
