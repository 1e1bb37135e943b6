#!/usr/bin/env bash
# `coalesce-report merge OUT IN...` over the fixture databases (tests/fixtures/make_fixture.cpp):
# the base database and the one with peers merge into a new OUT that reports as the peers
# database does; merging again adds nothing; variant b's runs conflict (exit 1, each conflict
# named, the rest merged); a newer-schema or foreign input is refused with one line and OUT is
# neither created nor changed; Ctrl-C says so in one line (status 130); the inputs are never
# changed; bad usage is status 2.
#
# Usage: merge_cli_test.sh COALESCE_REPORT FIXTURE_DIR
set -u
report=$1 fixtures=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$fixtures/fixture.db" "$fixtures/fixture_b.db" "$fixtures/fixture_peers.db" "$work/"
cd "$work" || exit 1

fail=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1 (status $rc: $(cat err))"; fail=1; fi; }
merge() { "$report" merge "$@" >out 2>err; rc=$?; }
says() { grep -q -- "$1" err; }
lines() { [ "$(wc -l <err)" -eq "$1" ]; }
sums() { cksum fixture.db fixture_b.db fixture_peers.db; }
inputs=$(sums)

# --- two databases into a new one ---------------------------------------------------------------
merge merged.db fixture.db fixture_peers.db
check "merge into a new OUT: status 0, nothing on stdout, one line per input" \
  '[ $rc -eq 0 ] && [ ! -s out ] && lines 2'
check "the base database: every row new" \
  'says "^fixture.db: 1 device, 2 runs, 2 problems, 13 configs, 10 builds, 37 measurements new; 8 math peaks, 5 protocols already present; 0 conflicts$"'
check "the peers database: its two runs new, the base rows already present" \
  'says "^fixture_peers.db: 2 runs, 9 configs, 12 measurements new; 1 device, 2 runs, 2 problems, 13 configs, 10 builds, 37 measurements, 8 math peaks, 5 protocols already present; 0 conflicts$"'
"$report" --db merged.db --format csv | grep -v '^# database:' >merged.csv
"$report" --db fixture_peers.db --format csv | grep -v '^# database:' >peers.csv
rc=0
check "OUT reports as the peers database (a superset of the base) does" 'cmp -s merged.csv peers.csv'

# --- again: nothing new --------------------------------------------------------------------------
merge merged.db fixture_peers.db fixture.db
check "merging again: status 0, nothing new" \
  '[ $rc -eq 0 ] && lines 2 && says "^fixture_peers.db: nothing new; " && says "^fixture.db: nothing new; "'
"$report" --db merged.db --format csv | grep -v '^# database:' >again.csv
rc=0
check "merging again changes no row" 'cmp -s again.csv peers.csv'

# --- conflicts -----------------------------------------------------------------------------------
merge merged.db fixture_b.db
check "variant b: status 1, its runs conflict (git revision), their measurements left out" \
  '[ $rc -eq 1 ] && says "^fixture_b.db: conflict in runs, run started 2025-01-01T10:00:00.000Z on fixture-host (GPU-5e1f0c2a-0000-4000-8000-fixture00001): git_revision '"'"'b0b0b0b0b0b0'"'"' vs '"'"'a1a1a1a1a1a1'"'"' (fixture_b.db vs merged.db); not taken$"'
check "the summary line counts the conflicts and what was left out with them" \
  'says "^fixture_b.db: 1 config, 1 build new; .*; 2 conflicts (2 runs); 37 measurements left out with them$"'
check "the last line says the conflicting rows were not taken" \
  '[ "$(tail -n 1 err)" = "coalesce-report: 2 rows conflicted with merged.db (listed above): not taken, nor the rows that refer to them" ]'
merge merged.db fixture_b.db
check "the same conflicts again, and nothing new" '[ $rc -eq 1 ] && says "^fixture_b.db: nothing new; "'

# --- refusals: OUT untouched ---------------------------------------------------------------------
cp fixture.db newer.db
# PRAGMA user_version is the big-endian 32-bit integer at byte 60 of the SQLite header.
printf '\000\000\003\347' | dd of=newer.db bs=1 seek=60 conv=notrunc 2>/dev/null  # version 999
merge fresh.db fixture.db newer.db
check "a newer-schema input: status 1, one line naming it, OUT not created" \
  '[ $rc -eq 1 ] && lines 1 && says "^coalesce-report: newer.db was written by a newer Coalesce" && [ ! -e fresh.db ]'
