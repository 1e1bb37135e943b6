#!/usr/bin/env bash
# scripts/run-lib.sh: run_begin makes $OUT/NAME with logs/ and env.txt (written even where
# nvidia-smi and the tools are missing, as here); left N stays within N and the budget and is at
# least 1; stamp prints the status and the seconds since run_begin; run_end leaves only the
# tarball, which holds done.txt, env.txt and what the run wrote; sweep_list, sweep_random and
# ab_rounds run the sweeps they say (a stand-in tuner records them) into the databases
# ab_table.py reads; ncu_page runs ncu with the clocks left alone, its page and its notes apart,
# its version recorded once (a stand-in ncu).
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
# sweep_list and ab_rounds, with a stand-in coalesce-tune that records its arguments and makes
# the database it is given.
fake=$work/fake-tune
cat > "$fake" <<'TUNE'
#!/usr/bin/env bash
echo "$(basename "$(dirname "$0")") $*" >> "$CALLS"
while [ $# -gt 0 ]; do [ "$1" = --db ] && touch "$2"; shift; done
TUNE
mkdir -p "$work/new" "$work/old"
cp "$fake" "$work/new/tune"; cp "$fake" "$work/old/tune"; chmod +x "$work/new/tune" "$work/old/tune"
export CALLS=$work/calls.txt TUNE=$work/new/tune OLD_TUNE=$work/old/tune
run_begin kb 100
printf 'cfg_a\n\ncfg_b\n' > "$work/list.txt"
sweep_list 64x4096x4096 bf16 wgmma "$work/list.txt" 30
line=$(cat "$CALLS")
[ "$line" = "new sweep --shape 64x4096x4096 --dtype bf16 --family wgmma --config cfg_a --config cfg_b --steady-top 3 -j 16 --db $Z/kb.db" ] \
  || fail "sweep_list ran '$line'"
[ -e "$Z/kb.db" ] || fail "sweep_list made no $Z/kb.db"
grep -q "^sweep 64x4096x4096 bf16 rc=0 " "$Z/logs/done.txt" || fail "sweep_list wrote no done line"
: > "$CALLS"
sweep_random 128x4096x4096 f32 mma 200 30
sweep_random 8x4096x4096 bf16 wgmma 40 30 7
[ "$(sed -n 1p "$CALLS")" = "new sweep --shape 128x4096x4096 --dtype f32 --family mma --strategy random --budget 200 --seed 12 --steady-top 3 -j 16 --db $Z/kb.db" ] \
  || fail "sweep_random ran '$(sed -n 1p "$CALLS")'"
[ "$(sed -n 2p "$CALLS")" = "new sweep --shape 8x4096x4096 --dtype bf16 --family wgmma --strategy random --budget 40 --seed 7 --steady-top 3 -j 16 --db $Z/kb.db" ] \
  || fail "sweep_random with a seed ran '$(sed -n 2p "$CALLS")'"
[ -e "$Z/logs/sweep-128x4096x4096-f32-mma.txt" ] || fail "sweep_random wrote no log"
grep -q "^sweep 8x4096x4096 bf16 wgmma rc=0 " "$Z/logs/done.txt" || fail "sweep_random wrote no done line"
: > "$CALLS"
printf '# a comment\n64x4096x4096 bf16 c1 c2\n512x512x512 f16 c3\n' > "$work/ab.txt"
ab_rounds "$work/ab.txt" 30
[ "$(wc -l < "$CALLS")" -eq 8 ] || fail "ab_rounds ran $(wc -l < "$CALLS") sweeps, not 8"
[ "$(sed -n 1p "$CALLS")" = "old sweep --shape 64x4096x4096 --dtype bf16 --config c1 --config c2 -j 16 --min-samples 3000 --max-samples 3000 --db $Z/old-1.db" ] \
  || fail "ab_rounds' first sweep was '$(sed -n 1p "$CALLS")'"
[ "$(cut -d' ' -f1 "$CALLS" | tr '\n' ' ')" = "old old new new old old new new " ] || fail "ab_rounds' order: $(cut -d' ' -f1 "$CALLS" | tr '\n' ' ')"
grep -q -- "--shape 512x512x512 --dtype f16 --config c3 -j 16 --min-samples 3000 --max-samples 3000 --db $Z/new-2.db" "$CALLS" \
  || fail "ab_rounds' last round lacks the second line"
for db in old-1 new-1 old-2 new-2; do [ -e "$Z/$db.db" ] || fail "ab_rounds made no $db.db"; done
[ "$(grep -c 'rc=0' "$Z/logs/ab-old-2.txt")" -eq 2 ] || fail "ab-old-2.txt lacks a status line per sweep"
run_end
# ncu_page, with a stand-in ncu that records its arguments, prints a page and a note.
mkdir -p "$work/bin"
cat > "$work/bin/ncu" <<'NCU'
#!/usr/bin/env bash
if [ "$1" = --version ]; then echo "NVIDIA (R) Nsight Compute"; echo "Version 2025.3"; exit 0; fi
echo "ncu $*" >> "$CALLS"
echo "page"; echo "==PROF== note" >&2; exit 4
NCU
chmod +x "$work/bin/ncu"
PATH=$work/bin:$PATH
: > "$CALLS"
run_begin kc 100
ncu_page k.csv 30 --page source --csv -c 3 tune sweep --shape 512
ncu_page k2.txt 30 --set full -c 1 bench
[ "$(sed -n 1p "$CALLS")" = "ncu --clock-control none --page source --csv -c 3 tune sweep --shape 512" ] \
  || fail "ncu_page ran '$(sed -n 1p "$CALLS")'"
[ "$(cat "$Z/ncu/k.csv")" = page ] || fail "ncu_page's page: $(cat "$Z/ncu/k.csv")"
[ "$(sed -n 1p "$Z/ncu/k.csv.err")" = "==PROF== note" ] || fail "ncu_page's notes: $(cat "$Z/ncu/k.csv.err")"
grep -q "^rc=4 " "$Z/ncu/k.csv.err" || fail "ncu_page wrote no status line"
[ -s "$Z/ncu/k2.txt" ] || fail "the second ncu_page wrote no page"
[ "$(grep -c "^Version 2025.3$" "$Z/env.txt")" -eq 1 ] || fail "env.txt should hold ncu's version once"
run_end
echo "run_lib_test: passed"
