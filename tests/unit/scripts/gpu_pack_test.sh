#!/usr/bin/env bash
# scripts/gpu-pack.sh on a stand-in build (copies of one small real binary under every name the
# lists and tools use): the plain pack keeps every tool and listed binary, stripped; --bundle
# leaves the tools a GPU run does not use and packs bin/ (and --old's old/) with the lists into
# dist/bundle.tgz; --run copies the run's script; a bad option or a missing --old exits 2.
set -u
root=$(cd "$(dirname "$0")/../../.." && pwd)
probe=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$work" || exit 1
mkdir -p build/bin
for b in coalesce-tune coalesce-bench coalesce-report coalesce-opt coalesce-translate t1 t2 ex1; do
  cp "$probe" "build/bin/$b"
done
printf 't1\nt2\n' > build/gpu-tests.txt
printf 'ex1\n' > build/gpu-examples.txt
echo 'echo run' > run.sh

bash "$root/scripts/gpu-pack.sh" build > /dev/null || fail "plain pack failed"
for b in coalesce-tune coalesce-bench coalesce-report coalesce-opt coalesce-translate t1 t2 ex1; do
  [ -x "dist/bin/$b" ] || fail "plain pack lacks $b"
done
[ -s dist/gpu-tests.txt ] && [ -s dist/gpu-examples.txt ] || fail "plain pack lacks the lists"
[ ! -e dist/bundle.tgz ] || fail "plain pack made a bundle"
# source.json: this repository's commit, the stand-in build's revision (it has no version.h) and a
# tree for every path of scripts/gpu-evidence-paths.txt.
python3 - "$root" <<'PY' || fail "dist/source.json is not the pack's record"
import json, subprocess, sys
s = json.load(open("dist/source.json"))
head = subprocess.run(["git", "-C", sys.argv[1], "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
assert s["commit"] == head, s["commit"]
assert s["tools_revision"] == "unknown", s["tools_revision"]
assert "kernels" in s["paths"] and all(s["trees"][p] for p in s["paths"]), s["trees"]
PY

cp build/bin/coalesce-tune old-tune
bash "$root/scripts/gpu-pack.sh" build --bundle --old old-tune --run run.sh > /dev/null || fail "bundle failed"
[ -s dist/bundle.tgz ] || fail "no bundle"
[ ! -e dist/bin ] && [ ! -e dist/old ] || fail "bundle left bin/ or old/ beside the tarball"
cmp -s run.sh dist/run.sh || fail "run.sh not copied"
listing=$(tar tzf dist/bundle.tgz | sort | tr '\n' ' ')
want="bin/ bin/coalesce-bench bin/coalesce-tune bin/ex1 bin/t1 bin/t2 gpu-examples.txt gpu-tests.txt old/ old/coalesce-tune source.json "
[ "$listing" = "$want" ] || fail "bundle holds '$listing', not '$want'"

# --old may name a copy kept in dist/ itself (read before dist/ is cleared).
mkdir -p keep && tar xzf dist/bundle.tgz -C keep old/coalesce-tune
mkdir -p dist/kept && cp keep/old/coalesce-tune dist/kept/tune
bash "$root/scripts/gpu-pack.sh" build --old dist/kept/tune > /dev/null || fail "--old from dist/ failed"
[ -x dist/old/coalesce-tune ] || fail "--old from dist/ lost the old build"

bash "$root/scripts/gpu-pack.sh" build --frobnicate > /dev/null 2>&1
[ $? -eq 2 ] || fail "an unknown option did not exit 2"
bash "$root/scripts/gpu-pack.sh" build --old missing-tune > /dev/null 2>&1
[ $? -eq 2 ] || fail "a missing --old did not exit 2"
echo "gpu_pack_test: ok"
