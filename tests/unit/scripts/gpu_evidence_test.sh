#!/usr/bin/env bash
# GPU evidence end to end in a scratch git repository (scripts/gpu_evidence.py, gpu-pack's record,
# gpu-test.sh's result): the trees computed from files are git's own ids; a clean passing run
# imports and covers HEAD, also after the result itself is committed under results/; a changed
# kernel file fails the check naming kernels/; a failing run, a dirty pack, a stale build and a
# result whose trees are not its commit's are refused by import; the check without a result, or
# with a failing one, fails and says what to run. The GPU host is a copy of the tracked files
# (as the device tool carries them), the test binaries stand-ins around the skip-rule probe, and
# nvidia-smi a stand-in on PATH.
# Usage: gpu_evidence_test.sh PROBE
set -u
root=$(cd "$(dirname "$0")/../../.." && pwd)
probe=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
ok() { echo "ok: $1"; }
flunk() { echo "FAIL: $1"; printf '%s\n' "${out:-}" | sed 's/^/    /'; fail=1; }
expect() { if eval "$2"; then ok "$1"; else flunk "$1 (status $rc)"; fi; }

repo=$work/repo
mkdir -p "$repo/scripts" "$repo/kernels/core" "$repo/tuner" "$repo/results" "$work/bin"
cp "$root/scripts/gpu_evidence.py" "$root/scripts/gpu-test.sh" "$repo/scripts/"
printf '# the scratch list\nkernels/\ntuner\nscripts/gpu-test.sh\nscripts/gpu_evidence.py\n' \
  >"$repo/scripts/gpu-evidence-paths.txt"
# Names whose order differs between plain byte order and git's (a folder sorts as "core/").
echo "// core" >"$repo/kernels/core/gemm.cuh"
echo "// core.x" >"$repo/kernels/core.x"
echo "// core-y" >"$repo/kernels/core-y"
printf '#!/bin/sh\n' >"$repo/kernels/run.sh" && chmod +x "$repo/kernels/run.sh"
ln -s core/gemm.cuh "$repo/kernels/link.cuh"
echo "int tune();" >"$repo/tuner/tune.cpp"
echo "notes" >"$repo/results/README.md"
(cd "$repo" && git init -q && git config user.email t@t && git config user.name t && git add -A &&
  git commit -qm one) || exit 1
evidence() { out=$(cd "$repo" && python3 scripts/gpu_evidence.py "$@" 2>&1); rc=$?; }

ids=$(cd "$repo" && python3 scripts/gpu_evidence.py id . kernels tuner scripts/gpu-test.sh)
want=$(cd "$repo" && for p in kernels tuner scripts/gpu-test.sh; do echo "$(git rev-parse HEAD:$p) $p"; done)
rc=0 out="$ids"
expect "object ids computed from the files equal git's (folders, a symlink, an executable, git's order)" \
  '[ "$ids" = "$want" ]'

# build REV: a stand-in build whose version.h says REV.
build() {
  mkdir -p "$work/build/generated/coalesce"
  printf '#define COALESCE_GIT_REVISION "%s"\n' "$1" >"$work/build/generated/coalesce/version.h"
}
# gpu_run NAME MODE: pack the repository as it stands (tools built at REV, default HEAD's), carry
# its tracked files (and, for a dirty pack, the working files) to $work/NAME, and run gpu-test.sh
# there with one stand-in test binary in probe MODE ("" passes, fail fails) and one example.
gpu_run() {
  local name=$1 mode=$2 rev=${3:-}
  local head host=$work/$1
  head=$(git -C "$repo" rev-parse HEAD)
  build "${rev:-${head:0:12}}"
  mkdir -p "$host"
  (cd "$repo" && git ls-files -z | xargs -0 tar cf - | tar xf - -C "$host")
  # pack records the repository its script belongs to, and writes dist/ where it runs.
  (cd "$work" && rm -rf dist && python3 "$repo/scripts/gpu_evidence.py" pack dist "$work/build" 2>/dev/null)
  mv "$work/dist" "$host/dist"
  mkdir -p "$host/dist/bin"
  printf '#!/bin/sh\nCOALESCE_RULE_PROBE=%s exec "%s" --gtest_filter=SkipRuleProbe.DoesWhatTheEnvironmentSays "$@"\n' \
    "$mode" "$probe" >"$host/dist/bin/t_probe"
  printf '#!/bin/sh\necho "coalesce-tune 0.1 (git %s)"\n' "${rev:-${head:0:12}}" >"$host/dist/bin/coalesce-tune"
  printf '#!/bin/sh\necho "ex: matched the fp64 reference"\n' >"$host/dist/bin/ex"
  chmod +x "$host/dist/bin/"*
  echo t_probe >"$host/dist/gpu-tests.txt"
  echo ex >"$host/dist/gpu-examples.txt"
  out=$(cd "$host" && PATH="$work/bin:$PATH" OUT="$host" scripts/gpu-test.sh 2>&1); rc=$?
}
printf '#!/bin/sh\necho "NVIDIA H200, GPU-00000000-1111-2222-3333-444444444444, 580.95.05"\n' >"$work/bin/nvidia-smi"
chmod +x "$work/bin/nvidia-smi"

