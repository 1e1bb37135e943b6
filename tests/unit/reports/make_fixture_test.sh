#!/usr/bin/env bash
# make_fixture's command line: --help prints the usage and exits 0, an unknown option is status 2,
# and neither creates a file (an option is never taken for the database to write).
set -u
make_fixture=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fail=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1 (status $rc: $out)"; fail=1; fi; }
out=$("$make_fixture" --help 2>&1); rc=$?
check "--help: status 0, the usage" '[ $rc -eq 0 ] && printf "%s" "$out" | grep -q "^usage: make_fixture OUT.db"'
out=$("$make_fixture" --bogus 2>&1); rc=$?
check "--bogus: status 2, one line" '[ $rc -eq 2 ] && [ "$(printf "%s\n" "$out" | wc -l)" -eq 1 ]'
out=$(ls -A); rc=0
check "no file created" '[ -z "$out" ]'
exit $fail
