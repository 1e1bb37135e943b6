#!/usr/bin/env bash
# scripts/gpu-test.sh judged on packs of stand-ins: it passes only when every test binary ran with
# every test passed and none skipped, and every example exited 0. The stand-in test binaries are
# the skip-rule probe (tests/skip_rule/probe.cpp) in its modes; on a machine without a GPU a real
# GPU test binary must fail under the script (COALESCE_REQUIRE_GPU=1), naming the CUDA reason.
# Usage: gpu_test_script_test.sh GPU_TEST_SH PROBE GPU_TEST_BINARY
set -u
script=$(realpath "$1") probe=$(realpath "$2") gpu_binary=$(realpath "$3")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1 (status $rc)"; printf '%s\n' "$out" | sed 's/^/    /'; fail=1; fi; }

# pack NAME: a fresh $work/NAME/dist with one stand-in tool and empty lists; the script runs in
# $work/NAME.
pack() {
  dir=$work/$1
  mkdir -p "$dir/dist/bin"
  : >"$dir/dist/gpu-tests.txt"
  : >"$dir/dist/gpu-examples.txt"
  printf '#!/bin/sh\necho "coalesce-stand-in 0.1"\n' >"$dir/dist/bin/coalesce-stand-in"
  chmod +x "$dir/dist/bin/coalesce-stand-in"
}
# add_test_binary NAME MODE FILTER: a test binary that is the probe with COALESCE_RULE_PROBE=MODE.
add_test_binary() {
  printf '#!/bin/sh\nCOALESCE_RULE_PROBE=%s exec "%s" --gtest_filter=%s "$@"\n' "$2" "$probe" "$3" \
    >"$dir/dist/bin/$1"
  chmod +x "$dir/dist/bin/$1"
  echo "$1" >>"$dir/dist/gpu-tests.txt"
}
# add_example NAME STATUS: an example that exits with STATUS.
add_example() {
  printf '#!/bin/sh\necho "%s: vs fp64 reference: ..."\nexit %s\n' "$1" "$2" >"$dir/dist/bin/$1"
  chmod +x "$dir/dist/bin/$1"
  echo "$1" >>"$dir/dist/gpu-examples.txt"
}
passing_test=SkipRuleProbe.DoesWhatTheEnvironmentSays
skipping_test=SkipRuleProbe.AlwaysSkips
run() { out=$(cd "$dir" && OUT="$dir" "$script" 2>&1); rc=$?; }

pack all_pass
add_test_binary t_pass "" $passing_test
add_example ex_fused 0
add_example ex_unfused 0
run
check "every test passed and every example checked: exit 0" '[ $rc -eq 0 ]'
check "the summary counts binaries, tests and examples" \
  'printf "%s" "$out" | grep -q "gpu-test: passed: 1 test binaries (1 tests), 2 examples"'
check "the log is written under \$OUT" '[ -s "$dir/gpu-tests.log" ]'

pack all_skipped
add_test_binary t_pass "" $passing_test
add_test_binary t_skip "" $skipping_test
add_example ex_fused 0
run
check "a binary whose every test skipped (exit 0) fails the run" \
  '[ $rc -ne 0 ] && printf "%s" "$out" | grep -q "FAIL: t_skip: 1 of 1 tests skipped"'

pack one_skipped
add_test_binary t_mixed "" "$passing_test:$skipping_test"
add_example ex_fused 0
run
check "one skipped test beside a passed one fails the run" \
  '[ $rc -ne 0 ] && printf "%s" "$out" | grep -q "FAIL: t_mixed: 1 of 2 tests skipped"'

pack failed
add_test_binary t_fail fail $passing_test
add_example ex_fused 0
run
check "a failed test fails the run" '[ $rc -ne 0 ] && printf "%s" "$out" | grep -q "FAIL: t_fail: exit status 1"'

pack example_no_device
add_test_binary t_pass "" $passing_test
add_example ex_fused 0
add_example ex_unfused 3
run
check "an example that finds no device (status 3) fails the run" \
  '[ $rc -ne 0 ] && printf "%s" "$out" | grep -q "FAIL: ex_unfused: exit status 3"'

pack example_missing
add_test_binary t_pass "" $passing_test
add_example ex_fused 0
echo ex_not_built >>"$dir/dist/gpu-examples.txt"
run
check "a listed example that was not packed fails the run" \
  '[ $rc -ne 0 ] && printf "%s" "$out" | grep -q "FAIL: ex_not_built: not packed"'

pack no_lists
rm "$dir/dist/gpu-examples.txt"
add_test_binary t_pass "" $passing_test
run
check "a pack without the examples' list fails the run" \
  '[ $rc -ne 0 ] && printf "%s" "$out" | grep -q "gpu-examples.txt is missing"'

# A real GPU test binary where there is no GPU: the script's COALESCE_REQUIRE_GPU=1 turns its
# skips into failures that say why the device is missing.
if ! ls /dev/nvidia0 >/dev/null 2>&1; then
  pack real_binary_no_gpu
  cp "$gpu_binary" "$dir/dist/bin/"
  basename "$gpu_binary" >"$dir/dist/gpu-tests.txt"
  add_example ex_fused 0
  run
  check "a real GPU test without a GPU fails under the script" '[ $rc -ne 0 ]'
  check "its failure names COALESCE_REQUIRE_GPU and the CUDA reason" \
    'grep -q "no CUDA device: .*; COALESCE_REQUIRE_GPU=1 says this machine must have one" "$dir/gpu-tests.log"'
fi
exit $fail
