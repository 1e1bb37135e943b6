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
check "--help names the CSV and the shapes" '"$bench" --help | grep -q -- "--csv" && "$bench" --help | grep -q -- "--shape "'

# Each line: a bad option, the text its one-line refusal must contain | the option made valid.
while IFS='|' read -r bad expect good; do
  [ -z "$bad" ] && continue
  run $bad --device 99
  check "$bad: status 2, one line naming '$expect'" '[ $rc -eq 2 ] && one_line && says "$expect" && ! says "no CUDA device"'
  run $good --device 99
  check "$good: accepted (reaches the device query)" '[ $rc -eq 3 ] && one_line && says "no CUDA device"'
done <<'CASES'
--shape 12x|bad shape '12x': expected N (M = N = K)|--shape 12
--shape 0|bad shape '0'|--shape 1000x1002x998
--shape 2000000|each side a whole number from 1 to 1048576|--shape 4096×1024×4096
--shape 512,,1024|bad shape ''|--shape 512,1024
--budget-ms 0|--budget-ms: '0' is not a positive number|--budget-ms 50
--epilogue gelu_fast|--epilogue: gelu_fast not in|--epilogue bias_relu
--method cudnn|--method: cudnn not in|--method cublas_gemm
--family tensor|--family: tensor not in|--family cublaslt
--min-samples 10 --max-samples 5|--max-samples (5) is below --min-samples (10)|--min-samples 5 --max-samples 5
--max-naive 0|--max-naive: '0' is not a positive number|--max-naive 64
--no-such-flag|--no-such-flag|--quick
--seed -1|--seed '-1' is not a whole number from 0 to 18446744073709551615|--seed 0
--seed 18446744073709551616|--seed '18446744073709551616' is not a whole number from 0 to 18446744073709551615|--seed 18446744073709551615
--seed 7.5|--seed '7.5' is not a whole number|--seed 7
CASES

# --shapes, the old spelling, still works and says it is deprecated (two lines: that, then the
# device query).
run --shapes 512 --device 99
check "--shapes: deprecated, still accepted" '[ $rc -eq 3 ] && says "--shapes is deprecated: use --shape" && says "no CUDA device"'
check "no --help line offers --shapes" '! "$bench" --help | grep -q -- "--shapes"'
out=$("$bench" --max-naive 0 --device 99 2>&1); rc=$?
check "a range refusal never prints the largest double" '[ $rc -eq 2 ] && ! says "1797"'

# --csv and --json naming one file (however spelled) would overwrite each other: refused, the file
# unchanged (issue 45).
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/sub"
printf 'rows of an earlier run\n' >"$work/rows.csv"
sum=$(sha256sum "$work/rows.csv")
for json in rows.csv sub/../rows.csv; do
  run --csv "$work/rows.csv" --json "$work/$json" --device 99
  check "--json $json onto --csv: status 2, one line, file unchanged" \
    '[ $rc -eq 2 ] && one_line && says "^coalesce-bench: --json $work/$json is --csv $work/rows.csv: writing it would destroy it" && [ "$(sha256sum "$work/rows.csv")" = "$sum" ]'
done

if ! ls /dev/nvidia0 >/dev/null 2>&1; then
  run --quick
  check "without a GPU exits 3 with one line saying so" '[ $rc -eq 3 ] && one_line && says "coalesce-bench: no CUDA device: "'
fi
exit $fail
