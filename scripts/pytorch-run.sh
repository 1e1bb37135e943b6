#!/usr/bin/env bash
# Issue 41's sitting on the GPU host (docs/pytorch.md, "On the GPU"): the package's GPU tests, the
# host time per call of this tree's wheel against a base wheel (dist/wheels-base, when carried:
# the same bench script with each, twice, alternating, in one sitting), then bench_mlp.py's per-op
# and MLP-block timings at BENCH_TOKENS and the whole-model forwards of BENCH_MODELS. Each step
# is bounded so that what ran comes back; logs and TSVs under $OUT. COMPILE_MODE may name several
# torch.compile modes (e.g. "default max-autotune-no-cudagraphs"); EXTRA_MODE_TOKENS limits the
# second and later to those token counts.
#
# Prepared here: the wheel(s) in dist/wheels (and dist/wheels-base), the tuning table
#   build/bin/coalesce-report --db results/coalesce.db export --out dist/coalesce-tuning.tsv
# Run (the device tool, carry dist): RUN_BUDGET=540 bash scripts/pytorch-run.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=${OUT:-.}
start=$(date +%s)
budget=${RUN_BUDGET:-540}
left() { echo $((budget - ($(date +%s) - start))); }
note() { echo "$* (after $(( $(date +%s) - start )) s)" | tee -a "$out/summary.txt"; }

nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,memory.total --format=csv >"$out/env.txt" 2>&1
python3 -c 'import torch, sys; print("python", sys.version.split()[0], "torch", torch.__version__, torch.version.cuda)' \
  >>"$out/env.txt" 2>&1
git rev-parse HEAD >>"$out/env.txt" 2>/dev/null || true
export COALESCE_TUNING_TABLE=$PWD/dist/coalesce-tuning.tsv
install() {  # wheel folder -> site folder
  rm -rf "$2" && pip install -q --no-deps --target "$2" "$1"/*.whl >>"$out/pip.log" 2>&1
}
install dist/wheels /tmp/site-new || { note "pip install of dist/wheels failed"; exit 0; }
[ -d dist/wheels-base ] && { install dist/wheels-base /tmp/site-base || note "pip install of dist/wheels-base failed"; }

if [ -z "${SKIP_PYTEST:-}" ]; then
  PYTHONPATH=/tmp/site-new timeout $(( $(left) / 3 )) python3 -m pytest -q -p no:cacheprovider python/gpu_tests \
    >"$out/pytest.log" 2>&1
  note "pytest: status $?"
  tail -n 3 "$out/pytest.log" >>"$out/summary.txt"
fi

if [ -d /tmp/site-base ]; then
  for rep in 1 2; do
    for side in base new; do
      [ "$(left)" -gt 60 ] || break 2
      PYTHONPATH=/tmp/site-$side timeout 60 python3 -u python/bench/bench_mlp.py --host-only \
        --out "$out/host-$side-$rep.tsv" >"$out/host-$side-$rep.log" 2>&1
      note "host $side $rep: status $?"
    done
  done
fi

t=$(left); [ "$t" -gt 30 ] || exit 0
PYTHONPATH=/tmp/site-new timeout "$t" python3 -u python/bench/bench_mlp.py --tokens ${BENCH_TOKENS:-1 16 128 1024 4096 8192} \
  --samples ${BENCH_SAMPLES:-30} --compile-mode ${COMPILE_MODE:-default} \
  ${EXTRA_MODE_TOKENS:+--extra-mode-tokens $EXTRA_MODE_TOKENS} \
  ${BENCH_MODELS:+--models $BENCH_MODELS --model-tokens ${BENCH_MODEL_TOKENS:-4096}} \
  --out "$out/bench_mlp.tsv" >"$out/bench_mlp.log" 2>&1
note "bench_mlp: status $?"
exit 0
