#!/usr/bin/env bash
# Runs on the GPU host: every GPU test binary packed by scripts/gpu-pack.sh, the compiler's
# examples, then the tools' start-up check. Logs go to ${OUT:-.}/gpu-tests.log.
#
# A pass is: every listed binary ran and exited 0 with at least one test, every test passed and
# none skipped (COALESCE_REQUIRE_GPU=1 turns "no device" into a failure, and a skip here is a
# failure too: on the GPU host nothing may skip), every example ran and checked its result
# against the fp64 reference (status 0), and every tool answers --version. Anything else exits 1.
set -uo pipefail
export COALESCE_REQUIRE_GPU=1
out=${OUT:-.}
log=$out/gpu-tests.log
: >"$log"
fail=0 binaries=0 tests=0 examples=0
flunk() { echo "FAIL: $*" | tee -a "$log"; fail=1; }

# The number in a GoogleTest summary line (0 if absent): "[==========] 12 tests from 3 test
# suites ran.", "[  PASSED  ] 11 tests.", "[  SKIPPED ] 1 test, listed below:", "[  FAILED  ] ...".
summary() {
  local n
  n=$(sed -n "s/^\[$1\] \([0-9][0-9]*\) tests\{0,1\}[ ,.].*/\1/p" "$2" | tail -n 1)
  echo "${n:-0}"
}

[ -f dist/gpu-tests.txt ] || flunk "dist/gpu-tests.txt is missing: run scripts/gpu-pack.sh"
[ -f dist/gpu-examples.txt ] || flunk "dist/gpu-examples.txt is missing: run scripts/gpu-pack.sh"

run_out=$(mktemp)
trap 'rm -f "$run_out"' EXIT
while read -r t; do
  [ -n "$t" ] || continue
  echo "== $t" | tee -a "$log"
  if [ ! -x "dist/bin/$t" ]; then flunk "$t: not packed in dist/bin"; continue; fi
  "dist/bin/$t" --gtest_color=no >"$run_out" 2>&1
  rc=$?
  tee -a "$log" <"$run_out"
  ran=$(summary "==========" "$run_out")
  passed=$(summary "  PASSED  " "$run_out")
  skipped=$(summary "  SKIPPED " "$run_out")
  failed=$(summary "  FAILED  " "$run_out")
  binaries=$((binaries + 1))
  tests=$((tests + ran))
  if [ "$rc" -ne 0 ]; then flunk "$t: exit status $rc ($failed failed)"
  elif [ "$ran" -eq 0 ]; then flunk "$t: ran no test"
  elif [ "$skipped" -ne 0 ]; then flunk "$t: $skipped of $ran tests skipped"
  elif [ "$passed" -ne "$ran" ]; then flunk "$t: $passed of $ran tests passed"
  fi
done < <(cat dist/gpu-tests.txt 2>/dev/null)

# The examples exit 0 only when C matched the fp64 reference (3: no device, 1: wrong or error).
while read -r e; do
  [ -n "$e" ] || continue
  echo "== $e" | tee -a "$log"
  if [ ! -x "dist/bin/$e" ]; then flunk "$e: not packed in dist/bin"; continue; fi
  "dist/bin/$e" >"$run_out" 2>&1
  rc=$?
  tee -a "$log" <"$run_out"
  examples=$((examples + 1))
  [ "$rc" -eq 0 ] || flunk "$e: exit status $rc"
done < <(cat dist/gpu-examples.txt 2>/dev/null)

for tool in dist/bin/coalesce-*; do "$tool" --version || flunk "$tool --version"; done

verdict=$([ $fail -eq 0 ] && echo passed || echo FAILED)
echo "gpu-test: $verdict: $binaries test binaries ($tests tests), $examples examples" | tee -a "$log"
exit $fail
