#!/usr/bin/env bash
# scripts/readme_tables.py: the README's tables are the published database's, figure for figure;
# a changed figure fails the check with a diff, and a database without the headline rows fails.
# Usage: readme_tables_test.sh SOURCE_DIR COALESCE_REPORT
set -u
src=$1 report=$2
script=$src/scripts/readme_tables.py
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi; }

python3 "$script" --report "$report" --db "$src/results/coalesce.db" --check "$src/README.md" 2>"$work/err"
check "README.md's tables are the database's" '[ $? -eq 0 ] || { cat "$work/err"; false; }'

# One figure of the block changed (the first fused time): the check must fail and show it.
python3 - "$src/README.md" "$work/README.md" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
head, rest = text.split("readme-tables:begin", 1)
rest, n = re.subn(r"\| (\d+)\.(\d) \|", lambda m: f"| {int(m.group(1)) + 1}.{m.group(2)} |", rest, count=1)
assert n == 1, "no figure found in the block"
open(sys.argv[2], "w").write(head + "readme-tables:begin" + rest)
PY
python3 "$script" --report "$report" --db "$src/results/coalesce.db" --check "$work/README.md" 2>"$work/err"
rc=$?
check "a changed figure fails the check (status 1)" '[ $rc -eq 1 ]'
check "the failure names the difference" 'grep -q "differ from the database" "$work/err" && grep -q "^-" "$work/err"'

# A database with none of the headline rows: an error naming them, never empty cells.
cp "$src/tests/fixtures/results-schema1.db" "$work/old.db"
"$report" merge "$work/empty.db" "$work/old.db" >/dev/null 2>&1
python3 "$script" --report "$report" --db "$work/empty.db" 2>"$work/err" >/dev/null
rc=$?
check "missing headline rows are an error (status 1)" '[ $rc -eq 1 ] && grep -q "no flush_spin row for bf16 4096×4096×4096" "$work/err"'
exit $fail
