#!/usr/bin/env bash
# scripts/gpu-test.sh judged on packs of stand-ins: it passes only when every test binary ran with
# every test passed and none skipped, and every example exited 0. The stand-in test binaries are
# the skip-rule probe (tests/skip_rule/probe.cpp) in its modes; on a machine without a GPU a real
# GPU test binary must fail under the script (COALESCE_REQUIRE_GPU=1), naming the CUDA reason.
# The script refuses, before running anything, empty lists and a dist/ not packed from the tree it
# runs in (its files changed since, or tools built at another commit); it writes gpu-result.json
# with every test case's status.
# Usage: gpu_test_script_test.sh GPU_TEST_SH PROBE GPU_TEST_BINARY
set -u
script=$(realpath "$1") probe=$(realpath "$2") gpu_binary=$(realpath "$3")
evidence=$(dirname "$script")/gpu_evidence.py
commit=0123456789abcdef0123456789abcdef01234567
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1 (status $rc)"; printf '%s\n' "$out" | sed 's/^/    /'; fail=1; fi; }

# pack NAME: a fresh $work/NAME/dist with one stand-in tool built at $commit, empty lists and the
# record of a tree of one kernel (kernels/k.cuh) that the script runs in ($work/NAME).
pack() {
  dir=$work/$1
  mkdir -p "$dir/dist/bin" "$dir/kernels"
  : >"$dir/dist/gpu-tests.txt"
  : >"$dir/dist/gpu-examples.txt"
  printf '#!/bin/sh\necho "coalesce-stand-in 0.1 (git %s)"\n' "${commit:0:12}" >"$dir/dist/bin/coalesce-stand-in"
  chmod +x "$dir/dist/bin/coalesce-stand-in"
  echo "// a kernel" >"$dir/kernels/k.cuh"
  tree=$(python3 "$evidence" id "$dir" kernels | cut -d' ' -f1)
  printf '{"format": "coalesce-gpu-result/1", "commit": "%s", "tools_revision": "%s", "paths": ["kernels"],
 "trees": {"kernels": "%s"}, "dirty": []}\n' "$commit" "${commit:0:12}" "$tree" >"$dir/dist/source.json"
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
check "the result names every test case passed, the examples, the commit and the tree" \
  'python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
assert r[\"verdict\"] == \"passed\" and r[\"commit\"] == \"$commit\", r
assert r[\"binaries\"] == [{\"name\": \"t_pass\", \"exit\": 0, \"tests\": {\"$passing_test\": \"passed\"}}], r[\"binaries\"]
assert [e[\"exit\"] for e in r[\"examples\"]] == [0, 0] and r[\"trees\"] == json.load(open(sys.argv[2]))[\"trees\"]
assert r[\"tools\"] == {\"coalesce-stand-in\": \"${commit:0:12}\"}
" "$dir/gpu-result.json" "$dir/dist/source.json"'

pack all_skipped
add_test_binary t_pass "" $passing_test
add_test_binary t_skip "" $skipping_test
add_example ex_fused 0
run
check "a binary whose every test skipped (exit 0) fails the run" \
  '[ $rc -ne 0 ] && printf "%s" "$out" | grep -q "FAIL: t_skip: 1 of 1 tests skipped"'
check "the result records the skip and the failed verdict" \
  'python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
assert r[\"verdict\"] == \"failed\" and r[\"binaries\"][1][\"tests\"] == {\"$skipping_test\": \"skipped\"}, r
assert r[\"failures\"] == [\"t_skip: 1 of 1 tests skipped\"], r[\"failures\"]
" "$dir/gpu-result.json"'

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

pack empty_tests
add_example ex_fused 0
run
check "an empty list of test binaries is refused before anything runs" \
  '[ $rc -eq 1 ] && printf "%s" "$out" | grep -q "refused: dist/gpu-tests.txt lists nothing" && ! grep -q "== ex_fused" "$dir/gpu-tests.log"'

pack empty_examples
add_test_binary t_pass "" $passing_test
echo >>"$dir/dist/gpu-examples.txt"
run
check "a list of examples holding only a blank line is refused" \
  '[ $rc -eq 1 ] && printf "%s" "$out" | grep -q "refused: dist/gpu-examples.txt lists nothing"'

pack tree_changed
add_test_binary t_pass "" $passing_test
add_example ex_fused 0
echo "// changed after the pack" >>"$dir/kernels/k.cuh"
run
check "a tree whose kernels changed since the pack is refused, naming them" \
  '[ $rc -eq 1 ] && printf "%s" "$out" | grep -q "refused: .*not the one dist/ was packed from (commit 0123456789ab): kernels differ" && ! grep -q "== t_pass" "$dir/gpu-tests.log"'

pack other_commit
add_test_binary t_pass "" $passing_test
add_example ex_fused 0
printf '#!/bin/sh\necho "coalesce-stand-in 0.1 (git fedcba987654)"\n' >"$dir/dist/bin/coalesce-stand-in"
run
check "tools built at another commit than the packed one are refused" \
  '[ $rc -eq 1 ] && printf "%s" "$out" | grep -q "coalesce-stand-in was built at fedcba987654, not at the packed commit 0123456789ab"'

pack no_source
add_test_binary t_pass "" $passing_test
add_example ex_fused 0
rm "$dir/dist/source.json"
run
check "a pack without source.json is refused" '[ $rc -eq 1 ] && printf "%s" "$out" | grep -q "source.json is missing"'

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
