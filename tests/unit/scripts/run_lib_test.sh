#!/usr/bin/env bash
# scripts/run-lib.sh: run_begin makes $OUT/NAME with logs/ and env.txt (written even where
# nvidia-smi and the tools are missing, as here); left N stays within N and the budget and is at
# least 1; stamp prints the status and the seconds since run_begin; run_end leaves only the
# tarball, which holds done.txt, env.txt and what the run wrote.
set -u
root=$(cd "$(dirname "$0")/../../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$work" || exit 1
export OUT=$work/out
mkdir -p "$OUT"
# shellcheck source=/dev/null
. "$root/scripts/run-lib.sh"
run_begin ka 100
[ "$Z" = "$OUT/ka" ] || fail "Z is $Z"
[ -d "$Z/logs" ] || fail "no logs/"
[ -s "$Z/env.txt" ] || fail "env.txt empty"
grep -q "^cores " "$Z/env.txt" || fail "env.txt has no cores line"
[ "$(left 30)" -eq 30 ] || fail "left 30 gave $(left 30)"
[ "$(left 500)" -le 100 ] || fail "left 500 gave more than the budget"
RUN_T0=$(( $(date +%s) - 200 ))  # past the budget
[ "$(left 30)" -eq 1 ] || fail "left past the budget gave $(left 30)"
case "$(stamp 3)" in rc=3\ 20[0-9]s) ;; *) fail "stamp gave '$(stamp 3)'" ;; esac
echo hello > "$Z/logs/x.txt"
run_end
[ ! -e "$Z" ] || fail "run_end left $Z"
[ -s "$OUT/ka.tgz" ] || fail "no tarball"
listing=$(tar tzf "$OUT/ka.tgz")
for f in ka/done.txt ka/env.txt ka/logs/x.txt; do
  echo "$listing" | grep -qx "$f" || fail "tarball lacks $f"
done
echo "run_lib_test: passed"
