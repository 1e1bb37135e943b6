#!/usr/bin/env bash
# Copies the built tools, GPU test binaries and the compiler's examples, stripped, into dist/ with
# their lists (gpu-tests.txt, gpu-examples.txt) so they can travel to the GPU host (the device
# tool carries at most 64 MiB). Usage: scripts/gpu-pack.sh [build-dir]
set -euo pipefail
build=${1:-build}
rm -rf dist
mkdir -p dist/bin
for tool in coalesce-tune coalesce-report coalesce-opt coalesce-translate coalesce-bench; do
  [ -x "$build/bin/$tool" ] && cp "$build/bin/$tool" dist/bin/
done
# scripts/gpu-test.sh fails on a listed binary that is missing, so these must all be built.
for list in gpu-tests.txt gpu-examples.txt; do
  while read -r t; do
    if [ -n "$t" ]; then cp "$build/bin/$t" dist/bin/; fi
  done < "$build/$list"
  cp "$build/$list" dist/
done
strip dist/bin/*
du -sh dist
