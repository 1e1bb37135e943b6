#!/usr/bin/env bash
# Runs on the GPU host: every GPU test binary packed by scripts/gpu-pack.sh, then the tools'
# start-up check. Logs go to ${OUT:-.}/gpu-tests.log. Exit status is non-zero if any test failed.
set -uo pipefail
out=${OUT:-.}
fail=0
while read -r t; do
  [ -n "$t" ] || continue
  echo "== $t"
  if ! dist/bin/$t --gtest_color=no 2>&1 | tee -a "$out/gpu-tests.log"; then fail=1; fi
done < dist/gpu-tests.txt
for tool in dist/bin/coalesce-*; do "$tool" --version || fail=1; done
exit $fail
