#!/usr/bin/env bash
# coalesce-bench answers --version/--help and refuses bad input with status 2 (bad usage,
# docs/working.md) and one line naming the problem. Each refusal is paired with the same option
# given a valid value, which must get past the command line to the device query: `--device 99`
# makes that fail with "no CUDA device" and status 3 on any machine, with or without a GPU. Without
# a GPU a real run says so in one line with status 3.
set -u
bench=$1
fail=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1 (status $rc: $out)"; fail=1; fi; }
run() { out=$("$bench" "$@" 2>&1); rc=$?; }
one_line() { [ "$(printf "%s\n" "$out" | wc -l)" -eq 1 ]; }
says() { printf "%s" "$out" | grep -q -- "$1"; }

rc=0 out=
check "--version" '"$bench" --version | grep -q "^coalesce-bench [0-9]"'
check "--help names the CSV and the shapes" '"$bench" --help | grep -q -- "--csv" && "$bench" --help | grep -q -- "--shapes"'

# Each line: a bad option, the text its one-line refusal must contain | the option made valid.
while IFS='|' read -r bad expect good; do
  [ -z "$bad" ] && continue
  run $bad --device 99
  check "$bad: status 2, one line naming '$expect'" '[ $rc -eq 2 ] && one_line && says "$expect" && ! says "no CUDA device"'
  run $good --device 99
  check "$good: accepted (reaches the device query)" '[ $rc -eq 3 ] && one_line && says "no CUDA device"'
done <<'CASES'
--shapes 12x|bad shape|--shapes 12
--shapes 0|bad shape|--shapes 1000x1002x998
--epilogue gelu_fast|--epilogue: gelu_fast not in|--epilogue bias_relu
--method cudnn|--method: cudnn not in|--method cublas_gemm
--family tensor|--family: tensor not in|--family cublaslt
--min-samples 10 --max-samples 5|--max-samples (5) is below --min-samples (10)|--min-samples 5 --max-samples 5
--max-naive 0|--max-naive: '0' is not a positive number|--max-naive 64
--no-such-flag|--no-such-flag|--quick
CASES

if ! ls /dev/nvidia0 >/dev/null 2>&1; then
  run --quick
  check "without a GPU exits 3 with one line saying so" '[ $rc -eq 3 ] && one_line && says "coalesce-bench: no CUDA device: "'
fi
exit $fail
