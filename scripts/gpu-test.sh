#!/usr/bin/env bash
# Runs on the GPU host, from the repository root with dist/ carried along: every GPU test binary
# packed by scripts/gpu-pack.sh, the compiler's examples, then the tools' start-up check. Logs go
# to ${OUT:-.}/gpu-tests.log, the machine-readable result to ${OUT:-.}/gpu-result.json (every
# binary and test case with its status, the device, the commit and the git trees of the code it
# ran: scripts/gpu_evidence.py; docs/working.md "GPU evidence").
#
# Refused before anything runs (exit 1): a list missing or empty, python3 missing, or a dist/
# that was not packed from this tree (its recorded trees differ from the files here, or its tools
# were built at another commit than the one packed).
#
# A pass is: every listed binary ran and exited 0 with at least one test, every test passed and
# none skipped (COALESCE_REQUIRE_GPU=1 turns "no device" into a failure, and a skip here is a
# failure too: on the GPU host nothing may skip, tests/expected-skips.txt included), every example
# ran and checked its result against the fp64 reference (status 0), and every tool answers
# --version. Anything else exits 1.
set -uo pipefail
export COALESCE_REQUIRE_GPU=1
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-.}
log=$out/gpu-tests.log
result=$out/gpu-result.json
: >"$log"
fail=0 binaries=0 tests=0 examples=0
runs=$(mktemp -d)
trap 'rm -rf "$runs"' EXIT
mkdir -p "$runs/examples"
flunk() { echo "FAIL: $*" | tee -a "$log"; echo "$*" >>"$runs/failures.txt"; fail=1; }
refuse() { echo "gpu-test: refused: $*" | tee -a "$log" >&2; exit 1; }

# The names of a list, blank lines left out.
names() { grep -v '^[[:space:]]*$' "$1" 2>/dev/null; }

# The number in a GoogleTest summary line (0 if absent): "[==========] 12 tests from 3 test
# suites ran.", "[  PASSED  ] 11 tests.", "[  SKIPPED ] 1 test, listed below:", "[  FAILED  ] ...".
summary() {
  local n
  n=$(sed -n "s/^\[$1\] \([0-9][0-9]*\) tests\{0,1\}[ ,.].*/\1/p" "$2" | tail -n 1)
  echo "${n:-0}"
}

command -v python3 >/dev/null || refuse "python3 is needed to check the pack and write the result"
for list in gpu-tests.txt gpu-examples.txt; do
  [ -f "dist/$list" ] || refuse "dist/$list is missing: run scripts/gpu-pack.sh"
  [ -n "$(names "dist/$list")" ] || refuse "dist/$list lists nothing: a run of no test proves nothing"
done
[ -f dist/source.json ] || refuse "dist/source.json is missing: run scripts/gpu-pack.sh"
python3 "$here/gpu_evidence.py" verify dist 2>>"$log" || refuse "$(tail -n 1 "$log")"

# tuner_cubin_test's cuobjdump cross-check fails here without one (COALESCE_REQUIRE_GPU=1).
if [ -z "${COALESCE_CUOBJDUMP:-}" ]; then
  for c in "$(command -v cuobjdump)" /usr/local/cuda/bin/cuobjdump; do
    if [ -n "$c" ] && [ -x "$c" ]; then export COALESCE_CUOBJDUMP=$c; break; fi
  done
fi

run_out=$runs/output
while read -r t; do
  echo "== $t" | tee -a "$log"
  if [ ! -x "dist/bin/$t" ]; then flunk "$t: not packed in dist/bin"; continue; fi
  "dist/bin/$t" --gtest_color=no --gtest_output="json:$runs/$t.json" >"$run_out" 2>&1
  rc=$?
  echo "$rc" >"$runs/$t.rc"
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
done < <(names dist/gpu-tests.txt)

# The examples exit 0 only when C matched the fp64 reference (3: no device, 1: wrong or error).
while read -r e; do
  echo "== $e" | tee -a "$log"
  if [ ! -x "dist/bin/$e" ]; then flunk "$e: not packed in dist/bin"; continue; fi
  "dist/bin/$e" >"$run_out" 2>&1
  rc=$?
  echo "$rc" >"$runs/examples/$e.rc"
  tee -a "$log" <"$run_out"
  examples=$((examples + 1))
  [ "$rc" -eq 0 ] || flunk "$e: exit status $rc"
done < <(names dist/gpu-examples.txt)

for tool in dist/bin/coalesce-*; do "$tool" --version || flunk "$tool --version"; done

python3 "$here/gpu_evidence.py" result dist "$runs" "$result" 2>>"$log" || flunk "the result was not written: $(tail -n 1 "$log")"
verdict=$([ $fail -eq 0 ] && echo passed || echo FAILED)
echo "gpu-test: $verdict: $binaries test binaries ($tests tests), $examples examples; result in $result" | tee -a "$log"
exit $fail
