#!/usr/bin/env bash
# The runner of the bad-input suite judges what it claims to: every row of runner_cases.tsv named
# passes-* passes, and every row named must-fail-* is reported failing (a wrong status, a wrong or
# missing message, a given file changed, removed, replaced, written through a hard link or re-moded,
# a refused command leaving a new file), with the summary counting them.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=$(python3 "$here/run.py" --bin "$1" --cases "$here/runner_cases.tsv"); rc=$?
fail=0
want_failed=$(grep -c '^must-fail-' "$here/runner_cases.tsv")
want_passed=$(grep -c '^passes' "$here/runner_cases.tsv")
for id in $(cut -f1 "$here/runner_cases.tsv" | grep -v '^#'); do
  case $id in
    must-fail-*) printf '%s\n' "$out" | grep -q "^FAIL $id " || { echo "FAIL: $id was not reported"; fail=1; } ;;
    *) ! printf '%s\n' "$out" | grep -q "^FAIL $id " || { echo "FAIL: $id was reported: $(printf '%s\n' "$out" | grep "^FAIL $id ")"; fail=1; } ;;
  esac
done
[ "$(printf '%s\n' "$out" | tail -n 1)" = "$want_passed passed, $want_failed failed" ] || { echo "FAIL: summary '$(printf '%s\n' "$out" | tail -n 1)'"; fail=1; }
[ $rc -eq 1 ] || { echo "FAIL: run.py exited $rc with failing rows"; fail=1; }
[ $fail -eq 0 ] && echo "ok: $want_passed rows pass, $want_failed rows each reported failing"
exit $fail
