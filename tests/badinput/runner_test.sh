#!/usr/bin/env bash
# The runner of the bad-input suite judges what it claims to: every row of runner_cases.tsv named
# passes-* passes, and every row named must-fail-* is reported failing (a wrong status, a wrong or
# missing message, a given file changed, removed, replaced, written through a hard link or re-moded,
# a refused command leaving a new file, a row listed as a known defect that passes now), every
# known-* row listed in runner_known_defects.txt and still failing is reported KNOWN and not failed,
# with the summary counting them; a known-defects list that names no row, or is malformed, is refused.
set -u
here=$(cd "$(dirname "$0")" && pwd)
bin=$1
known=$here/runner_known_defects.txt
out=$(python3 "$here/run.py" --bin "$bin" --cases "$here/runner_cases.tsv" --known "$known"); rc=$?
fail=0
want_failed=$(grep -c '^must-fail-' "$here/runner_cases.tsv")
want_passed=$(grep -c '^passes' "$here/runner_cases.tsv")
want_known=$(grep -c '^known-' "$here/runner_cases.tsv")
for id in $(cut -f1 "$here/runner_cases.tsv" | grep -v '^#'); do
  case $id in
    must-fail-*) printf '%s\n' "$out" | grep -q "^FAIL $id " || { echo "FAIL: $id was not reported"; fail=1; } ;;
    *) ! printf '%s\n' "$out" | grep -q "^FAIL $id " || { echo "FAIL: $id was reported: $(printf '%s\n' "$out" | grep "^FAIL $id ")"; fail=1; } ;;
  esac
  case $id in
    known-*)
      reason=$(awk -F '\t' -v id="$id" '$1 == id { print $3 }' "$known")
      printf '%s\n' "$out" | grep -qF "KNOWN $id: $reason (still failing)" \
        || { echo "FAIL: $id was not reported as a known defect still failing"; fail=1; } ;;
    *) ! printf '%s\n' "$out" | grep -q "^KNOWN $id:" || { echo "FAIL: $id was reported as known"; fail=1; } ;;
  esac
done
printf '%s\n' "$out" | grep -q '^FAIL must-fail-known-passes .*passes now, yet runner_known_defects.txt:3 lists it as a known defect (issue 45): remove it from the list$' \
  || { echo "FAIL: a known defect that passes now is not reported as one to take off the list"; fail=1; }
[ "$(printf '%s\n' "$out" | tail -n 1)" = "$want_passed passed, $want_failed failed, $want_known known" ] || { echo "FAIL: summary '$(printf '%s\n' "$out" | tail -n 1)'"; fail=1; }
[ $rc -eq 1 ] || { echo "FAIL: run.py exited $rc with failing rows"; fail=1; }

# Known rows alone, still failing: the suite passes (status 0) and counts them.
out=$(python3 "$here/run.py" --bin "$bin" --cases "$here/runner_cases.tsv" --known "$known" -k known-still); rc=$?
[ $rc -eq 0 ] && [ "$(printf '%s\n' "$out" | tail -n 1)" = "0 passed, 0 failed, 1 known" ] \
  || { echo "FAIL: a known row still failing, alone: exit $rc, '$out'"; fail=1; }

# A list that cannot rot silently: an id no row has, a line without an issue number, an id twice.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
refused_list() {
  local name=$1 expect=$2 err
  err=$(python3 "$here/run.py" --bin "$bin" --cases "$here/runner_cases.tsv" --known "$tmp/list" -k passes 2>&1 >/dev/null)
  if [ $? -ne 0 ] && printf '%s' "$err" | grep -qF "$expect"; then :; else echo "FAIL: $name: '$err'"; fail=1; fi
}
printf 'no-such-row\t45\tgone\n' >"$tmp/list"
refused_list stale "$tmp/list:1: no row no-such-row in the cases: take it off the list"
printf 'known-still-failing\tsoon\tno issue number\n' >"$tmp/list"
refused_list no_issue "$tmp/list:1: expected 3 tab-separated fields (row id, issue number, reason)"
printf 'known-still-failing\t45\ta\nknown-still-failing\t45\tb\n' >"$tmp/list"
refused_list twice "$tmp/list:2: the row known-still-failing is listed twice"

[ $fail -eq 0 ] && echo "ok: $want_passed rows pass, $want_failed rows each reported failing, $want_known known row reported, bad known-defects lists refused"
exit $fail
