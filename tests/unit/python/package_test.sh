#!/usr/bin/env bash
# The coalesce Python package as a user installs it: a wheel built from python/ with pip
# (scikit-build-core, against the venv's torch), installed into a folder of the build, and its
# CPU tests (python/tests) run with pytest against that install. The venv is
# scripts/install-torch-venv.sh's (scripts/install-deps.sh makes it).
# usage: package_test.sh SOURCE_DIR BINARY_DIR
set -euo pipefail
src="$1"
out="$2"
venv="${COALESCE_TORCH_VENV:-$HOME/.cache/coalesce/torch-venv}"
python="$venv/bin/python"
if ! "$python" -c "import torch, pytest, scikit_build_core" 2>/dev/null; then
  echo "package_test: no torch venv at $venv (torch, pytest, scikit-build-core); run scripts/install-deps.sh" >&2
  exit 1
fi
rm -rf "$out/wheel" "$out/site"
mkdir -p "$out/wheel"
"$python" -m pip wheel -q --no-build-isolation --no-deps -w "$out/wheel" \
  --config-settings=build-dir="$out/cmake" "$src/python"
"$python" -m pip install -q --no-deps --target "$out/site" "$out"/wheel/coalesce-*.whl
cd "$out"
PYTHONPATH="$out/site" exec "$python" -m pytest -q -p no:cacheprovider "$src/python/tests"