before=$(cksum merged.db)
merge merged.db fixture.db newer.db
check "a newer-schema input: an existing OUT is not changed" '[ $rc -eq 1 ] && [ "$(cksum merged.db)" = "$before" ]'
echo "not a database" >notes.txt
merge merged.db notes.txt
check "a file that is not a Coalesce database: status 1, one line, OUT not changed" \
  '[ $rc -eq 1 ] && lines 1 && says "notes.txt is not a Coalesce database" && [ "$(cksum merged.db)" = "$before" ]'
merge notes.txt fixture.db
check "an OUT that is not a Coalesce database: status 1, one line, not changed" \
  '[ $rc -eq 1 ] && lines 1 && says "notes.txt is not a Coalesce database" && [ "$(cat notes.txt)" = "not a database" ]'
merge merged.db missing.db
check "a missing input: status 1, one line" '[ $rc -eq 1 ] && lines 1 && says "missing.db does not exist"'

# --- an input a writer holds (its lease, <db>-lock, locked as a sweep locks it): refused, nothing
# is merged, OUT and the input unchanged (issue 45: it merged part of the run and exited 0) -------
cp fixture_b.db busy.db
printf 'pid 4242 on sweephost\n' >busy.db-lock
( flock 9 && exec sleep 30 ) 9>>busy.db-lock &
holder=$!
for _ in 1 2 3 4 5 6 7 8 9 10; do flock -n busy.db-lock true 2>/dev/null || break; sleep 0.2; done
busy_before=$(cksum busy.db merged.db)
merge merged.db busy.db
check "an input being written: status 1, one line naming its writer, nothing merged, files unchanged" \
  '[ $rc -eq 1 ] && lines 1 && says "^coalesce-report: busy.db is being written by pid 4242 on sweephost; merge it once that writer has finished$" && [ "$(cksum busy.db merged.db)" = "$busy_before" ]'
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
rm -f busy.db busy.db-lock

# --- Ctrl-C (issue 45: it exited 130 in silence): one line saying what OUT holds. The SIGINT is
# made pending before the exec (blocked, then raised), so it lands as soon as merge listens -------
interrupted_merge() {
  python3 -c 'import os, signal, sys
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGINT])
os.kill(os.getpid(), signal.SIGINT)
os.execv(sys.argv[1], sys.argv[1:])' "$report" merge "$@" >out 2>err
  rc=$?
}
interrupted_merge interrupted.db fixture.db
check "Ctrl-C: status 130, one line, OUT not created" \
  '[ $rc -eq 130 ] && lines 1 && says "^coalesce-report: interrupted before interrupted.db was opened: nothing was merged$" && [ ! -e interrupted.db ]'
before=$(cksum merged.db)
interrupted_merge merged.db fixture_b.db
check "Ctrl-C: an existing OUT is not changed" '[ $rc -eq 130 ] && lines 1 && [ "$(cksum merged.db)" = "$before" ]'

# --- bad usage -----------------------------------------------------------------------------------
merge merged.db
check "no input: status 2, one line" '[ $rc -eq 2 ] && lines 1 && says "inputs is required"'
merge merged.db ./merged.db
check "OUT as an input: status 2, one line" '[ $rc -eq 2 ] && lines 1 && says "OUT .* is the input .*: writing it would destroy it"'
merge --format csv merged.db fixture.db
check "--format: status 2, one line naming it" '[ $rc -eq 2 ] && lines 1 && says "\-\-format is not an option of merge"'
merge --db fixture.db merged.db fixture.db
check "--db: status 2 (the databases are the arguments)" '[ $rc -eq 2 ] && lines 1 && says "\-\-db is not an option of merge"'
merge --same-model merged.db fixture.db
check "--same-model: status 2 (a report option)" '[ $rc -eq 2 ] && lines 1 && says "\-\-same-model is not an option of merge"'

rc=0
check "the inputs were never changed" '[ "$(sums)" = "$inputs" ]'
check "no side file left beside the databases" '[ -z "$(ls | grep -E -- "-(wal|shm|lock|journal)$")" ]'
exit $fail
