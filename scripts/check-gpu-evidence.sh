#!/usr/bin/env bash
# CI's evidence check (.ci/run): the git trees at HEAD of every path in
# scripts/gpu-evidence-paths.txt must be those of the newest passing GPU result,
# results/gpu-evidence/latest.json; otherwise it fails, naming the paths that changed and the
# commands that make and import a GPU result of the code at HEAD (docs/working.md, "GPU evidence").
set -euo pipefail
exec python3 "$(dirname "$0")/gpu_evidence.py" check
