#!/usr/bin/env bash
# Every tool keeps one exit-status convention (docs/working.md, "Exit status"): 0 done, 1 the work
# failed, 2 bad usage (one line on stderr, "<tool>: ...", naming the option or the word), 3 no CUDA
# device. Each tool answers --version with the Coalesce version and git revision and --help; an
# unknown option, an unknown command and a bad value are status 2 and one line; a GPU command on a
# machine without one (or given `--device 99`, on any machine) is status 3 and one line.
# coalesce-opt and coalesce-translate are MLIR's drivers and keep LLVM's convention (1 for any
# failure); they are checked for a non-zero status and a line naming the option.
set -u
tune=$1 report=$2 bench=$3 opt=$4 translate=$5
fail=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1 (status $rc: $out)"; fail=1; fi; }
run() { out=$("$@" 2>&1 >/dev/null); rc=$?; }
one_line() { [ "$(printf "%s\n" "$out" | wc -l)" -eq 1 ]; }
says() { printf "%s" "$out" | grep -q -- "$1"; }
usage() { [ $rc -eq 2 ] && one_line && says "$1" && ! says "no CUDA device"; }

rc=0 out=
for t in "$tune" "$report" "$bench"; do
  name=$(basename "$t")
  out=$("$t" --version 2>&1); rc=$?
  check "$name --version: the Coalesce version and git revision" \
    '[ $rc -eq 0 ] && printf "%s" "$out" | grep -Eq "^$name [0-9]+\.[0-9]+\.[0-9]+ \(git [0-9a-f]{7,}(-dirty)?\)$"'
  out=$("$t" --help 2>&1); rc=$?
  check "$name --help: status 0" '[ $rc -eq 0 ] && says "Exit status"'
  run "$t" --no-such-flag
  check "$name --no-such-flag: status 2, one line naming it" \
    'usage "^$name: .*not expected: --no-such-flag"'
done
for t in "$opt" "$translate"; do
  name=$(basename "$t")
  out=$("$t" --version 2>&1); rc=$?
  check "$name --version: LLVM's, then the Coalesce version and git revision" \
    '[ $rc -eq 0 ] && says "LLVM version" && printf "%s" "$out" | grep -Eq "^Coalesce [0-9]+\.[0-9]+\.[0-9]+ \(git [0-9a-f]{7,}(-dirty)?\)$"'
  run "$t" --no-such-flag
  check "$name --no-such-flag: non-zero, names it" '[ $rc -ne 0 ] && says "no-such-flag"'
done
out=$("$opt" --show-dialects 2>&1); rc=$?
check "opt knows the dialect" '[ $rc -eq 0 ] && says coalesce'

# coalesce-tune: commands
run "$tune"
check "tune without a command: status 2, one line asking for one" 'usage "coalesce-tune: A subcommand is required"'
run "$tune" foo
check "tune foo: status 2, names foo and lists the commands" \
  'usage "coalesce-tune: '"'"'foo'"'"' is not a command (env, space, sweep, cache, record, record-profile, replay, history)"'
run "$tune" env --device x
check "tune env --device x: status 2, one line naming it" 'usage "--device = x"'
run "$tune" sweep --shape 4096 --device 99 --db /nonexistent/dir/x.db
check "tune sweep --device 99: status 3 at the device query, one line" \
  '[ $rc -eq 3 ] && one_line && says "coalesce-tune: no CUDA device"'

# coalesce-report: commands and options on either side of them
run "$report" foo
check "report foo: status 2, names foo and lists the commands" \
  'usage "coalesce-report: '"'"'foo'"'"' is not a command (history, query, diff, plots"'
run "$report" history --top 0 --db /nonexistent.db
check "report history --top 0: status 2, one line, no largest double" \
  'usage "--top 0: list at least 1 config" && ! says "1797"'
run "$report" query --shape 4096 "SELECT 1"
check "report query --shape: status 2, one line saying why" 'usage "--shape is not an option of query"'
run "$report" --format table
check "report --format table: status 2 (a format of query only)" 'usage "--format '"'"'table'"'"': the report prints md, csv, json"'
run "$report" --db /nonexistent/x.db query "SELECT 1"
check "report --db X query: opens X (status 1, names it)" \
  '[ $rc -eq 1 ] && one_line && says "/nonexistent/x.db"'
run "$report" query --db /nonexistent/y.db "SELECT 1"
check "report query --db Y: opens Y (status 1, names it)" \
  '[ $rc -eq 1 ] && one_line && says "/nonexistent/y.db"'

# coalesce-bench: a bad value before any device is touched
run "$bench" --shape 12x --device 99
check "bench --shape 12x: status 2, one line" 'usage "bad shape"'
run "$bench" --quick --device 99
check "bench --device 99: status 3 at the device query, one line" \
  '[ $rc -eq 3 ] && one_line && says "coalesce-bench: no CUDA device"'

if ! ls /dev/nvidia0 >/dev/null 2>&1; then
  out=$("$tune" env 2>&1); rc=$?
  check "tune env without a GPU: status 0, says so, and prints what it knows" \
    '[ $rc -eq 0 ] && says "^device          none: no GPU here (" && says "^runtime         CUDA [0-9]" && says "^nvrtc           [0-9]" && says "^dry run judges  sm_90 with the H200'"'"'s limits: smem/block (opt-in) 232448 B" && says "^coalesce        [0-9]"'
  run "$bench" --quick
  check "bench without a GPU: status 3, one line saying why" \
    '[ $rc -eq 3 ] && one_line && says "coalesce-bench: no CUDA device: "'
fi
exit $fail
