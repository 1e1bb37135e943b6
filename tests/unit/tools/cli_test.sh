#!/usr/bin/env bash
# Each tool starts and answers --version and --help; a bad command line is refused with one line
# naming the problem; and (on a machine without a GPU) a GPU command says so in one line with exit
# status 2. coalesce-tune refuses bad usage with status 2 as well, so each refusal is told from an
# accepted command by its message: the same command made valid with `--device 99` gets past the
# command line and stops at the device query ("no CUDA device") on any machine.
set -u
tune=$1 report=$2 opt=$3
fail=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1 (status $rc: $out)"; fail=1; fi; }
run() { out=$("$@" 2>&1); rc=$?; }
one_line() { [ "$(printf "%s\n" "$out" | wc -l)" -eq 1 ]; }
says() { printf "%s" "$out" | grep -q -- "$1"; }

rc=0 out=
check "tune --version" '"$tune" --version | grep -q "^coalesce-tune [0-9]"'
check "report --version" '"$report" --version | grep -q "^coalesce-report [0-9]"'
check "tune --help lists env" '"$tune" --help | grep -q "env"'
check "opt --version" '"$opt" --version >/dev/null'
check "opt knows the dialect" '"$opt" --show-dialects | grep -q coalesce'

run "$tune"
check "tune without a command: status 2, one line asking for one" \
  '[ $rc -eq 2 ] && one_line && says "coalesce-tune: A subcommand is required"'
run "$tune" env --no-such-flag
check "tune env with an unknown flag: status 2, one line naming it" \
  '[ $rc -eq 2 ] && one_line && says "not expected: --no-such-flag" && ! says "no CUDA device"'
run "$tune" env --device x
check "tune env with a bad device: status 2, one line naming it" \
  '[ $rc -eq 2 ] && one_line && says "--device = x" && ! says "no CUDA device"'
run "$tune" env --device 99
check "tune env --device 99: accepted, stops at the device query" \
  '[ $rc -eq 2 ] && one_line && says "coalesce-tune: no CUDA device"'
run "$report" --no-such-flag
check "report with an unknown flag: non-zero, one line naming it" \
  '[ $rc -ne 0 ] && one_line && says "not expected: --no-such-flag"'

if ! ls /dev/nvidia0 >/dev/null 2>&1; then
  run "$tune" env
  check "tune env without a GPU: status 2, one line saying why" \
    '[ $rc -eq 2 ] && one_line && says "coalesce-tune: no CUDA device: "'
fi
exit $fail
