#!/usr/bin/env bash
# One GPU call for code that changed the runtime, the compiler's examples and the PyTorch package
# together: the GPU evidence (scripts/gpu-test.sh: every GPU test, the f32 examples and the MLP
# examples, which print their host time per runtime call and their speedup over the eager
# sequence), then the package's GPU tests (python/gpu_tests) and the MLP benchmark
# (python/bench/bench_mlp.py) with the published database's tuning table, each bounded so that
# the evidence always comes back. Logs under $OUT.
#
# Prepared here (docs/pytorch.md, "On the GPU"; docs/working.md, "GPU evidence"):
#   scripts/gpu-pack.sh build --bundle
#   COALESCE_WITH_CUDA=ON <venv with the GPU host's torch>/bin/pip wheel --no-build-isolation \
#     --no-deps -w dist/wheels ./python        # plus pytest's wheels in dist/wheels
#   build/bin/coalesce-report --db results/coalesce.db export --out dist/coalesce-tuning.tsv
# Run (the device tool, carry dist):
#   RUN_BUDGET=540 bash scripts/gpu-integration-run.sh
# BENCH_MODELS="gpt2-xl bert-large" adds whole-model forwards (python/bench/models.py) to the benchmark.
set -uo pipefail
out=${OUT:-.}
start=$(date +%s)
budget=${RUN_BUDGET:-540}
left() { echo $((budget - ($(date +%s) - start))); }

tar xzf dist/bundle.tgz -C dist || exit 1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv >"$out/env.txt" 2>&1
python3 -c 'import torch, sys; print("python", sys.version.split()[0], "torch", torch.__version__, torch.version.cuda)' \
  >>"$out/env.txt" 2>&1
COALESCE_FLOORS_ANY_GPU=1 scripts/gpu-test.sh
echo "gpu-test: status $? after $(( $(date +%s) - start )) s" | tee -a "$out/summary.txt"
grep -E "^(mlp_|gemm_bias_gelu).*(speedup|host time|GPU time)" "$out/gpu-tests.log" >>"$out/summary.txt"

site=/tmp/coalesce-site
pip install -q --no-deps --target "$site" dist/wheels/*.whl >"$out/pip.log" 2>&1 || { echo "pip install failed" >>"$out/summary.txt"; exit 0; }
export PYTHONPATH=$site COALESCE_TUNING_TABLE=$PWD/dist/coalesce-tuning.tsv
t=$(left); [ "$t" -gt 60 ] || exit 0
timeout $((t / 2)) python3 -m pytest -q -p no:cacheprovider python/gpu_tests >"$out/pytest.log" 2>&1
echo "pytest: status $? after $(( $(date +%s) - start )) s" >>"$out/summary.txt"
tail -n 3 "$out/pytest.log" >>"$out/summary.txt"
t=$(left); [ "$t" -gt 30 ] || exit 0
timeout "$t" python3 -u python/bench/bench_mlp.py --tokens ${BENCH_TOKENS:-4096 8192 1024 128 16 1} --samples 30 \
  ${BENCH_MODELS:+--models $BENCH_MODELS --model-tokens ${BENCH_MODEL_TOKENS:-4096}} \
  --out "$out/bench_mlp.tsv" >"$out/bench_mlp.log" 2>&1
echo "bench_mlp: status $? after $(( $(date +%s) - start )) s" >>"$out/summary.txt"
exit 0
