#!/usr/bin/env bash
# coalesce-tune's command line on a machine without a GPU: every bad input is one line on stderr
# naming the problem and status 2 (bad usage, docs/working.md) with the database file untouched
# (checksum) or never created; a dry run compiles through NVRTC without a GPU, writes no database,
# and hits the cache the second time; the cache verbs count, verify, clear and refuse a bad
# directory. Valid inputs are shown to get past the command line: with `--device 99` they stop at
# the device query (status 3, "no CUDA device", on any machine) before the database is opened.
set -u
tune=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi; }

db=$work/results.db
printf 'an existing file that must not change\n' > "$db"
sum=$(sha256sum "$db")

# Each line: arguments after `sweep`, and the text the one-line error must contain.
while IFS='|' read -r args expect; do
  [ -z "$args" ] && continue
  out=$("$tune" sweep $args --db "$db" --cache-dir "$work/cache" 2>&1 >/dev/null); rc=$?
  check "sweep $args: status 2" '[ $rc -eq 2 ]'
  check "sweep $args: one line" '[ "$(printf "%s\n" "$out" | wc -l)" -eq 1 ]'
  check "sweep $args: says '$expect'" 'printf "%s" "$out" | grep -q -- "$expect"'
  check "sweep $args: not a device error" '! printf "%s" "$out" | grep -q "no CUDA device"'
  check "sweep $args: database untouched" '[ "$(sha256sum "$db")" = "$sum" ]'
