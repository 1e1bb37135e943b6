#!/usr/bin/env bash
# The figures the docs quote from the tools, checked against the tools so they cannot drift
# (issue 45): docs/tuner.md's space counts against `coalesce-tune space` (no GPU: the H200's
# limits), scripts/run.sh's dry-run counts against the legal configs per family, and
# docs/database.md's "fastest at 2048³" query against results/coalesce.db (the rows its comment says).
#
# Usage: tuner_docs_test.sh COALESCE_TUNE COALESCE_REPORT SOURCE_DIR
set -u
tune=$1 report=$2 src=$3
fail=0
pass() { echo "ok: $1"; }
flunk() { echo "FAIL: $1"; fail=1; }

# space ARGS...: the space as CSV (cached per argument list)
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
space() {
  local key
  key=$(printf '%s_' "$@" | tr -c 'A-Za-z0-9_' '_')
  [ -f "$cache/$key" ] || "$tune" space "$@" --format csv 2>/dev/null >"$cache/$key"
  cat "$cache/$key"
}
# count FAMILY VERDICT ARGS...: rows of FAMILY with VERDICT (legal, pruned; any: every candidate)
count() {
  local family=$1 verdict=$2
  shift 2
  space "$@" | awk -F, -v f="$family" -v v="$verdict" '$6 == f && ($8 == v || (v == "any" && ($8 == "legal" || $8 == "pruned")))' | wc -l
}
# legal_names FAMILY ARGS...: the legal configs' names
legal_names() {
  local family=$1
  shift
  space "$@" | awk -F, -v f="$family" '$6 == f && $8 == "legal" { print $7 }'
}
# quoted FILE TEXT: FILE holds TEXT (after joining its lines, so a quote may wrap)
quoted() {
  if tr '\n' ' ' <"$src/$1" | tr -s ' ' | grep -qF -- "$2"; then pass "$1 quotes: $2"; else flunk "$1 lacks: $2"; fi
}

doc=docs/tuner.md
simt_candidates=$(count simt any --shape 4096 --family simt)
simt_legal=$(count simt legal --shape 4096 --family simt)
quoted $doc "The other $simt_candidates are the **candidates**"
quoted $doc "(760 on the H200;"
[ "$simt_legal" = 760 ] && pass "simt at 4096³: 760 legal" || flunk "simt at 4096³: $simt_legal legal, the doc says 760"
quoted $doc "is $(count simt any --shape 32x4096x4096 --family simt) candidates ($(count simt legal --shape 32x4096x4096 --family simt) legal)"
m1_splits=$(legal_names simt --shape 1x4096x4096 --family simt | grep -c '_sk[0-9]*_')
quoted $doc "is $(count simt any --shape 1x4096x4096 --family simt) candidates, $m1_splits of them splits"
quoted $doc "($(count mma legal --shape 4096 --family mma) of the $(count mma any --shape 4096 --family mma) candidates at 4096³)"
bf16=(--shape 4096 --dtype bf16)
mma_pruned() { space "${bf16[@]}" --family mma | awk -F, -v r="$1" '$8 == "pruned" && $12 == r' | wc -l; }
quoted $doc "and $(count mma any "${bf16[@]}" --family mma) are candidates. On the H200's limits $(count mma pruned "${bf16[@]}" --family mma) of those are pruned before compiling ($(mma_pruned registers) \`registers\`"
quoted $doc "$(mma_pruned smem) \`smem\`; $(mma_pruned occupancy) \`occupancy\`), leaving **$(count mma legal "${bf16[@]}" --family mma) legal configs for each dtype**"
odd=$(legal_names mma --shape 1000x1002x998 --dtype bf16 --family mma | grep -vc '_sk[0-9]*_')
quoted $doc "(1000×1002×998 bf16) $odd are legal"
stk() { legal_names wgmma --shape "$1" --dtype bf16 --family wgmma | grep -c "_stk${2:-[0-9]*}_"; }
quoted $doc "leaves $(stk 4096) legal stream-K configs of $(count wgmma legal "${bf16[@]}" --family wgmma) ($(stk 4096 2) with S = 2"
quoted $doc "$(stk 4096 4) with S = 4"
quoted $doc "M = 64, 128 and 256, $(stk 64x4096x4096), $(stk 128x4096x4096) and $(stk 256x4096x4096), and at 512³ $(stk 512)"
few() {  # deep-ring, interleaved and swapped legal configs at a shape
  local names
  names=$(legal_names wgmma --shape "$1" --dtype bf16 --family wgmma)
  printf '%s %s %s' "$(printf '%s\n' "$names" | grep -E '_s(8|12|16)_' | grep -v '_ki' | grep -vc '_sab')" \
    "$(printf '%s\n' "$names" | grep -c '_ki')" "$(printf '%s\n' "$names" | grep -c '_sab')"
}
read -r deep ki sab <<<"$(few 64x4096x4096)"
quoted $doc "the space holds $(count wgmma legal --shape 64x4096x4096 --dtype bf16 --family wgmma) legal configs, each count with its split variants: $deep deep-ring ones"
read -r deep512 ki512 sab512 <<<"$(few 512)"
quoted $doc "$ki interleaved and $sab swapped (at M = 8 $(few 8x4096x4096 | cut -d' ' -f3) swapped; at 512³ $deep512, $ki512 and $sab512)"
quoted $doc "the space is the $(count wgmma legal "${bf16[@]}" --family wgmma) of before"

