#!/usr/bin/env bash
# ctest's verdict on a GoogleTest binary: runs ctest on the probe (registered like every test
# binary) with each mode of the probe, then run_gtest.sh on its own for what ctest cannot show.
# Usage: skip_rule_test.sh CTEST PROBE_BUILD_DIR RUN_GTEST PROBE
set -u
ctest=$1 dir=$2 run_gtest=$3 probe=$4
fail=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi; }

# ctest in the probe's own build directory (its Testing/ logs stay there).
verdict() {
  out=$(COALESCE_RULE_PROBE=$1 "$ctest" --test-dir "$dir" -R '^skip_rule_probe$' 2>&1); rc=$?
}
verdict ""
check "one skipped and one passed case: ctest passes it" \
  '[ $rc -eq 0 ] && printf "%s" "$out" | grep -q "skip_rule_probe .* Passed"'
verdict skip
check "every case skipped: ctest skips it and stays green" \
  '[ $rc -eq 0 ] && printf "%s" "$out" | grep -q "skip_rule_probe .*Skipped"'
verdict fail
check "one skipped and one failed case: ctest fails it" \
  '[ $rc -ne 0 ] && printf "%s" "$out" | grep -q "skip_rule_probe .*Failed"'

# The wrapper alone: a binary's own status 77 is a failure, never a skip, and so is running no test.
out=$("$run_gtest" sh -c 'exit 77' 2>&1); rc=$?
check "a binary exiting 77 fails" '[ $rc -ne 0 ] && [ $rc -ne 77 ]'
out=$("$run_gtest" "$probe" --gtest_filter=NoSuchTest 2>&1); rc=$?
check "a binary that runs no test fails" '[ $rc -eq 1 ] && printf "%s" "$out" | grep -q "ran no test"'
out=$(COALESCE_RULE_PROBE=skip "$run_gtest" "$probe" 2>&1); rc=$?
check "all skipped is status 77" '[ $rc -eq 77 ]'
exit $fail
