#!/usr/bin/env bash
# kernels/wgmma/ops.cuh is what scripts/gen_wgmma_ops.py writes, byte for byte: the header says
# "do not edit", and this keeps an edit by hand (or a generator change not run) from passing.
set -u
root=$(cd "$(dirname "$0")/../../.." && pwd)
generated=$(mktemp)
trap 'rm -f "$generated"' EXIT
python3 "$root/scripts/gen_wgmma_ops.py" >"$generated" || { echo "FAIL: scripts/gen_wgmma_ops.py exited $?"; exit 1; }
if cmp -s "$generated" "$root/kernels/wgmma/ops.cuh"; then
  echo "ok: kernels/wgmma/ops.cuh is scripts/gen_wgmma_ops.py's output"
else
  echo "FAIL: kernels/wgmma/ops.cuh is not scripts/gen_wgmma_ops.py's output; regenerate it:"
  echo "  python3 scripts/gen_wgmma_ops.py > kernels/wgmma/ops.cuh"
  diff -u "$root/kernels/wgmma/ops.cuh" "$generated" | head -30
  exit 1
fi