# scripts/run.sh: a dry run draws 32 per family (--budget per problem and family), every legal one
# with DRY_RUN_ALL=1; f32 at 4096³ has simt and mma (gemv: none legal there).
drawn=0 all=0
for family in simt mma gemv; do
  legal=$(count $family legal --shape 4096 --family $family)
  all=$((all + legal))
  drawn=$((drawn + (legal < 32 ? legal : 32)))
done
grep -q -- 'budget=${DRY_RUN_BUDGET:-32}' "$src/scripts/run.sh" && grep -q -- '--budget "$budget" --seed 1' "$src/scripts/run.sh" \
  && pass "run.sh draws --budget 32 unless DRY_RUN_BUDGET says" || flunk "run.sh no longer draws --budget 32 by default"
quoted scripts/run.sh "configs per family (32 unless set: $drawn at f32"
quoted scripts/run.sh "DRY_RUN_ALL=1: $all, $(count simt legal --shape 4096 --family simt) simt and $(count mma legal --shape 4096 --family mma) mma)"

# docs/tuner.md: the lines a sweep ends with when no config can run its problem (issue 39), as the
# dry run prints them (it stops before compiling anything: every candidate is pruned).
"$tune" sweep --dry-run --shape 7x9x13 --dtype tf32 --family wgmma --cache-dir "$cache/kernels" >/dev/null 2>"$cache/no_config"
rc=$?
if [ $rc -ne 1 ]; then
  flunk "sweep --dry-run --shape 7x9x13 --dtype tf32 --family wgmma exits $rc, not 1"
else
  while IFS= read -r line; do
    case $line in
      "coalesce-tune: no config can run "*) line="$line (the run ends failed)" ;;
      "  "*) line=${line#  } ;;
      *) continue ;;
    esac
    quoted docs/tuner.md "$line"
  done <"$cache/no_config"
fi

# docs/database.md: the "fastest at 2048³" example, run on the committed (published) database,
# prints the number of rows its comment says ("N rows on the committed results/coalesce.db").
example='# the fastest f32 bias+GELU config at 2048³ of each device, family and protocol'
sql=$(awk -v head="$example" 'index($0, head) == 1 { on = 1; next }
           on && /^#/ { next }
           on && /^sqlite3 / { sub(/^sqlite3 results\/coalesce.db "/, ""); print; if (/"$/) exit; next }
           on { print; if (/"$/) exit }' "$src/docs/database.md" | sed 's/"$//')
said=$(awk -v head="$example" 'index($0, head) == 1 { on = 1 }
           on && !/^#/ { exit }
           on { print }' "$src/docs/database.md" \
  | tr '\n' ' ' | sed -n 's/.* \([0-9][0-9]*\) rows on the committed results\/coalesce\.db.*/\1/p')
if [ -z "$sql" ] || [ -z "$said" ]; then
  flunk "docs/database.md: the fastest-at-2048³ example (or its row count) is not where this test looks"
elif [ ! -f "$src/results/coalesce.db" ]; then
  echo "skipped: the fastest-at-2048³ example (no results/coalesce.db)"
else
  rows=$("$report" query --db "$src/results/coalesce.db" --format csv "$sql" | tail -n +2 | wc -l)
  [ "$rows" = "$said" ] && pass "docs/database.md's fastest-at-2048³ example returns the $said rows it says" \
    || flunk "docs/database.md's fastest-at-2048³ example returns $rows rows; its comment says $said"
fi
exit $fail
