#!/usr/bin/env bash
# Runs one GoogleTest binary for ctest and judges it by its summary, so that a skipped case cannot
# hide a failed one. Usage: run_gtest.sh BINARY [gtest flags...]
#   exit 0   the binary exited 0, ran at least one test, and not every test skipped
#   exit 77  the binary exited 0 and every test it ran skipped (ctest's SKIP_RETURN_CODE)
#   else     failure: the binary exited non-zero (a status of 77 is reported as 1), or ran no test
set -u
readonly skip_code=77
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$@" --gtest_color=no 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
if [ "$rc" -ne 0 ]; then
  echo "run_gtest: $1 exited with status $rc"
  [ "$rc" -eq $skip_code ] && exit 1
  exit "$rc"
fi
# The summary lines: "[==========] 3 tests from 2 test suites ran. (5 ms total)" and
# "[  SKIPPED ] 2 tests, listed below:".
ran=$(sed -n 's/^\[==========\] \([0-9][0-9]*\) tests\{0,1\} from .* ran\..*/\1/p' "$out" | tail -n 1)
skipped=$(sed -n 's/^\[  SKIPPED \] \([0-9][0-9]*\) tests\{0,1\}, listed below:.*/\1/p' "$out" | tail -n 1)
if [ -z "$ran" ] || [ "$ran" -eq 0 ]; then
  echo "run_gtest: $1 ran no test"
  exit 1
fi
if [ "${skipped:-0}" -eq "$ran" ]; then
  echo "run_gtest: all $ran tests skipped"
  exit $skip_code
fi
exit 0
