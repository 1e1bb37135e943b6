#!/usr/bin/env bash
# scripts/run.sh, the main job of `make run`, on a machine without a GPU (CUDA_VISIBLE_DEVICES is
# emptied, so a GPU here would be hidden too): it prints the environment, finds no device, says so
# and runs the sweep as a dry run on a seeded sample of DRY_RUN_BUDGET=3 configs a family compiled with
# NVRTC into a private kernel cache; it writes the per-config lines and no database or report.
# A bad DRY_RUN_BUDGET is status 2 before anything runs.
# Usage: run_sh_test.sh BIN_DIR (the built coalesce-tune and coalesce-report)
set -u
root=$(cd "$(dirname "$0")/../../.." && pwd)
bin=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1 (status $rc)"; printf '%s\n' "$out" | tail -20 | sed 's/^/    /'; fail=1; fi; }
mkdir -p "$work/build" && ln -s "$bin" "$work/build/bin"
cd "$work" || exit 1

out=$(CUDA_VISIBLE_DEVICES= XDG_CACHE_HOME="$work/cache" DRY_RUN_BUDGET=3 bash "$root/scripts/run.sh" build 2>&1); rc=$?
check "without a GPU make run's job exits 0" '[ $rc -eq 0 ]'
check "it prints the environment first" 'printf "%s" "$out" | grep -q "^== coalesce-tune env"'
check "it says there is no GPU and what the dry run does" \
  'printf "%s" "$out" | grep -q "run: no GPU here, so the sweep runs with --dry-run" && printf "%s" "$out" | grep -q "a seeded random sample of 3 configs"'
# The budget is per family: f32 at 4096 has simt and mma configs (wgmma takes no f32, gemv
# prunes every config at M = 4096), 3 of each drawn and compiled.
compiled=$(grep -c '^[a-z][a-z0-9]*_f32_.*  compiled  registers' build/dry-run-4096.txt 2>/dev/null)
families=$(grep -c ', 3 selected, 3 compiled$' build/dry-run-4096.txt 2>/dev/null)
check "3 configs of each of the 2 families were compiled, a line each" '[ "$compiled" = 6 ] && [ "$families" = 2 ]'
check "the kernels went into the private cache" '[ -n "$(find "$work/cache" -type f 2>/dev/null | head -1)" ]'
check "no database and no report were written" '[ ! -e results/coalesce.db ] && [ ! -e results/report.md ]'

out=$(DRY_RUN_BUDGET=lots bash "$root/scripts/run.sh" build 2>&1); rc=$?
check "a bad DRY_RUN_BUDGET: status 2, one line, nothing run" \
  '[ $rc -eq 2 ] && [ "$out" = "run: DRY_RUN_BUDGET '"'"'lots'"'"' is not a whole number of configs, 1 or more" ]'
exit $fail
