#!/usr/bin/env bash
# Copies the built tools and GPU test binaries, stripped, into dist/ so they can travel to the
# GPU host (the device tool carries at most 64 MiB). Usage: scripts/gpu-pack.sh [build-dir]
set -euo pipefail
build=${1:-build}
rm -rf dist
mkdir -p dist/bin
for tool in coalesce-tune coalesce-report coalesce-opt coalesce-translate coalesce-bench gemm_bias_gelu_fused gemm_bias_gelu_unfused; do
  [ -x "$build/bin/$tool" ] && cp "$build/bin/$tool" dist/bin/
done
while read -r t; do
  [ -n "$t" ] && cp "$build/bin/$t" dist/bin/
done < "$build/gpu-tests.txt"
cp "$build/gpu-tests.txt" dist/
strip dist/bin/*
du -sh dist
