#!/usr/bin/env bash
# The Python environment the coalesce package's CPU tests run in (tests/unit/python): a venv with
# PyTorch's wheel from PyPI (the only registry here; its CPU code is all the tests use), pytest,
# scikit-build-core and transformers (the Hugging Face models built from config in
# python/tests/test_fuse.py). Pinned to the versions the tests were written against. Kept outside
# the work tree so a new clone reuses it: $COALESCE_TORCH_VENV, default ~/.cache/coalesce/torch-venv.
set -euo pipefail

venv="${1:-${COALESCE_TORCH_VENV:-$HOME/.cache/coalesce/torch-venv}}"
requirements=(torch==2.15.0 transformers==5.25.0 pytest numpy scikit-build-core)

if [ -x "$venv/bin/python" ] && "$venv/bin/python" - <<'PY' 2>/dev/null
import importlib.metadata as m, sys
want = {"torch": "2.15.0", "transformers": "5.25.0"}
sys.exit(any(m.version(p).split("+")[0] != v for p, v in want.items())
         or not all(m.version(p) for p in ("pytest", "numpy", "scikit-build-core")))
PY
then
  exit 0
fi
echo "install-torch-venv: installing ${requirements[*]} into $venv"
python3 -m venv "$venv"
"$venv/bin/pip" install -q --upgrade pip
"$venv/bin/pip" install -q "${requirements[@]}"
