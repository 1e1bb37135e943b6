#!/usr/bin/env bash
# scripts/check_expected_skips.py on ctest's JUnit files: listed skips pass; an unlisted skip, a
# test not run (its executable missing) and a stale entry of the list fail, each named.
set -u
script=$(cd "$(dirname "$0")/../../.." && pwd)/scripts/check_expected_skips.py
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1 (status $rc)"; printf '%s\n' "$out" | sed 's/^/    /'; fail=1; fi; }
# junit CASE...: a ctest JUnit file; CASE is NAME:run, NAME:skip or NAME:missing.
junit() {
  echo '<?xml version="1.0" encoding="UTF-8"?><testsuite name="t" tests="0">'
  for c in "$@"; do
    case ${c#*:} in
      run) echo "<testcase name=\"${c%%:*}\" status=\"run\"><system-out/></testcase>" ;;
      skip) echo "<testcase name=\"${c%%:*}\" status=\"notrun\"><skipped message=\"SKIP_RETURN_CODE=77\"/></testcase>" ;;
      missing) echo "<testcase name=\"${c%%:*}\" status=\"notrun\"><skipped message=\"Unable to find executable\"/></testcase>" ;;
    esac
  done
  echo '</testsuite>'
}
printf '# may skip\ngpu_a\ngpu_b   # trailing comment\n' >"$work/list"
go() { junit "$@" >"$work/j.xml"; out=$(python3 "$script" "$work/j.xml" "$work/list" 2>&1); rc=$?; }

go cpu:run gpu_a:skip gpu_b:skip
check "listed tests that skip pass" '[ $rc -eq 0 ]'
go cpu:run gpu_a:skip gpu_b:run
check "a listed test that runs passes" '[ $rc -eq 0 ]'
go cpu:skip gpu_a:skip gpu_b:skip
check "an unlisted skip fails, named" '[ $rc -eq 1 ] && printf "%s" "$out" | grep -q "cpu skipped (SKIP_RETURN_CODE=77) and is not in"'
go cpu:missing gpu_a:skip gpu_b:skip
check "a test whose executable is missing fails" '[ $rc -eq 1 ] && printf "%s" "$out" | grep -q "cpu skipped (Unable to find executable)"'
go cpu:run gpu_a:skip
check "a listed name that is no test fails as stale" '[ $rc -eq 1 ] && printf "%s" "$out" | grep -q "gpu_b is listed .* but is no test of this run"'
out=$(python3 "$script" "$work/nosuch.xml" "$work/list" 2>&1); rc=$?
check "an unreadable file: status 2" '[ $rc -eq 2 ]'
exit $fail
