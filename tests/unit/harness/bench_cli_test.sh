#!/usr/bin/env bash
# coalesce-bench answers --version/--help, rejects bad input with one sentence and a non-zero
# exit, and on a machine without a GPU says so in one line with exit status 2.
set -u
bench=$1
fail=0
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; else echo "ok: $1"; fi; }

check "--version" '"$bench" --version | grep -q "^coalesce-bench [0-9]"'
check "--help names the CSV and the shapes" '"$bench" --help | grep -q -- "--csv" && "$bench" --help | grep -q -- "--shapes"'
out=$("$bench" --shapes 12x 2>&1); rc=$?
check "a bad shape exits 1 with one line" '[ $rc -eq 1 ] && [ "$(printf "%s\n" "$out" | wc -l)" -eq 1 ] && printf "%s" "$out" | grep -q "bad shape"'
check "an unknown epilogue is refused" '! "$bench" --epilogue gelu_fast >/dev/null 2>&1'
check "an unknown method is refused" '! "$bench" --method cudnn >/dev/null 2>&1'
out=$("$bench" --min-samples 10 --max-samples 5 2>&1); rc=$?
check "max below min samples is refused" '[ $rc -eq 1 ] && printf "%s" "$out" | grep -q "max-samples"'
if ! ls /dev/nvidia0 >/dev/null 2>&1; then
  out=$("$bench" --quick 2>&1); rc=$?
  check "without a GPU exits 2" '[ $rc -eq 2 ]'
  check "without a GPU says so in one line" '[ "$(printf "%s\n" "$out" | wc -l)" -eq 1 ] && printf "%s" "$out" | grep -q "no CUDA device"'
fi
exit $fail
