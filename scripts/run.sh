#!/usr/bin/env bash
# The main job: print the device, then (once the tuner lands) sweep --shape 4096 into
# results/coalesce.db and write the report. Without a GPU it says so and does what it can.
set -uo pipefail
build=${1:-build}
bin=$build/bin
echo "== coalesce-tune env"
if ! "$bin/coalesce-tune" env; then
  echo "run: no GPU here; this build has no GPU-free step yet beyond building and the tests (make test)."
  exit 0
fi
