#!/usr/bin/env bash
# One bounded GPU call that asks compute-sanitizer where a parked kernel fails. Each test binary
# in $DIAG_BIN (diag/bin; or dist/bin once the bundle is unpacked, narrowed by DIAG_TESTS, a list
# of binary names) runs under memcheck (the faulting instruction's function and offset, for an
# illegal instruction or address) and then synccheck (barrier misuse, for a hang), each within
# DIAG_SECONDS; DIAG_TOOLS narrows the tools (e.g. "memcheck"). Logs under $OUT. The binaries are
# the GPU tests of a parked tree, built here; they carry beside dist/ (both must fit the 64 MiB a
# call carries: stripped, a test binary is ~5 MB).
#
# Prepared here, for the tree that failed (docs/journal/2026-12-08.md):
#   git worktree add /tmp/full <commit> && cmake -S /tmp/full -B /tmp/full/build -G Ninja \
#     -DCMAKE_BUILD_TYPE=Release && ninja -C /tmp/full/build shapes_test epilogue_families_test
#   mkdir -p diag/bin && cp /tmp/full/build/bin/{shapes_test,epilogue_families_test} diag/bin \
#     && strip diag/bin/*
#   (optional) diag/filters.txt: "binary gtest-filter" lines; without it every test of each binary runs.
# Run (the device tool, carry diag, alone or after scripts/gpu-integration-run.sh):
#   DIAG_SECONDS=90 bash scripts/gpu-diagnose-run.sh
# or after scripts/gpu-integration-run.sh in the same call, on the packed tests that failed:
#   DIAG_BIN=dist/bin DIAG_TESTS="shapes_test epilogue_families_test" bash scripts/gpu-diagnose-run.sh
# Then map each reported offset to its instruction here: cuobjdump -sass diag/bin/<binary>.
set -uo pipefail
out=${OUT:-.}
seconds=${DIAG_SECONDS:-90}
bin_dir=${DIAG_BIN:-diag/bin}
[ -d "$bin_dir" ] || { echo "gpu-diagnose: $bin_dir is missing: build the parked tree's tests into it" >&2; exit 1; }
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
[ -x "$sanitizer" ] || { echo "gpu-diagnose: compute-sanitizer is not on this machine" >&2; exit 1; }
export COALESCE_REQUIRE_GPU=1
summary=$out/diagnose-summary.txt
: >"$summary"
filter_of() {
  [ -f diag/filters.txt ] && awk -v b="$1" '$1 == b { print $2 }' diag/filters.txt | head -n 1
}
if [ -n "${DIAG_TESTS:-}" ]; then
  bins=()
  for t in $DIAG_TESTS; do bins+=("$bin_dir/$t"); done
else
  bins=("$bin_dir"/*)
fi
for bin in "${bins[@]}"; do
  name=$(basename "$bin")
  [ -x "$bin" ] || { echo "== $name: not an executable in $bin_dir" >>"$summary"; continue; }
  filter=$(filter_of "$name")
  for tool in ${DIAG_TOOLS:-memcheck synccheck}; do
    log=$out/$name.$tool.log
    timeout "$seconds" "$sanitizer" --tool "$tool" --print-limit 20 --show-backtrace device \
      "$bin" ${filter:+--gtest_filter="$filter"} >"$log" 2>&1
    status=$?
    {
      echo "== $name under $tool (filter ${filter:-all}): exit $status$([ $status -eq 124 ] && echo ', timed out')"
      # The sanitizer's findings (function, offset, kind) and the tests' verdicts.
      grep -E "^========= (Invalid|Illegal|Barrier|Warp|Program hit|ERROR SUMMARY|    at |Hardware)|\[ +(FAILED|PASSED|OK) +\]" "$log" |
        head -n 40
    } >>"$summary"
  done
done
cat "$summary"
