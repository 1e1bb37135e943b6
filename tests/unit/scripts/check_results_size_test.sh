#!/usr/bin/env bash
# scripts/check-results-size.sh on throw-away repositories: a tracked file under results/ over
# 5 MiB fails, and so do tracked files of results/ over 40 MiB together; a file at the limit, a
# big untracked or ignored file and a big file outside results/ pass; staged content counts, not
# the work tree; each failure is a line naming the file or the total, status 1.
#
# Usage: check_results_size_test.sh SCRIPT
set -u
script=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
pass() { echo "ok: $1"; }
flunk() { echo "FAIL: $1"; fail=1; }
mib=$((1024 * 1024))

# repo NAME: a fresh repository with one small results file committed.
repo() {
  local dir=$work/$1
  git init -q "$dir" && mkdir -p "$dir/results" && printf 'run,median\n' >"$dir/results/summary.csv"
  git -C "$dir" add results && git -C "$dir" -c user.name=t -c user.email=t@t commit -q -m init
  echo "$dir"
}
# sized FILE BYTES
sized() { mkdir -p "$(dirname "$1")" && head -c "$2" /dev/zero >"$1"; }
# expect NAME STATUS GREP DIR
expect() {
  local out rc
  out=$("$script" "$4" 2>&1); rc=$?
  if [ $rc -ne "$2" ]; then flunk "$1: status $rc, not $2: $out"
  elif [ -n "$3" ] && ! printf '%s' "$out" | grep -q -- "$3"; then flunk "$1: '$out' lacks '$3'"
  elif [ "$2" -eq 0 ] && [ -n "$out" ]; then flunk "$1: said '$out'"
  else pass "$1"
  fi
}

r=$(repo small)
expect "a small results/ passes" 0 "" "$r"

r=$(repo at_limit)
sized "$r/results/report.md" $((5 * mib))
git -C "$r" add results
expect "a file of exactly 5 MiB passes" 0 "" "$r"

r=$(repo big_file)
sized "$r/results/coalesce.db" $((5 * mib + 1))
git -C "$r" add results
expect "a staged file over 5 MiB fails, named" 1 "results/coalesce.db is 5242881 bytes" "$r"
[ "$("$script" "$r" 2>&1 | wc -l)" -eq 1 ] && pass "one line for one offence" || flunk "not one line for one offence"

r=$(repo big_folder)
for i in 1 2 3 4 5 6 7 8 9; do sized "$r/results/plots/p$i.png" $((4 * mib + 512 * 1024)); done
git -C "$r" add results
expect "tracked files over 40 MiB together fail" 1 "results/ tracks 42467339 bytes, over its 41943040" "$r"

r=$(repo untracked)
sized "$r/results/lab.db" $((6 * mib))
sized "$r/results/logs/run1/probe.tgz" $((41 * mib))
sized "$r/weights/model.bin" $((6 * mib))
git -C "$r" add weights
expect "untracked files under results/ and a big file outside it pass" 0 "" "$r"

r=$(repo staged_not_worktree)
sized "$r/results/report.md" $((6 * mib))
git -C "$r" add results
printf 'small now\n' >"$r/results/report.md"
expect "the staged content counts, not the work tree's" 1 "results/report.md is 6291456 bytes" "$r"

expect "not a repository: status 2" 2 "is not a git repository" "$work/nowhere"
out=$("$script" a b 2>&1); rc=$?
[ $rc -eq 2 ] && printf '%s' "$out" | grep -q usage && pass "two arguments: usage, status 2" || flunk "two arguments: $rc $out"
exit $fail
