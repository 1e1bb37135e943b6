#!/usr/bin/env bash
# Copies the built tools, GPU test binaries and the compiler's examples, stripped, into dist/ with
# their lists (gpu-tests.txt, gpu-examples.txt) so they can travel to the GPU host (the device
# tool carries at most 64 MiB, the working tree included), and dist/source.json: the commit, the
# build's git revision and the git trees of the code the GPU tests run (scripts/gpu_evidence.py
# pack), which scripts/gpu-test.sh checks against the tree it runs in and copies into its result.
# A pack of uncommitted changes in those paths runs, but its result cannot be imported as evidence.
#
# Usage: scripts/gpu-pack.sh [build-dir] [--bundle] [--old TUNE] [--run SCRIPT]
#   --bundle      leave the tools a GPU run does not use (coalesce-report, coalesce-opt,
#                 coalesce-translate: merging and the compiler's CLIs run here) and pack bin/ (and
#                 old/) with the lists into dist/bundle.tgz, one compressed file; the run's
#                 command unpacks it first: `tar xzf dist/bundle.tgz -C dist && ...`
#   --old TUNE    an A/B's old build: TUNE (a coalesce-tune) goes to dist/old/coalesce-tune,
#                 which `ab_rounds` of scripts/run-lib.sh runs
#   --run SCRIPT  copies a run's script (results/logs/runX/run.sh) to dist/run.sh
set -euo pipefail
build=build bundle=0 old="" run=""
while [ $# -gt 0 ]; do
  case "$1" in
    --bundle) bundle=1 ;;
    --old) old=${2:?--old needs a coalesce-tune}; shift ;;
    --run) run=${2:?--run needs a script}; shift ;;
    -*) echo "gpu-pack.sh: unknown option $1" >&2; exit 2 ;;
    *) build=$1 ;;
  esac
  shift
done
# Read before dist/ is cleared: the old build may be a copy kept there.
if [ -n "$old" ]; then
  [ -x "$old" ] || { echo "gpu-pack.sh: --old $old is not an executable" >&2; exit 2; }
  old_copy=$(mktemp)
  cp "$old" "$old_copy"
fi
rm -rf dist
mkdir -p dist/bin
tools="coalesce-tune coalesce-bench"
[ "$bundle" = 1 ] || tools="$tools coalesce-report coalesce-opt coalesce-translate"
for tool in $tools; do
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
if [ -n "$old" ]; then
  mkdir -p dist/old
  mv "$old_copy" dist/old/coalesce-tune
  chmod +x dist/old/coalesce-tune
fi
[ -z "$run" ] || cp "$run" dist/run.sh
python3 "$(dirname "$0")/gpu_evidence.py" pack dist "$build" || { echo "gpu-pack.sh: dist/source.json not written" >&2; exit 1; }
if [ "$bundle" = 1 ]; then
  dirs=bin
  [ -z "$old" ] || dirs="bin old"
  # shellcheck disable=SC2086
  (cd dist && tar czf bundle.tgz $dirs gpu-tests.txt gpu-examples.txt source.json && rm -rf $dirs)
fi
du -sh dist
