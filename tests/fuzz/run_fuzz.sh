#!/usr/bin/env bash
# Runs one libFuzzer target for a bounded time from its committed seed corpus (ctest's fuzz_*
# entries, tests/CMakeLists.txt). New inputs go to a scratch directory, never into the committed
# corpus. A crash fails the test, naming the input libFuzzer saved: add it to the corpus once the
# code is fixed (tests/fuzz/README.md).
# Usage: run_fuzz.sh TARGET_BINARY CORPUS_DIR SECONDS
set -euo pipefail
if [ $# -ne 3 ]; then
  echo "run_fuzz.sh: usage: run_fuzz.sh TARGET_BINARY CORPUS_DIR SECONDS" >&2
  exit 2
fi
target=$1 corpus=$2 seconds=$3
name=$(basename "$target")
scratch=$(mktemp -d "${TMPDIR:-/tmp}/coalesce-$name.XXXXXX")
artifacts="$PWD/fuzz-artifacts"
mkdir -p "$artifacts"
status=0
# -timeout: one input taking 10 s is a hang; -rss_limit_mb: the MLIR target's context stays well under.
"$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$artifacts/$name-" "$scratch" "$corpus" > "$scratch.log" 2>&1 || status=$?
tail -n 25 "$scratch.log"
if [ "$status" -ne 0 ]; then
  echo "run_fuzz.sh: $name failed (status $status); the input is under $artifacts" >&2
fi
rm -rf "$scratch" "$scratch.log"
exit "$status"