evidence check
expect "the check without any result fails and says what to run" \
  '[ $rc -eq 1 ] && printf "%s" "$out" | grep -q "no GPU result at results/gpu-evidence/latest.json: make gpu-pack .*scripts/gpu-test.sh.*gpu_evidence.py import"'

gpu_run clean ""
expect "a clean pack's GPU run passes" '[ $rc -eq 0 ] && [ -s "$work/clean/gpu-result.json" ]'
evidence import "$work/clean/gpu-result.json"
expect "its result is imported" '[ $rc -eq 0 ] && [ -s "$repo/results/gpu-evidence/latest.json" ]'
(cd "$repo" && git add -A && git commit -qm "the GPU result") || exit 1
evidence check
expect "the check passes at HEAD, the result itself committed under results/" '[ $rc -eq 0 ]'

echo "// changed" >>"$repo/kernels/core/gemm.cuh"
evidence check
expect "an uncommitted change is not HEAD's: the check still passes" '[ $rc -eq 0 ]'
(cd "$repo" && git commit -qam "a kernel change") || exit 1
evidence check
expect "a committed kernel change fails the check, naming kernels/ and what to run" \
  '[ $rc -eq 1 ] && printf "%s" "$out" | grep -q "kernels/ changed since the GPU result of .*make gpu-pack"'
expect "... and only kernels/" '! printf "%s" "$out" | grep -q "tuner"'

gpu_run failing fail
expect "a failing run exits 1 and still writes its result" '[ $rc -eq 1 ] && [ -s "$work/failing/gpu-result.json" ]'
evidence import "$work/failing/gpu-result.json"
expect "import refuses a failing result" \
  '[ $rc -eq 1 ] && printf "%s" "$out" | grep -q "refused: the run did not pass (1 failures: t_probe: exit status 1"'

echo "// not committed" >>"$repo/tuner/tune.cpp"
gpu_run dirty ""
(cd "$repo" && git checkout -q tuner/tune.cpp)
expect "a pack of uncommitted changes runs (the files carried are the packed ones)" '[ $rc -eq 0 ]'
evidence import "$work/dirty/gpu-result.json"
expect "import refuses a dirty pack's result, naming the path" \
  '[ $rc -eq 1 ] && printf "%s" "$out" | grep -q "built from uncommitted changes in tuner"'

gpu_run stale "" 0123456789ab
expect "tools built at another commit are refused on the GPU host" \
  '[ $rc -eq 1 ] && printf "%s" "$out" | grep -q "built at 0123456789ab, not at the packed commit"'
gpu_run dirty_build "" "$(git -C "$repo" rev-parse --short=12 HEAD)-dirty"
expect "tools built from a dirty tree of the packed commit run" '[ $rc -eq 0 ]'
evidence import "$work/dirty_build/gpu-result.json"
expect "import refuses a result of tools built from uncommitted changes" \
  '[ $rc -eq 1 ] && printf "%s" "$out" | grep -q "tools were built at [0-9a-f]*-dirty, not at its commit"'

gpu_run forged ""
python3 - "$work/forged/gpu-result.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); r["trees"]["tuner"] = "0" * 40
json.dump(r, open(sys.argv[1], "w"))
PY
evidence import "$work/forged/gpu-result.json"
expect "import refuses trees that are not its commit's" \
  '[ $rc -eq 1 ] && printf "%s" "$out" | grep -q "trees it ran are not those of its commit .*: tuner"'

cp "$work/failing/gpu-result.json" "$repo/results/gpu-evidence/latest.json"
(cd "$repo" && git commit -qam "a failing result put in place by hand") || exit 1
evidence check
expect "the check refuses a latest.json that is not a clean pass" \
  '[ $rc -eq 1 ] && printf "%s" "$out" | grep -q "latest.json is not a clean passing result (the run did not pass"'

gpu_run again ""
evidence import "$work/again/gpu-result.json"
(cd "$repo" && git commit -qam "the GPU result of the kernel change") || exit 1
evidence check
expect "a new run of the changed kernel covers HEAD again" '[ $rc -eq 0 ]'

printf 'kernels\nresults/gpu-evidence\n' >"$repo/scripts/gpu-evidence-paths.txt"
(cd "$repo" && git commit -qam "results listed") || exit 1
evidence check
expect "a list naming results/ is refused" '[ $rc -eq 1 ] && printf "%s" "$out" | grep -q "results/gpu-evidence.*outside results/"'
exit $fail
