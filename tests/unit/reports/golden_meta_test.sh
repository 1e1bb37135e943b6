#!/usr/bin/env bash
# The golden test's own test: with a wrong figure planted in each output (COALESCE_GOLDEN_PLANT=1)
# every comparison fails, and every golden file is compared; regenerating (COALESCE_REGENERATE_GOLDEN=1)
# over a wrong golden file rewrites it and still fails, with the diff and the hint, and only the
# next, plain run passes.
# Usage: golden_meta_test.sh COALESCE_REPORT FIXTURE_DIR GOLDEN_DIR
set -u
report=$1 fixtures=$2 golden=$(cd "$3" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1 (status $rc)"; printf '%s\n' "$out" | grep -v '^ok: ' | head -30 | sed 's/^/    /'; fail=1; fi; }

out=$(COALESCE_GOLDEN_PLANT=1 "$here/golden_test.sh" "$report" "$fixtures" "$golden" 2>&1); rc=$?
compared=$(printf '%s\n' "$out" | sed -n 's/^ok: \(.*\): a wrong figure fails its comparison.*/\1/p' | sort -u)
files=$(ls "$golden" | sort)
check "a wrong figure planted in each output fails its comparison" '[ $rc -eq 0 ]'
check "every golden file is compared (no file left unchecked, none compared that is not there)" \
  '[ "$compared" = "$files" ]'

# A copy of the tree the golden test reads (golden/, tests/fixtures/, scripts/plot_report.py).
mkdir -p "$work/tests/unit/reports" "$work/tests/fixtures" "$work/scripts"
cp -r "$golden" "$work/tests/unit/reports/golden"
cp "$root/tests/fixtures/workload.csv" "$work/tests/fixtures/"
cp "$root/scripts/plot_report.py" "$work/scripts/"
copy=$work/tests/unit/reports/golden
sed -i 's/0\.0688/0.0689/' "$copy/query_comparison.csv"
out=$(COALESCE_REGENERATE_GOLDEN=1 "$here/golden_test.sh" "$report" "$fixtures" "$copy" 2>&1); rc=$?
check "regenerating over a wrong golden file fails" '[ $rc -eq 1 ]'
check "... naming the file, showing the diff and saying what to do" \
  'printf "%s" "$out" | grep -q "^-.*0\.0689" && printf "%s" "$out" | grep -q "FAIL: query_comparison.csv regenerated from the code.s own output (diff above): read it, then run the test again without COALESCE_REGENERATE_GOLDEN"'
check "... and only that file" '[ "$(printf "%s\n" "$out" | grep -c "regenerated from")" -eq 1 ]'
check "... which now holds the code's output" 'cmp -s "$copy/query_comparison.csv" "$golden/query_comparison.csv"'
out=$("$here/golden_test.sh" "$report" "$fixtures" "$copy" 2>&1); rc=$?
check "the next plain run passes" '[ $rc -eq 0 ]'
exit $fail