done <<'CASES'
--shape 0|--shape '0': expected N (M = N = K) or MxNxK, e.g. 4096 or 1024x2048x512 (x or ×), each side a whole number from 1 to 1048576
--shape -5|--shape '-5': expected N (M = N = K) or MxNxK
--shape 4096x0x16|--shape '4096x0x16': expected N
--shape 12x34|--shape '12x34': expected N
--shape 1x2x3x4|--shape '1x2x3x4': expected N
--shape abc|--shape 'abc': expected N
--shape 99999999999|each side a whole number from 1 to 1048576
--shape 1048577|each side a whole number from 1 to 1048576
--shape 4096 --dtype bf16 --family simt|--family simt cannot compute --dtype bf16: the simt family computes in f32
--shape 4096 --dtype f64|--dtype 'f64' is not a dtype
--shape 4096 --family tensor|--family 'tensor' is not a kernel family (simt
--shape 4096 --epilogue swish|--epilogue 'swish' is not an epilogue
--shape 4096 --shard 3/3|--shard '3/3' is not I/N with 0 <= I < N
--shape 4096 --shard 1|--shard '1' is not I/N
--shape 4096 --shard -1/2|--shard '-1/2' is not I/N
--shape 4096 --devices 0,0|--devices '0,0' names device 0 twice
--shape 4096 --devices 0,gpu1|--devices '0,gpu1': 'gpu1' is not a device ordinal
--shape 4096 --devices 0 --device 1|--device and --devices: give one of them
--shape 4096 --devices all --dry-run|a --dry-run measures nothing
--shape 4096 --strategy greedy|--strategy 'greedy' is not a strategy
--shape 4096 --strategy random|--strategy random needs --budget
--shape 4096 --strategy exhaustive --budget 5|--budget needs --strategy random or model
--shape 4096 --strategy random --budget 0|--budget must be at least 1
--shape 4096 --timeout 0|--timeout 0: give the seconds one measurement may take, more than 0 and at most 86400 (a day)
--shape 4096 --timeout inf|--timeout inf: give the seconds one measurement may take, more than 0 and at most 86400
--shape 4096 --timeout nan|--timeout nan: give the seconds
--shape 4096 --timeout 86401|--timeout 86401: give the seconds
--shape 4096 --strategy random --budget 1 --seed -1|--seed '-1' is not a whole number from 0 to 18446744073709551615
--shape 4096 --strategy random --budget 1 --seed 18446744073709551616|--seed '18446744073709551616' is not a whole number from 0 to 18446744073709551615
--shape 4096 --strategy random --budget 1 --seed 1.5|--seed '1.5' is not a whole number
--shape 4096 -j 40000|-j 40000: give 1 to 1024 compile threads
--shape 4096 -j 0|-j 0: give 1 to 1024 compile threads
--shape 4096 --jobs -3|-j -3: give 1 to 1024 compile threads
--shape 4096 --no-such-flag|not expected: --no-such-flag
--dtype f32|--shape or --shapes-file is required (see --help)
CASES

# The same options made valid get past the command line and stop at the device query.
while read -r args; do
  [ -z "$args" ] && continue
  out=$("$tune" sweep $args --device 99 --db "$db" --cache-dir "$work/cache" 2>&1 >/dev/null); rc=$?
  check "sweep $args: accepted (status 3 at the device query, one line)" \
    '[ $rc -eq 3 ] && [ "$(printf "%s\n" "$out" | wc -l)" -eq 1 ] && printf "%s" "$out" | grep -q "no CUDA device"'
  check "sweep $args: database untouched" '[ "$(sha256sum "$db")" = "$sum" ]'
done <<'CASES'
--shape 4096
--shape 4096x1024x16
--shape 4096×1024×16
--shape 1048576x1x1
--shape 4096 --dtype f32
--shape 4096 --family simt
--shape 4096 --epilogue bias_relu
--shape 4096 --strategy exhaustive
--shape 4096 --budget 5
--shape 4096 --strategy random --budget 1
--shape 4096 --timeout 0.5
--shape 4096 --timeout 86400
--shape 4096 --strategy random --budget 1 --seed 18446744073709551615
--shape 4096 --strategy random --budget 1 --seed 0
--shape 4096 -j 1024
--shape 4096 -j 1
--shape 4096 --shape 512 --shard 1/2
--shape 4096 --shape 512 --shard 0/3
CASES

# --db onto a --shapes-file (itself, through a symlink or `..`, or a hard link): refused before the
# device query, the file's bytes unchanged (issue 45).
mkdir -p "$work/guard/sub"
printf '4096,4096,4096,,\n' >"$work/guard/w.csv"
ln -s w.csv "$work/guard/w_link.csv"
ln "$work/guard/w.csv" "$work/guard/w_hard.csv"
wsum=$(sha256sum "$work/guard/w.csv")
for target in w.csv w_link.csv sub/../w.csv w_hard.csv; do
  out=$("$tune" sweep --shapes-file "$work/guard/w.csv" --device 99 --db "$work/guard/$target" --cache-dir "$work/cache" 2>&1 >/dev/null); rc=$?
  check "sweep --db $target onto the --shapes-file: status 2, one line, file unchanged" \
    '[ $rc -eq 2 ] && [ "$(printf "%s\n" "$out" | wc -l)" -eq 1 ] && [ "$(sha256sum "$work/guard/w.csv")" = "$wsum" ] &&
     printf "%s" "$out" | grep -q "^coalesce-tune: --db $work/guard/$target is --shapes-file $work/guard/w.csv: writing it would destroy it"'
done

# A shard with no problem (more array tasks than problems) has nothing to do: status 0, and no
# device or database is touched.
out=$("$tune" sweep --shape 4096 --shard 1/2 --device 99 --db "$work/empty-shard.db" --cache-dir "$work/cache" 2>&1); rc=$?
check "an empty shard: status 0, nothing to do, no database" \
  '[ $rc -eq 0 ] && printf "%s" "$out" | grep -q "nothing to do: shard 1/2 has no problem (the sweep has 1;" && [ ! -e "$work/empty-shard.db" ]'

# --devices: an ordinal the host lacks is bad usage (two stand-in devices here); without a GPU
# --devices all stops at the device count, like a sweep on one device.
out=$(COALESCE_TEST_STANDIN_WORKER=/bin/false COALESCE_TEST_STANDIN_DEVICES=2 "$tune" sweep --shape 256 --devices 0,5 \
      --db "$db" --cache-dir "$work/cache" 2>&1 >/dev/null); rc=$?
check "sweep --devices 0,5 on two devices: status 2, one line" \
  '[ $rc -eq 2 ] && [ "$(printf "%s\n" "$out" | wc -l)" -eq 1 ] && printf "%s" "$out" | grep -q "device 5 is not here (this host has 2, ordinals 0 to 1)"'
check "sweep --devices 0,5: database untouched" '[ "$(sha256sum "$db")" = "$sum" ]'
# --l2-flush takes write or read; anything else is bad usage before any device or database.
out=$("$tune" sweep --shape 256 --l2-flush clean --db "$db" --cache-dir "$work/cache" 2>&1 >/dev/null); rc=$?
check "sweep --l2-flush clean: status 2, naming the choices" \
  '[ $rc -eq 2 ] && printf "%s" "$out" | grep -q -- "--l2-flush" && printf "%s" "$out" | grep -q "write" && printf "%s" "$out" | grep -q "read"'
check "sweep --l2-flush clean: database untouched" '[ "$(sha256sum "$db")" = "$sum" ]'
# --sample-gap-ms takes 0 to 1000 milliseconds.
out=$("$tune" sweep --shape 256 --sample-gap-ms -5 --db "$db" --cache-dir "$work/cache" 2>&1 >/dev/null); rc=$?
check "sweep --sample-gap-ms -5: status 2, naming the option" '[ $rc -eq 2 ] && printf "%s" "$out" | grep -q -- "--sample-gap-ms"'
check "sweep --sample-gap-ms -5: database untouched" '[ "$(sha256sum "$db")" = "$sum" ]'
# --max-samples below --min-samples is bad usage, one sentence naming both.
out=$("$tune" sweep --shape 256 --min-samples 50 --max-samples 10 --db "$db" --cache-dir "$work/cache" 2>&1 >/dev/null); rc=$?
check "sweep --min-samples 50 --max-samples 10: status 2, one line" \
  '[ $rc -eq 2 ] && [ "$(printf "%s\n" "$out" | wc -l)" -eq 1 ] && printf "%s" "$out" | grep -q -- "--max-samples (10) is below --min-samples (50)"'
check "sweep --min-samples 50 --max-samples 10: database untouched" '[ "$(sha256sum "$db")" = "$sum" ]'
# --steady-top re-times a sweep of the default sampling on the GPU: with a sampling that is
# already the steady state, with --dry-run, with too few --steady-samples, or --steady-samples
# alone, it is bad usage in one sentence.
for bad in "--steady-top 3 --min-samples 3000 --max-samples 3000|already times this sweep in the steady state" \
           "--steady-top 3 --dry-run|a --dry-run measures nothing" \
           "--steady-top 3 --steady-samples 500|--steady-samples 500 is below 1000" \
           "--steady-samples 3000|give that too" \
           "--steady-top 0|--steady-top"; do
  opts=${bad%%|*} want=${bad#*|}
  out=$("$tune" sweep --shape 256 $opts --db "$db" --cache-dir "$work/cache" 2>&1 >/dev/null); rc=$?
  check "sweep $opts: status 2, one line" \
    '[ $rc -eq 2 ] && [ "$(printf "%s\n" "$out" | wc -l)" -eq 1 ] && printf "%s" "$out" | grep -q -- "$want"'
  check "sweep $opts: database untouched" '[ "$(sha256sum "$db")" = "$sum" ]'
done
out=$(SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_TASK_COUNT=3 "$tune" sweep --shape 256 --db "$db" --cache-dir "$work/cache" 2>&1 >/dev/null); rc=$?
check "sweep in a Slurm array task outside the array: status 2, one line" \
  '[ $rc -eq 2 ] && [ "$(printf "%s\n" "$out" | wc -l)" -eq 1 ] && printf "%s" "$out" | grep -q "SLURM_ARRAY_TASK_ID 3 is not one of the array.s 3 tasks"'

# --shapes-file: a bad line is one sentence naming FILE:LINE (status 2, the database untouched), for
# sweep and space alike; a good file, with --shape beside it, gets past the command line.
printf '# a comment\n128,768,256,,bias,qkv,2\n128,0,256,,bias,bad\n' >"$work/bad_extent.csv"
printf 'm,n,k,dtype,epilogue,name,count\n128,768,256,f64,bias\n' >"$work/bad_dtype.csv"
printf '128,768,256,,bias,qkv,0\n' >"$work/bad_count.csv"
printf '128,768,256,,bias\n128,768,256\n' >"$work/bad_fields.csv"
printf '128,768,256,bf16,bias\n' >"$work/bf16.csv"
printf '# nothing but comments\n\n' >"$work/empty.csv"
while IFS='|' read -r file expect; do
  [ -z "$file" ] && continue
  for cmd in sweep space; do
    out=$("$tune" $cmd --shapes-file "$work/$file" $([ $cmd = sweep ] && echo --db "$db" --cache-dir "$work/cache") --family simt 2>&1 >/dev/null); rc=$?
    check "$cmd --shapes-file $file: status 2, one line" '[ $rc -eq 2 ] && [ "$(printf "%s\n" "$out" | wc -l)" -eq 1 ]'
    check "$cmd --shapes-file $file: says '$expect'" 'printf "%s" "$out" | grep -qF -- "$expect"'
  done
  check "--shapes-file $file: database untouched" '[ "$(sha256sum "$db")" = "$sum" ]'
done <<CASES
bad_extent.csv|coalesce-tune: $work/bad_extent.csv:3: n '0': expected a whole number from 1 to 1048576, as a --shape's side
bad_dtype.csv|coalesce-tune: $work/bad_dtype.csv:2: dtype 'f64' is not a dtype (f32, tf32, bf16, f16; empty: the tool's --dtype)
bad_count.csv|coalesce-tune: $work/bad_count.csv:1: count '0': expected a whole number from 1 to 2147483647
bad_fields.csv|coalesce-tune: $work/bad_fields.csv:2: expected m,n,k,dtype,epilogue[,name][,count], found 3 fields
bf16.csv|coalesce-tune: --family simt cannot compute bf16 ($work/bf16.csv:1): the simt family computes in f32
empty.csv|coalesce-tune: $work/empty.csv: no problem in it
nosuch.csv|coalesce-tune: $work/nosuch.csv: cannot read it (No such file or directory)
CASES
printf 'm,n,k,dtype,epilogue,name,count\n128,768,256,,bias,q,2\n128,768,256,,bias,k,2  # the same problem\n128,256,256,f32,,out\n' >"$work/good.csv"
out=$("$tune" sweep --shapes-file "$work/good.csv" --shape 128x768x256 --epilogue bias --device 99 --db "$db" --cache-dir "$work/cache" 2>&1 >/dev/null); rc=$?
check "sweep --shapes-file with --shape: accepted (status 3 at the device query)" '[ $rc -eq 3 ] && printf "%s" "$out" | grep -q "no CUDA device"'
out=$("$tune" space --shapes-file "$work/good.csv" --shape 128x768x256 --epilogue bias --format csv 2>/dev/null); rc=$?
check "space --shapes-file: each problem once, empty fields from --dtype and --epilogue" \
  '[ $rc -eq 0 ] && [ "$(printf "%s\n" "$out" | tail -n +2 | cut -d, -f1-5 | sort -u | tr "\n" " ")" = "128,256,256,f32,bias 128,768,256,f32,bias " ]'
# Every preset in workloads/: the space lists each of its distinct problems once.
presets=$(cd "$(dirname "$0")/../../../workloads" && pwd)
for preset in "$presets"/*.csv; do
  want=$(grep -v '^#' "$preset" | tail -n +2 | cut -d, -f1-3,5 | sort -u | sed 's/,/,bf16,/3' | tr '\n' ' ')
  got=$("$tune" space --shapes-file "$preset" --dtype bf16 --format csv 2>/dev/null | tail -n +2 | cut -d, -f1-5 | sort -u | tr '\n' ' ')
  check "space --shapes-file workloads/$(basename "$preset"): its $(printf "%s" "$want" | wc -w) problems, each once" '[ -n "$want" ] && [ "$got" = "$want" ]'
done

# Without a GPU a real sweep stops before opening the database: exit 3, one line.
if ! ls /dev/nvidia0 >/dev/null 2>&1; then
  out=$("$tune" sweep --shape 256 --db "$db" --cache-dir "$work/cache" 2>&1 >/dev/null); rc=$?
  check "sweep without a GPU exits 3" '[ $rc -eq 3 ]'
  check "sweep without a GPU says so in one line" '[ "$(printf "%s\n" "$out" | wc -l)" -eq 1 ] && printf "%s" "$out" | grep -q "no CUDA device"'
  check "sweep without a GPU leaves the database untouched" '[ "$(sha256sum "$db")" = "$sum" ]'
  out=$("$tune" sweep --shape 256 --db "$work/new.db" --cache-dir "$work/cache" 2>&1); rc=$?
  check "sweep without a GPU creates no database" '[ $rc -eq 3 ] && [ ! -e "$work/new.db" ]'
  out=$("$tune" sweep --shape 256 --devices all --db "$work/new.db" --cache-dir "$work/cache" 2>&1 >/dev/null); rc=$?
  check "sweep --devices all without a GPU exits 3 in one line" \
    '[ $rc -eq 3 ] && [ "$(printf "%s\n" "$out" | wc -l)" -eq 1 ] && printf "%s" "$out" | grep -q "no CUDA device" && [ ! -e "$work/new.db" ]'
fi

# record: a bad line is one sentence naming it, exit 2, the database untouched (or not created);
# a feed that stops without its end line exits 1.
header='{"kind":"run","tool":"t","tool_version":"1","git_revision":"g","command_line":"c","host":"h","resume_key":"k","device":{"uuid":"GPU-1","name":"X","cc_major":9,"cc_minor":0,"sm_count":1,"l2_bytes":1,"global_mem_bytes":1,"limits":{"smem_per_block_optin":1,"smem_per_sm":1,"max_threads_per_block":1,"max_threads_per_sm":1,"regs_per_sm":1,"max_regs_per_thread":1,"max_blocks_per_sm":1}}}'
out=$(printf '%s\n{"kind":"sample","ms":-1}\n' "$header" | "$tune" record --db "$db" 2>&1 >/dev/null); rc=$?
check "record: a bad line exits 2" '[ $rc -eq 2 ]'
check "record: one line naming the line" '[ "$(printf "%s\n" "$out" | wc -l)" -eq 1 ] && printf "%s" "$out" | grep -q "line 2: \"ms\" must be a positive number"'
check "record: database untouched" '[ "$(sha256sum "$db")" = "$sum" ]'
out=$(printf '%s\n' "$header" | "$tune" record --db "$work/fed.db" 2>&1 >/dev/null); rc=$?
check "record: a feed without its end line exits 1" '[ $rc -eq 1 ] && printf "%s" "$out" | grep -q "without an end line; nothing was stored"'
check "record: a feed that stored nothing creates no database" '[ ! -e "$work/fed.db" ]'

# record-profile: its flags are bad usage (2) before anything is opened; a database that is not a
# Coalesce one is refused (1) and left as it was; a missing one is not created.
profile='{"kernel":"k","tool":"ncu","metrics":{"gpu__time_duration.sum":1.0},"units":{"gpu__time_duration.sum":"us"}}'
out=$(printf '%s' "$profile" | "$tune" record-profile --db "$db" --shape 4096 --dtype bf16 --method cublas_gemm 2>&1 >/dev/null); rc=$?
check "record-profile without --device: status 2, one line" '[ $rc -eq 2 ] && [ "$(printf "%s\n" "$out" | wc -l)" -eq 1 ] && printf "%s" "$out" | grep -q -- "--device is required"'
out=$(printf '%s' "$profile" | "$tune" record-profile --db "$db" --device GPU-1 --shape 4096 --dtype bf16 --method cublas_gemm --config x 2>&1 >/dev/null); rc=$?
check "record-profile: a baseline with --config is status 2" '[ $rc -eq 2 ] && printf "%s" "$out" | grep -q "is a library baseline, which has no config"'
out=$(printf '%s' "$profile" | "$tune" record-profile --db "$db" --device GPU-1 --shape 4096 --dtype bf16 --method cublas_gemm 2>&1 >/dev/null); rc=$?
check "record-profile: a file that is not a database is status 1, untouched" '[ $rc -eq 1 ] && printf "%s" "$out" | grep -q "not a Coalesce database" && [ "$(sha256sum "$db")" = "$sum" ]'
out=$(printf '%s' "$profile" | "$tune" record-profile --db "$work/none.db" --device GPU-1 --shape 4096 --dtype bf16 --method cublas_gemm 2>&1 >/dev/null); rc=$?
check "record-profile: a missing database is status 1, not created" '[ $rc -eq 1 ] && printf "%s" "$out" | grep -q "does not exist" && [ ! -e "$work/none.db" ]'

# The space lists every candidate with a verdict, pruned ones with their category and sentence,
# as text, CSV (one header, a row per candidate) or JSON (the same rows).
out=$("$tune" space --shape 4096 2>/dev/null)
check "space lists legal configs" 'printf "%s\n" "$out" | grep -q "^simt_f32_.*_bias_gelu  legal  "'
check "space gives each pruned config a reason" '! printf "%s\n" "$out" | grep "  pruned  " | grep -vq ": "'
check "space --all adds the non-configs" '"$tune" space --shape 4096 --all 2>/dev/null | grep -q "  not_a_config  "'
# Every candidate of every family is one line that is not a comment.
text_rows=$(printf "%s\n" "$out" | grep -v "^#" | grep -c .)
csv=$("$tune" space --shape 4096 --format csv 2>/dev/null); rc=$?
check "space --format csv: a header, then one row per candidate" \
  '[ $rc -eq 0 ] && [ "$(printf "%s\n" "$csv" | head -n 1)" = "m,n,k,dtype,epilogue,family,config,verdict,predicted_registers,smem_bytes,blocks_per_sm,reason,message" ] && [ "$(printf "%s\n" "$csv" | tail -n +2 | grep -vc ",refused,")" -eq "$text_rows" ]'
check "space --format csv: a family that refuses the dtype is one row saying so" \
  'printf "%s\n" "$csv" | grep -q "^4096,4096,4096,f32,bias_gelu,wgmma,,refused,,,,dtype,"'
check "space --format csv: pruned rows carry the reason" \
  'printf "%s\n" "$csv" | grep -q "^4096,4096,4096,f32,bias_gelu,simt,simt_f32_[^,]*,pruned,[0-9]*,[0-9]*,[0-9]*,registers,"'
json=$("$tune" space --shape 4096 --format json 2>/dev/null); rc=$?
check "space --format json: the same rows" \
  '[ $rc -eq 0 ] && [ "$(printf "%s" "$json" | python3 -c "import json,sys; d=json.load(sys.stdin); print(d[\"format\"], sum(r[\"verdict\"] != \"refused\" for r in d[\"rows\"]))")" = "coalesce-tune/space $text_rows" ]'
out=$("$tune" space --shape 4096 --format xml 2>&1 >/dev/null); rc=$?
check "space --format xml: status 2, one line naming it" '[ $rc -eq 2 ] && [ "$(printf "%s\n" "$out" | wc -l)" -eq 1 ] && printf "%s" "$out" | grep -q -- "--format: xml not in {text,csv,json}"'
# Split-K: listed where the unsplit grid leaves SMs idle, counted where it fills them, and pruned
# as `workspace` above --max-workspace (64 x 4096 floats per slice are 1 MiB).
out=$("$tune" space --shape 4096 2>/dev/null)
check "space at 4096: split-K counted, not listed" \
  'printf "%s\n" "$out" | grep -q "^# split-K not listed for [0-9]* legal configs" && ! printf "%s\n" "$out" | grep -q "_sk[0-9]*_bias_gelu"'
out=$("$tune" space --shape 64x4096x4096 --family simt 2>/dev/null)
check "space at 64x4096x4096: split-K variants are legal candidates" 'printf "%s\n" "$out" | grep -q "^simt_f32_.*_sk16_bias_gelu  legal  "'
out=$("$tune" space --shape 64x4096x4096 --family simt --max-workspace 2 2>/dev/null)
check "space --max-workspace 2: splits above 2 MiB of partials are pruned as workspace" \
  'printf "%s\n" "$out" | grep -q "_sk3_bias_gelu  pruned .*workspace: " && printf "%s\n" "$out" | grep -q "_sk2_bias_gelu  legal  "'
out=$("$tune" space --shape 64 --max-workspace -1 2>&1); rc=$?
check "space --max-workspace -1: refused" '[ $rc -eq 2 ]'

# The gated epilogues (swiglu, geglu; N is the merged gate/up GEMM's): mma, wgmma and gemv list
# candidates, simt is refused with the reason, and an odd N is refused in every family.
csv=$("$tune" space --shape 128x256x64 --dtype bf16 --epilogue swiglu --format csv 2>/dev/null); rc=$?
check "space --epilogue swiglu: mma candidates, legal" \
  '[ $rc -eq 0 ] && printf "%s\n" "$csv" | grep -q "^128,256,64,bf16,swiglu,mma,mma_bf16_[^,]*_swiglu,legal,"'
csv=$("$tune" space --shape 128x256x64 --epilogue geglu --format csv 2>/dev/null); rc=$?
check "space --epilogue geglu: simt refused, saying it stores no gated epilogue" \
  '[ $rc -eq 0 ] && printf "%s\n" "$csv" | grep -q "^128,256,64,f32,geglu,simt,,refused,,,,epilogue,.*store no gated epilogue"'
csv=$("$tune" space --shape 128x255x64 --dtype bf16 --epilogue swiglu --format csv 2>/dev/null); rc=$?
check "space --epilogue swiglu at an odd N: every family refused, saying N must be even" \
  '[ $rc -eq 0 ] && [ "$(printf "%s\n" "$csv" | tail -n +2 | grep -vc ",refused,")" -eq 0 ] && printf "%s\n" "$csv" | grep -q "^128,255,64,bf16,swiglu,mma,,refused,,,,divisibility,.*even N"'
out=$("$tune" sweep --shape 16x28672x4096 --dtype bf16 --epilogue swiglu --family mma --strategy random --budget 1 --seed 1 --dry-run --db "$work/dry-gated.db" --cache-dir "$work/gated-cache" 2>/dev/null); rc=$?
check "sweep --epilogue swiglu --dry-run: compiles the drawn mma config, writes no database" \
  '[ $rc -eq 0 ] && [ "$(printf "%s\n" "$out" | grep -c "  registers [0-9]* (predicted ")" -eq 1 ] && printf "%s\n" "$out" | grep -q "mma_bf16_.*_swiglu" && [ ! -e "$work/dry-gated.db" ]'

# A bad --cache-dir is refused before any work (no compile, no database), naming the flag.
out=$("$tune" sweep --shape 128 --dry-run --cache-dir "$db" 2>&1); rc=$?
check "sweep --cache-dir FILE: status 1, one line naming the flag, before any work" \
  '[ $rc -eq 1 ] && [ "$(printf "%s\n" "$out" | wc -l)" -eq 1 ] && printf "%s" "$out" | grep -q "^coalesce-tune: --cache-dir $db: not a directory$"'
out=$("$tune" sweep --shape 128 --device 99 --db "$work/gated.db" --cache-dir "$db/sub" 2>&1); rc=$?
check "sweep --cache-dir under a file: status 1 before the device query and the database" \
  '[ $rc -eq 1 ] && printf "%s" "$out" | grep -q "^coalesce-tune: --cache-dir $db/sub: cannot create it" && [ ! -e "$work/gated.db" ]'

# A dry run compiles two drawn configs without a GPU and writes no database (one family: f32's
# are two, simt and mma, and --budget draws per family).
dry=$work/dry.db
out=$("$tune" sweep --shape 128 --family simt --strategy random --budget 2 --seed 1 --dry-run --db "$dry" --cache-dir "$work/cache" -j 2 2>/dev/null); rc=$?
check "dry run exits 0" '[ $rc -eq 0 ]'
check "dry run compiles the two drawn configs" '[ "$(printf "%s\n" "$out" | grep -c "  registers [0-9]* (predicted ")" -eq 2 ]'
check "dry run prints what it compiles, not the configs pruned before compiling" \
  '! printf "%s\n" "$out" | grep -q "  pruned " && printf "%s\n" "$out" | grep -q "pruned before compiling (coalesce-tune space lists them)"'
check "dry run writes no database" '[ ! -e "$dry" ]'
err=$("$tune" sweep --shape 128 --family simt --strategy random --budget 2 --seed 1 --dry-run --db "$dry" --cache-dir "$work/cache" 2>&1 >/dev/null)
check "dry run with --db says it ignores it" \
  'printf "%s\n" "$err" | grep -q "^coalesce-tune: --dry-run stores nothing: --db $dry is ignored (not opened, not created)$" && [ ! -e "$dry" ]'
err=$("$tune" sweep --shape 128 --family simt --strategy random --budget 2 --seed 1 --dry-run --cache-dir "$work/cache" 2>&1 >/dev/null)
check "dry run without --db says nothing of it" '! printf "%s\n" "$err" | grep -q -- "--db"'
check "dry run fills the kernel cache" '[ "$(find "$work/cache" -name "*.cubin" | wc -l)" -eq 2 ]'
out=$("$tune" sweep --shape 128 --family simt --strategy random --budget 2 --seed 1 --dry-run --db "$dry" --cache-dir "$work/cache" 2>/dev/null)
check "a second dry run is served from the cache" '[ "$(printf "%s\n" "$out" | grep -c "(cached)")" -eq 2 ]'

# The model-guided strategy (the default) learns from a stored-sweeps file given as --history: a
# hand-written sweep of 16 simt configs, and it says so once per family; a file that is neither a
# database nor such a file is refused, exit 1. `history` refuses to write over its input (and,
# in the bad-input suite, to write a file of no sweep).
names=$("$tune" space --shape 128 --family simt --format csv 2>/dev/null | awk -F, 'NR > 1 && $8 == "legal" {print $7}' | head -n 16)
{ echo "# coalesce stored sweeps 1"
  printf 'sweep\t7\t1\t128\t128\t128\tf32\tbias_gelu\tsimt\tflush_b2b\t132\t1\n'
  i=0; for n in $names; do i=$((i + 1)); printf '%s\t0.%02d\n' "$n" "$((10 + i))"; done; } > "$work/history.tsv"
out=$("$tune" sweep --shape 128 --family simt --budget 2 --dry-run --history "$work/history.tsv" --cache-dir "$work/model-cache" 2>/dev/null); rc=$?
check "model dry run with a stored-sweeps file: exit 0, learns from its 16 configs" \
  '[ $rc -eq 0 ] && [ "$(printf "%s\n" "$names" | wc -l)" -eq 16 ] &&
   [ "$(printf "%s\n" "$out" | grep -c "^model: learns from 16 measured configs of simt in 1 stored sweeps ($work/history.tsv)$")" -eq 1 ]'
check "model dry run compiles its budget" '[ "$(printf "%s\n" "$out" | grep -c "  registers [0-9]* (predicted ")" -eq 2 ]'
printf 'not a database\n' > "$work/notes.txt"
out=$("$tune" sweep --shape 128 --family simt --budget 2 --dry-run --history "$work/notes.txt" --cache-dir "$work/model-cache" 2>&1 >/dev/null); rc=$?
check "model dry run with a --history that is no database: exit 1, the last line names it" \
  '[ $rc -eq 1 ] && [ "$(printf "%s\n" "$out" | tail -n 1)" = "coalesce-tune: $work/notes.txt is not a Coalesce database (not an SQLite file)" ]'
out=$("$tune" history --db "$db" --out "$db" 2>&1 >/dev/null); rc=$?
check "history --out onto its --db: exit 2, database untouched" '[ $rc -eq 2 ] && [ "$(sha256sum "$db")" = "$sum" ]'

# Ctrl-C during a dry run: status 130 and one line on stderr saying what stopped and what stays
# (issue 45: it died silently).
err=$(timeout --preserve-status --signal=INT 4 "$tune" sweep --shape 4096 --family simt --dry-run \
      --cache-dir "$work/int-cache" -j 1 2>&1 >/dev/null); rc=$?
check "dry run interrupted: status 130, one line naming the cache" \
  '[ $rc -eq 130 ] && [ "$(printf "%s\n" "$err" | grep -c "^coalesce-tune: interrupted: ")" -eq 1 ] &&
   printf "%s\n" "$err" | grep -q "^coalesce-tune: interrupted: the dry run stopped after [0-9]* configs; the kernels compiled so far stay in the cache $work/int-cache$"'

# The cache verbs on that cache: stats counts, verify drops a cut-off cubin (the next dry run
# compiles it again), clear removes every entry; a bad --cache-dir is one line, exit 1.
out=$("$tune" cache stats --cache-dir "$work/cache" 2>&1); rc=$?
check "cache stats exits 0" '[ $rc -eq 0 ]'
check "cache stats counts the two entries" 'printf "%s\n" "$out" | grep -q "^entries *2: 2 ok, 0 failed"'
check "cache stats names the directory" 'printf "%s\n" "$out" | grep -q "$work/cache"'
cubin=$(find "$work/cache" -name "*.cubin" | sort | head -n 1)
truncate -s 100 "$cubin"
out=$("$tune" cache --cache-dir "$work/cache" verify 2>&1); rc=$?
check "cache verify exits 0" '[ $rc -eq 0 ]'
check "cache verify drops the cut-off entry" 'printf "%s\n" "$out" | grep -q "2 entries checked, 1 kept, 1 dropped"'
check "cache verify says why" 'printf "%s\n" "$out" | grep -q "^dropped .*: the cubin has 100 bytes"'
check "cache verify removed its files" '[ ! -e "$cubin" ] && [ ! -e "${cubin%.cubin}.json" ]'
out=$("$tune" sweep --shape 128 --family simt --strategy random --budget 2 --seed 1 --dry-run --cache-dir "$work/cache" 2>/dev/null)
check "the dropped entry is compiled again" '[ "$(printf "%s\n" "$out" | grep -c "(cached)")" -eq 1 ] && [ "$(find "$work/cache" -name "*.cubin" | wc -l)" -eq 2 ]'
printf 'not the cache\n' > "$work/cache/notes.txt"
out=$(XDG_CACHE_HOME=/nonexistent "$tune" cache clear --cache-dir "$work/cache" 2>&1); rc=$?
check "cache clear says how many it removed" '[ $rc -eq 0 ] && printf "%s\n" "$out" | grep -q ": 2 entries removed"'
check "cache clear leaves no entry and other files alone" '[ -z "$(find "$work/cache" -name "*.cubin" -o -name "*.json")" ] && [ -e "$work/cache/notes.txt" ]'
for verb in stats verify clear; do
  out=$("$tune" cache $verb --cache-dir "$work/nowhere" 2>&1 >/dev/null); rc=$?
  check "cache $verb of a missing directory: exit 1, one line" '[ $rc -eq 1 ] && [ "$(printf "%s\n" "$out" | wc -l)" -eq 1 ] && printf "%s" "$out" | grep -q "does not exist"'
  out=$("$tune" cache $verb --cache-dir "$db" 2>&1 >/dev/null); rc=$?
  check "cache $verb of a file: exit 1, one line, file untouched" '[ $rc -eq 1 ] && printf "%s" "$out" | grep -q "not a directory" && [ "$(sha256sum "$db")" = "$sum" ]'
done
out=$("$tune" cache 2>&1 >/dev/null); rc=$?
check "cache without a verb: exit 2, one line naming the verbs" '[ $rc -eq 2 ] && [ "$(printf "%s\n" "$out" | wc -l)" -eq 1 ] && printf "%s" "$out" | grep -q "^coalesce-tune: cache needs a command (stats, verify, clear)$"'
out=$("$tune" cache --cache-dir "$work/cache" frobnicate 2>&1 >/dev/null); rc=$?
check "cache frobnicate: exit 2, one line naming the verbs" '[ $rc -eq 2 ] && [ "$(printf "%s\n" "$out" | wc -l)" -eq 1 ] && printf "%s" "$out" | grep -q "^coalesce-tune: '"'"'frobnicate'"'"' is not a cache command (stats, verify, clear)$"'
check "cache --help lists the verbs" '"$tune" cache --help | grep -q "verify"'
exit $fail
