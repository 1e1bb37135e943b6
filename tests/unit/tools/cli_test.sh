#!/usr/bin/env bash
# Each tool starts, answers --version and --help, rejects an unknown flag with a non-zero exit,
# and (on a machine without a GPU) a GPU command says so in one line with exit status 2.
set -u
tune=$1 report=$2 opt=$3
fail=0
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; else echo "ok: $1"; fi; }

check "tune --version" '"$tune" --version | grep -q "^coalesce-tune [0-9]"'
check "report --version" '"$report" --version | grep -q "^coalesce-report [0-9]"'
check "tune --help lists env" '"$tune" --help | grep -q "env"'
check "opt --version" '"$opt" --version >/dev/null'
check "opt knows the dialect" '"$opt" --show-dialects | grep -q coalesce'
check "tune rejects an unknown flag" '! "$tune" --no-such-flag >/dev/null 2>&1'
if ! ls /dev/nvidia0 >/dev/null 2>&1; then
  out=$("$tune" env 2>&1); rc=$?
  check "tune env without a GPU exits 2" '[ $rc -eq 2 ]'
  check "tune env without a GPU says so in one line" '[ "$(printf "%s\n" "$out" | wc -l)" -eq 1 ] && printf "%s" "$out" | grep -q "no CUDA device"'
fi
exit $fail
