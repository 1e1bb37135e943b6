#!/usr/bin/env bash
# Golden tests of coalesce-report: every format and sub-command over the fixture databases
# (tests/fixtures/make_fixture.cpp), compared byte for byte with golden/; bad input gets one line
# on stderr, nothing on stdout and a non-zero exit; a refused write leaves the database unchanged.
#
# Usage: golden_test.sh COALESCE_REPORT FIXTURE_DIR GOLDEN_DIR
# Regenerate the golden files after an intended change of the output, then review the diff:
#   COALESCE_REGENERATE_GOLDEN=1 ctest --test-dir <build> -R 'reports_(fixture|golden)'
# A regenerating run writes every file that differs and still FAILS, showing the diff: a golden
# file the code wrote agrees with the code by construction, so only a later run, after the diff
# has been read, can pass. The report's figures are checked independently of the code by
# hand_fixture_test.sh (expected tables worked out by hand).
# COALESCE_GOLDEN_PLANT=1 (golden_planted_test) plants a wrong figure in each output before its
# comparison and passes only if every comparison then fails.
# The tool's version and git revision are replaced by <version> and <git> before comparing.
set -u
report=$1 fixtures=$2 golden=$3
regenerate=${COALESCE_REGENERATE_GOLDEN:-0}
plant=${COALESCE_GOLDEN_PLANT:-0}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$fixtures/fixture.db" "$fixtures/fixture_b.db" "$fixtures/fixture_peers.db" "$fixtures/fixture_profiles.db" \
   "$fixtures/fixture_msweep.db" "$work/"
cp "$golden/../../../fixtures/workload.csv" "$work/"
cd "$work" || exit 1

version_line=$("$report" --version)                      # coalesce-report 0.1.0 (git abc)
tool_version=$(printf '%s' "$version_line" | sed -E 's/^coalesce-report ([^ ]+) .*/\1/')
tool_rev=$(printf '%s' "$version_line" | sed -E 's/.*\(git (.*)\)$/\1/')
normalize() {
  sed -e "s/coalesce-report $tool_version/coalesce-report <version>/g" \
      -e "s/\(tool_git_revision[^A-Za-z0-9]*\)$tool_rev/\1<git>/g"
}

fail=0
pass() { echo "ok: $1"; }
flunk() { echo "FAIL: $1"; fail=1; }

# golden NAME ARGS...: stdout of a successful run equals golden/NAME (stderr is not compared).
golden() {
  local name=$1
  shift
  local out err rc
  out=$("$report" "$@" 2>"$work/stderr"); rc=$?
  if [ $rc -ne 0 ]; then flunk "$name: exit $rc: $(cat "$work/stderr")"; return; fi
  printf '%s\n' "$out" | normalize >"$work/$name"
  compare_file "$name" "$work/$name"
}

# plant_wrong_figure FILE: the first digit of FILE's last line that holds one, one more (9: 0),
# as a table with one wrong figure.
plant_wrong_figure() {
  local n
  n=$(grep -n '[0-9]' "$1" | tail -n 1 | cut -d: -f1)
  [ -n "$n" ] || { echo planted >>"$1"; return; }
  sed -i "${n}s/[0-9]/\n&/; ${n}s/\n0/1/; ${n}s/\n1/2/; ${n}s/\n2/3/; ${n}s/\n3/4/; ${n}s/\n4/5/; ${n}s/\n5/6/; ${n}s/\n6/7/; ${n}s/\n7/8/; ${n}s/\n8/9/; ${n}s/\n9/0/" "$1"
}

# compare_file NAME FILE: FILE equals golden/NAME. Regenerating, a FILE that differs replaces
# golden/NAME and fails with the diff; planting, a wrong figure in FILE must fail the comparison.
compare_file() {
  local name=$1 file=$2
  if [ "$plant" = 1 ]; then
    cp "$file" "$work/planted"
    plant_wrong_figure "$work/planted"
    if cmp -s "$file" "$work/planted"; then flunk "$name: no figure could be planted"
    elif diff -u "$golden/$name" "$work/planted" >"$work/diff"; then flunk "$name: a wrong figure passed its comparison"
    else pass "$name: a wrong figure fails its comparison ($(grep -c '^[-+][^-+]' "$work/diff") lines differ)"
    fi
  elif [ ! -f "$golden/$name" ] && [ "$regenerate" != 1 ]; then
    flunk "$name: no golden file (run with COALESCE_REGENERATE_GOLDEN=1, then read it before committing it)"
  elif [ -f "$golden/$name" ] && diff -u "$golden/$name" "$file" >"$work/diff"; then
    pass "$name"
  elif [ "$regenerate" = 1 ]; then
    diff -u "$golden/$name" "$file" 2>/dev/null | head -40
    cp "$file" "$golden/$name"
    flunk "$name regenerated from the code's own output (diff above): read it, then run the test again without COALESCE_REGENERATE_GOLDEN"
  else
    flunk "$name differs from its golden file (if the change is intended: COALESCE_REGENERATE_GOLDEN=1, read the diff, commit):"
    head -40 "$work/diff"
  fi
}

# refused NAME STATUS EXPECT ARGS...: exit STATUS (1 the work failed, 2 bad usage:
# docs/working.md), one line on stderr containing EXPECT, nothing on stdout.
refused() {
  local name=$1 status=$2 expect=$3
  shift 3
  local out rc lines
  out=$("$report" "$@" 2>"$work/stderr"); rc=$?
  lines=$(wc -l <"$work/stderr")
  if [ $rc -ne "$status" ]; then flunk "$name: exit $rc, not $status: $(cat "$work/stderr")"
  elif [ -n "$out" ]; then flunk "$name: wrote to stdout: $out"
  elif [ "$lines" -ne 1 ]; then flunk "$name: $lines lines on stderr: $(cat "$work/stderr")"
  elif ! grep -q -- "$expect" "$work/stderr"; then flunk "$name: '$(cat "$work/stderr")' lacks '$expect'"
  else pass "$name ($(cat "$work/stderr"))"
  fi
}

# --- the report by GPU model (the default): every format, one table, filtered ------------------
golden by_model.md --db fixture.db
golden by_model.csv --db fixture.db --format csv
golden by_model.json --db fixture.db --format json
golden by_model_answer.csv --db fixture.db --format csv --table answer
golden by_model_peers.md --db fixture_peers.db
golden by_model_msweep.md --db fixture_msweep.db
golden by_model_msweep_bf16.csv --db fixture_msweep.db --dtype bf16 --format csv --table by_model
golden by_model_run2.md --db fixture.db --run 2
# the first screen answers: the answer table and its notes within 40 lines
if "$report" --db fixture_msweep.db | head -40 | grep -q '^## Every problem'; then
  pass "the answer fits the first screen (40 lines)"
else
  flunk "the answer does not end within the first 40 lines"
fi
refused top_is_history 2 "--top is not an option of the report by model: it belongs to coalesce-report history" --db fixture.db --top 3
refused workload_is_history 2 "--workload is not an option of the report by model" --db fixture.db --workload workload.csv
refused same_model_is_history 2 "--same-model is not an option of the report by model" --db fixture.db --same-model
refused history_no_plots 2 "--plots is not an option of history: the plots are by GPU model" history --db fixture.db --plots plots
refused plots_no_same_model 2 "--same-model is not an option of plots" plots --db fixture.db --out-dir plots --same-model

# --- history: the run-by-run, per-device report in every format, filtered, one table -------------

golden report.md history --db fixture.db
golden report.csv history --db fixture.db --format csv
golden report.json history --db fixture.db --format json
golden report_filtered.md history --db fixture.db --shape 4096 --family simt --top 3 --device H200
golden report_run2.md history --db fixture.db --run 2 --dtype f32 --epilogue bias_gelu
golden report_comparison.csv history --db fixture.db --format csv --table comparison
golden report_empty.md history --db fixture.db --shape 8192
if "$report" --db fixture.db --shape 8192 2>&1 >/dev/null | grep -q "^coalesce-report: no row of fixture.db matches --shape 8192x8192x8192$"; then
  pass "a filter that matches nothing says so on stderr"
else
  flunk "a filter that matches nothing says nothing on stderr"
fi
if "$report" --db fixture.db --device 2 2>&1 >/dev/null | grep -q "no row of fixture.db matches --device 2$"; then
  pass "--device 2 is device id 2, which the fixture does not hold (not the 2 of H200)"
else
  flunk "--device 2 matched something"
fi
# --device is plain text, not a LIKE pattern: % and _ match no device; case is still ignored (issue 45)
for pattern in '%' '_' 'H_00'; do
  if "$report" --db fixture.db --device "$pattern" 2>&1 >/dev/null | grep -q "no row of fixture.db matches --device $pattern$"; then
    pass "--device '$pattern' matches no device (no wildcard)"
  else
    flunk "--device '$pattern' matched a device"
  fi
done
if [ -z "$("$report" --db fixture.db --device h200 2>&1 >/dev/null)" ]; then
  pass "--device h200 matches the H200 (case ignored)"
else
  flunk "--device h200 matched nothing"
fi
refused empty_device 2 "^coalesce-report: --device '': give a device id, its UUID (GPU-...) or part of its name$" --db fixture.db --device ''
# the peers of scripts/torch_peers.py beside each best (their own runs; none with --run)
golden report_peers.md history --db fixture_peers.db
golden report_peers_comparison.csv history --db fixture_peers.db --format csv --table comparison
# Nsight Compute profiles beside the winners and the library (fixture_profiles.db: one taken on a
# second H200 is shown and marked, a former best says so, another model's and a non-winner's
# elsewhere are not shown); the databases without profiles have no such table
golden report_profiles.md history --db fixture_profiles.db --table profiles
golden report_profiles.csv history --db fixture_profiles.db --format csv --table profiles
golden report_profiles.json history --db fixture_profiles.db --format json --table profiles --shape 1024
refused no_profiles_table 2 "no table 'profiles' in this output" --db fixture.db --table profiles history

# --same-model: the peers moved to other devices (sqlite3 on a copy of fixture_peers.db): run 4 to
# device 2, an H200 like device 1, run 3 to device 3, an A100. Device 1's blocks take run 4's
# peers, each marked cross-device; run 3's (the only triton at 1024) never come; without the flag
# no peer is shown, and on a database of one device the flag changes nothing but its meta line.
cp fixture_peers.db same_model.db
sqlite3 same_model.db "
  CREATE TEMP TABLE twin AS SELECT * FROM devices WHERE id = 1;
  UPDATE twin SET id = 2, uuid = 'GPU-5e1f0c2a-0000-4000-8000-fixture00002';
  INSERT INTO devices SELECT * FROM twin;
  UPDATE twin SET id = 3, uuid = 'GPU-5e1f0c2a-0000-4000-8000-fixture00003', name = 'NVIDIA A100-SXM4-80GB',
                  arch = 'sm_80', cc_major = 8, sm_count = 108, max_sm_clock_mhz = 1410;
  INSERT INTO devices SELECT * FROM twin;
  UPDATE runs SET device_id = 2 WHERE id = 4;
  UPDATE measurements SET device_id = 2 WHERE run_id = 4;
  UPDATE runs SET device_id = 3 WHERE id = 3;
  UPDATE measurements SET device_id = 3 WHERE run_id = 3;"
golden report_same_model.md history --db same_model.db --same-model
golden report_same_model_comparison.csv history --db same_model.db --same-model --device 1 --format csv --table comparison
out=$("$report" history --db same_model.db --table comparison 2>"$work/stderr"); rc=$?
if [ $rc -ne 0 ] || [ -z "$out" ]; then
  flunk "the comparison without --same-model: exit $rc: $(cat "$work/stderr")"
elif printf '%s\n' "$out" | grep -q -E "torch_|triton|cross-device"; then
  flunk "without --same-model the comparison shows peers of other devices"
else
  pass "without --same-model no peer of another device is shown"
fi
"$report" history --db fixture_peers.db >"$work/plain.md" 2>&1; rc_plain=$?
"$report" history --db fixture_peers.db --same-model >"$work/same.md" 2>&1; rc_same=$?
diff "$work/plain.md" "$work/same.md" >"$work/diff"
if [ $rc_plain -ne 0 ] || [ $rc_same -ne 0 ]; then
  flunk "the report of fixture_peers.db: exit $rc_plain, with --same-model $rc_same"
elif [ "$(grep -c '^[<>]' "$work/diff")" -eq 1 ] && grep -q '^> - peers: `same model (--same-model)`$' "$work/diff"; then
  pass "--same-model on one device: only the meta line differs"
else
  flunk "--same-model on one device changed more than its meta line:"
  head -20 "$work/diff"
fi

# --workload: each method summed over a workload file's rows, per device and dtype, with the
# problems the database lacks listed (tests/fixtures/workload.csv)
golden report_workload.md history --db fixture.db --workload workload.csv
golden report_workload.csv history --db fixture.db --workload workload.csv --format csv --table workloads
golden report_workload.json history --db fixture.db --workload workload.csv --format json --table workload_missing
golden report_workload_peers.md history --db fixture_peers.db --workload workload.csv --table workloads
golden report_workload_bf16.md history --db fixture.db --workload workload.csv --dtype bf16 --table workloads

# A workload none of whose problems was swept: every problem is listed as missing (no device), never
# "Every problem of every workload is measured" (issue 45).
printf 'm,n,k,dtype,epilogue,name,count\n777,1600,6400,,,mlp.up,48\n777,6400,1600,bf16,,mlp.down,48\n' >never.csv
out=$("$report" history --db fixture.db --workload never.csv --table workload_missing --format csv 2>"$work/stderr"); rc=$?
if [ $rc -eq 0 ] && ! printf '%s' "$out" | grep -q "Every problem" \
   && printf '%s\n' "$out" | grep -q '^never.csv,no device,f32,777×1600×6400 f32 bias_gelu,777,1600,6400,bias_gelu,48,mlp.up (line 2)$' \
   && printf '%s\n' "$out" | grep -q '^never.csv,no device,bf16,777×6400×1600 bf16 bias_gelu,777,6400,1600,bias_gelu,48,mlp.down (line 3)$'; then
  pass "a workload never swept: each of its problems listed as missing"
else
  flunk "a workload never swept (exit $rc): $out $(cat "$work/stderr")"
fi

# Throughput against M (fixture_msweep.db: skinny problems at several M beside the read_b floor):
# the m_sweep table in every format, and the floor in no other table; with --same-model the peer
# of the second H200 stays out of it (a group is one device).
golden report_msweep.md history --db fixture_msweep.db
golden report_msweep_m_sweep.csv history --db fixture_msweep.db --format csv --table m_sweep
golden report_msweep_m_sweep.json history --db fixture_msweep.db --format json --table m_sweep
golden report_msweep_same_model_m_sweep.md history --db fixture_msweep.db --same-model --table m_sweep
for t in summary comparison why; do
  out=$("$report" history --db fixture_msweep.db --same-model --table "$t" --format csv 2>"$work/stderr"); rc=$?
  if [ $rc -ne 0 ] || [ -z "$out" ]; then
    flunk "the $t table of fixture_msweep.db: exit $rc: $(cat "$work/stderr")"
  elif printf '%s\n' "$out" | grep -q read_b; then
    flunk "the floor read_b appears in the $t table"
  else
    pass "the floor read_b is in no $t table"
  fi
done
refused no_m_sweep_table 2 "no table 'm_sweep' in this output" --db fixture.db --table m_sweep history

# --- query ------------------------------------------------------------------------------------
comparison_sql='SELECT * FROM v_comparison ORDER BY m, family'
golden query_comparison.txt query --db fixture.db "$comparison_sql"
golden query_comparison.csv query --db fixture.db --format csv "$comparison_sql"
golden query_comparison.json query --db fixture.db --format json "$comparison_sql"
# --db before the sub-command opens the same file as after it (the same golden output)
golden query_comparison.txt --db fixture.db query "$comparison_sql"
cp fixture.db other_name.db
golden query_comparison.txt query "$comparison_sql" --db other_name.db
golden query_outcomes.txt query --db fixture.db \
  "SELECT m, status, prune_reason, configs FROM v_outcomes ORDER BY m, status, prune_reason;"

# A result longer than memory streams (issue 45): 20 million rows of 100 characters (2 GB held
# whole) under a 1 GB address space, piped to head, print their first rows at once in every format.
huge="WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000000)
      SELECT x, printf('%.100c', 'a') AS pad FROM c"
for fmt in table csv json; do
  first=$( (ulimit -v 1000000; timeout 60 "$report" query --db fixture.db --format "$fmt" "$huge" 2>"$work/stderr") | head -n 40)
  if printf '%s\n' "$first" | grep -q '^ *3[ ,]*a\{100\}$\|"x": 3,$\|^3,a\{100\}$'; then
    pass "query --format $fmt streams a result larger than memory"
  else
    flunk "query --format $fmt of 20 million rows under ulimit -v: $(printf '%s' "$first" | head -c 300) $(cat "$work/stderr")"
  fi
done

# Text that is not UTF-8 prints as U+FFFD in JSON, not as the JSON library's exception (issue 45)
out=$("$report" query --db fixture.db --format json "SELECT CAST(x'41ff42' AS TEXT) AS t" 2>"$work/stderr"); rc=$?
if [ $rc -eq 0 ] && [ ! -s "$work/stderr" ] && printf '%s' "$out" | grep -qF "\"t\": \"A$(printf '\357\277\275')B\""; then
  pass "query --format json of text that is not UTF-8: U+FFFD for the bad byte"
else
  flunk "query --format json of text that is not UTF-8 (exit $rc): $(cat "$work/stderr")"
fi
refused sqlite_error_one_line 1 "^coalesce-report: cannot run the query in fixture.db: malformed JSON$" \
  query --db fixture.db "SELECT json('{')"

# --- diff -------------------------------------------------------------------------------------
golden diff.md diff fixture.db fixture_b.db
golden diff.csv diff fixture.db fixture_b.db --format csv
golden diff.json diff fixture.db fixture_b.db --format json --shape 1024
golden diff_summary.md diff fixture.db fixture_b.db --ignore-device --table summary
golden diff_all.md diff fixture.db fixture_b.db --all
# --fail-on-slower PCT: the diff is printed either way; status 1 and one line when a row is slower
# beyond noise by more than PCT percent (b's config B is 10% slower), 0 otherwise.
out=$("$report" diff fixture.db fixture_b.db --fail-on-slower 5 2>"$work/stderr"); rc=$?
if [ $rc -eq 1 ] && [ -n "$out" ] && [ "$(wc -l <"$work/stderr")" -eq 1 ] \
   && grep -q "1 row is slower beyond noise by more than 5% (--fail-on-slower): .*(B/A 1.100)" "$work/stderr"; then
  pass "diff --fail-on-slower 5: status 1, the slower row named"
else
  flunk "diff --fail-on-slower 5 (exit $rc): $(cat "$work/stderr")"
fi
out=$("$report" diff fixture.db fixture_b.db --fail-on-slower 12.5 2>"$work/stderr"); rc=$?
if [ $rc -eq 0 ] && [ -n "$out" ] && [ ! -s "$work/stderr" ]; then
  pass "diff --fail-on-slower 12.5: status 0"
else
  flunk "diff --fail-on-slower 12.5 (exit $rc): $(cat "$work/stderr")"
fi

# --- plots: the data is golden; the drawings need python3 with matplotlib ----------------------
refused plots_without_python 1 "plots not drawn" plots --db fixture.db --out-dir plots --python /nonexistent/python3
compare_file plots_by_model_shapes.csv plots/by_model_shapes.csv
compare_file plots_tile_landscape.csv plots/tile_landscape.csv
normalize <plots/figures.csv >"$work/figures.csv"  # its source names the tool's version and revision
compare_file plots_figures.csv "$work/figures.csv"
refused plots_msweep_without_python 1 "plots not drawn" plots --db fixture_msweep.db --out-dir plots_msweep --python /nonexistent/python3
compare_file plots_msweep_by_model_m_sweep.csv plots_msweep/by_model_m_sweep.csv
compare_file plots_msweep_by_model_shapes.csv plots_msweep/by_model_shapes.csv
# The manifest of an earlier drawing (figures.csv) names the figures to remove; a name in it that is
# not a PNG of the plot folder (another file, a path out of it) is never removed (issue 45).
mkdir -p manifest/sub
for f in keep.txt keep.db sub/x.png outside.png; do echo keep >"manifest/$f"; done
echo keep >outside_manifest.png
printf 'file,caption\nkeep.txt,a\nkeep.db,b\nsub/x.png,c\n../outside_manifest.png,d\n%s,e\nsub,f\n..,g\n.,h\nold.png,i\n' \
  "$PWD/manifest/outside.png" >manifest/figures.csv
echo stale >manifest/old.png
"$report" plots --db fixture.db --out-dir manifest --python /nonexistent/python3 >/dev/null 2>"$work/stderr"
if [ "$(cat manifest/keep.txt manifest/keep.db manifest/sub/x.png manifest/outside.png outside_manifest.png)" = \
     "$(printf 'keep\nkeep\nkeep\nkeep\nkeep')" ] && [ ! -e manifest/old.png ]; then
  pass "plots remove the PNGs of the previous manifest, and nothing else it names"
else
  flunk "plots removed a file the previous figures.csv named that is no PNG of the folder: $(ls -R manifest)"
fi
out=$("$report" --db fixture.db --plots plots --out with_plots.md --python /nonexistent/python3 2>"$work/stderr"); rc=$?
if [ $rc -eq 0 ] && [ -z "$out" ] && [ "$(wc -l <"$work/stderr")" -eq 1 ] && grep -q "^No plots: " with_plots.md \
   && ! grep -q '!\[' with_plots.md; then
  pass "report without matplotlib still writes the markdown, says why, links nothing"
else
  flunk "report without matplotlib (exit $rc): $(cat "$work/stderr")"
fi
# png_fits FILE: a PNG at most 2,000 pixels tall and under 500 KB (the figures people look at).
png_fits() {
  local height
  height=$(od -An -tu1 -j20 -N4 "$1" | awk '{print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4}')
  [ "$height" -le 2000 ] && [ "$(wc -c <"$1")" -lt 512000 ]
}
if python3 -c 'import matplotlib' 2>/dev/null || /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
  if "$report" --db fixture.db --plots plots --out with_plots.md >/dev/null 2>"$work/stderr" \
     && [ -s plots/nvidia-h200_f32_shapes.png ] && [ -s plots/tile_landscape.png ] \
     && grep -q '(plots/nvidia-h200_f32_shapes.png)' with_plots.md && grep -q '(plots/tile_landscape.png)' with_plots.md \
     && [ ! -e plots/nvidia-h200_f32_m_sweep.png ] && ! grep -q 'm_sweep' with_plots.md; then
    pass "figures by model drawn and linked relative to the report (no skinny shapes in the fixture: no M figure)"
  else
    flunk "plots with matplotlib: $(cat "$work/stderr")"
  fi
  # Problems that share N and K at three or more M get the throughput-against-M figure, linked;
  # a figure of an earlier drawing that is none now is removed (the manifest figures.csv).
  touch plots_msweep/nvidia-h200_f16_shapes.png
  printf 'file,caption\nnvidia-h200_f16_shapes.png,old\n' >plots_msweep/figures.csv
  if "$report" --db fixture_msweep.db --plots plots_msweep --out with_m_plot.md >/dev/null 2>"$work/stderr" \
     && [ -s plots_msweep/nvidia-h200_bf16_m_sweep.png ] && [ ! -e plots_msweep/nvidia-h200_f16_shapes.png ] \
     && grep -q '!\[NVIDIA H200 bf16: TFLOP/s against M at fixed N and K, every method, with the B-read floor\](plots_msweep/nvidia-h200_bf16_m_sweep.png)' with_m_plot.md; then
    pass "problems at several M get the throughput-against-M figure, linked; a stale figure is removed"
  else
    flunk "the throughput-against-M figure: $(cat "$work/stderr")"
  fi
  for png in plots/*.png plots_msweep/*.png; do
    if png_fits "$png"; then pass "$png: at most 2,000 px tall, under 500 KB"; else flunk "$png is too tall or too large"; fi
  done
else
  echo "skipped: drawing the plots (python3 with matplotlib is not installed)"
fi

# --- an output never lands on an input (issue 45): refused with status 2 and one line before
# anything is opened for writing, however the path is spelled; every file's bytes unchanged -------
mkdir -p guard/sub guard/plots
cp fixture.db guard/d.db
cp fixture_b.db guard/b.db
cp workload.csv guard/w.csv
cp fixture.db guard/plots/by_model_shapes.csv
ln -s ../d.db guard/plots/by_model_m_sweep.csv
cp fixture.db guard/plots/nvidia-h200_f32_shapes.png
ln -s d.db guard/link.db
ln -s d.db-wal guard/wal_link       # dangling: the WAL does not exist, yet a write would create it
ln guard/d.db guard/hard.db
# snapshot: every file's and link's bytes and the listing, to compare before and after
snapshot() { (cd guard && find . | sort && find . -type f -print0 | sort -z | xargs -0 sha256sum); }
# guarded NAME EXPECT ARGS...: refused (status 2, one line containing EXPECT) and guard/ unchanged
guarded() {
  local name=$1 expect=$2 before
  shift 2
  before=$(snapshot)
  refused "$name" 2 "$expect" "$@"
  [ "$(snapshot)" = "$before" ] || flunk "$name: a refused command changed guard/"
}
guarded out_is_db "^coalesce-report: --out guard/d.db is the database (--db) guard/d.db: writing it would destroy it" \
  --db guard/d.db --out guard/d.db
guarded out_is_db_through_dotdot "^coalesce-report: --out guard/sub/../d.db is the database (--db)" \
  --db guard/d.db --out guard/sub/../d.db
guarded out_is_db_through_symlink "^coalesce-report: --out guard/link.db is the database (--db)" \
  --db guard/d.db --out guard/link.db
guarded out_is_db_hard_link "^coalesce-report: --out guard/hard.db is the database (--db)" \
  --db guard/d.db --out guard/hard.db
guarded out_is_db_journal "^coalesce-report: --out guard/d.db-journal is the journal file of the database (--db)" \
  --db guard/d.db --out guard/d.db-journal
guarded out_is_db_wal_through_dangling_symlink "^coalesce-report: --out guard/wal_link is the wal file of the database" \
  --db guard/d.db --out guard/wal_link
guarded out_is_workload "^coalesce-report: --out guard/w.csv is --workload guard/w.csv" \
  history --db guard/d.db --workload guard/w.csv --out guard/w.csv
guarded query_out_is_db "^coalesce-report: --out guard/link.db is the database (--db) guard/d.db" \
  query --db guard/d.db --out guard/link.db "SELECT 1"
guarded diff_out_is_a "^coalesce-report: --out guard/d.db is database A guard/d.db" \
  diff guard/d.db guard/b.db --out guard/d.db
guarded diff_out_is_b "^coalesce-report: --out ./guard/b.db is database B guard/b.db" \
  diff guard/d.db guard/b.db --out ./guard/b.db
# The plot files of fixed names (the data, the manifest) and any PNG of the plot directory: the
# figures are named from the data, so a PNG there may be drawn over or removed.
guarded report_plots_onto_db "^coalesce-report: --plots's file guard/plots/by_model_shapes.csv is the database (--db)" \
  --db guard/plots/by_model_shapes.csv --plots guard/plots --out guard/r.md --python /nonexistent/python3
guarded plots_onto_db "^coalesce-report: --out-dir's file guard/plots/by_model_shapes.csv is the database (--db)" \
  plots --db guard/plots/by_model_shapes.csv --out-dir guard/plots --python /nonexistent/python3
guarded plots_onto_db_through_symlink "^coalesce-report: --out-dir's file guard/plots/by_model_m_sweep.csv is the database (--db)" \
  plots --db guard/d.db --out-dir guard/plots --python /nonexistent/python3
guarded report_plots_onto_db_through_symlink "^coalesce-report: --plots's file guard/plots/by_model_m_sweep.csv is the database (--db)" \
  --db guard/d.db --plots guard/plots --out guard/r.md --python /nonexistent/python3
guarded plots_onto_png_db "^coalesce-report: --out-dir guard/plots holds the database (--db) guard/plots/nvidia-h200_f32_shapes.png, a PNG the figures may overwrite or remove" \
  plots --db guard/plots/nvidia-h200_f32_shapes.png --out-dir guard/plots --python /nonexistent/python3
guarded report_plots_onto_png_db "^coalesce-report: --plots guard/plots holds the database (--db) guard/plots/nvidia-h200_f32_shapes.png" \
  --db guard/plots/nvidia-h200_f32_shapes.png --plots guard/plots --out guard/r.md --python /nonexistent/python3
guarded merge_out_symlink_to_input "^coalesce-report: OUT guard/link.db is the input guard/d.db" \
  merge guard/link.db guard/d.db
# An --out that is a symlink to a report is written through it (the link stays a link); the
# write goes through a fresh temporary, so a file named like the old fixed temporary is kept.
printf 'old report\n' >guard/real.md
ln -s real.md guard/report_link.md
printf 'a user file\n' >guard/real.md.tmp
if "$report" --db guard/d.db --out guard/report_link.md --table runs 2>"$work/stderr" \
   && [ -L guard/report_link.md ] && grep -q '^## ' guard/real.md \
   && [ "$(cat guard/real.md.tmp)" = "a user file" ] && [ -z "$(find guard -name '.real.md.*')" ]; then
  pass "--out through a symlink writes its target whole, keeps the link, leaves no temporary"
else
  flunk "--out through a symlink: $(cat "$work/stderr"); $(ls -la guard)"
fi

# Plot options that select nothing: status 1, one line, no plot file written (issue 45)
refused plots_filter_selects_nothing 1 "^coalesce-report: no row of fixture.db matches --shape 8192x8192x8192: no plot drawn$" \
  plots --db fixture.db --shape 8192 --out-dir empty_plots --python /nonexistent/python3
refused plots_landscape_selects_nothing 1 "^coalesce-report: --landscape-shape 777x777x777: no row of fixture.db at that shape: no plot drawn$" \
  plots --db fixture.db --landscape-shape 777 --out-dir empty_plots --python /nonexistent/python3
refused report_landscape_selects_nothing 1 "^coalesce-report: --landscape-shape 777x777x777: no row of fixture.db at that shape" \
  --db fixture.db --plots empty_plots --landscape-shape 777 --out empty_report.md --python /nonexistent/python3
if [ ! -e empty_plots ] && [ ! -e empty_report.md ]; then
  pass "plots that select nothing write nothing"
else
  flunk "plots that select nothing wrote $(ls empty_plots empty_report.md 2>&1)"
fi

# --- bad input: one line, non-zero exit, nothing on stdout --------------------------------------
printf 'not a database, just text\n%.0s' {1..200} >notes.txt
sqlite3 other.db "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine');"
cp fixture.db newer.db
sqlite3 newer.db "PRAGMA user_version = 99"
refused missing_file 1 "does not exist" --db nosuch.db
refused empty_db_path 2 "^coalesce-report: --db '': name the database file$" --db ''
refused empty_db_path_query 2 "^coalesce-report: --db '': name the database file$" query --db '' "SELECT 1"
refused text_file 1 "not a Coalesce database" --db notes.txt
refused foreign_sqlite 1 "not a Coalesce database" query --db other.db "SELECT 1"
refused newer_schema 1 "newer Coalesce" --db newer.db
# An older schema: the fix it names needs no GPU (merge into a new file), and the file is unchanged
cp fixture.db older.db
sqlite3 older.db "PRAGMA user_version = 6"
older_sum=$(sha256sum older.db)
refused older_schema 1 "^coalesce-report: older.db has schema version 6 and this tool reads version [0-9]*; migrate a copy without a GPU: coalesce-report merge NEW.db older.db (the file itself stays as it is)$" \
  --db older.db
[ "$(sha256sum older.db)" = "$older_sum" ] || flunk "older_schema: the refused report changed older.db"
refused malformed_sql 1 "syntax error" query --db fixture.db "SELEC * FROM runs"
refused unknown_table 1 "no such table" query --db fixture.db "SELECT * FROM no_such_table"
refused two_statements 2 "one statement" query --db fixture.db "SELECT 1; SELECT 2"
refused bad_shape 2 "bad --shape" --db fixture.db --shape 12x
refused zero_shape 2 "bad --shape" --db fixture.db --shape 0
refused bad_dtype 2 "unknown dtype" --db fixture.db --dtype f33
refused bad_format 2 "format" --db fixture.db --format xml
refused bad_table 2 "no table 'nope'" --db fixture.db --table nope
refused diff_missing 1 "does not exist" diff fixture.db nosuch.db
refused diff_two_devices_ok_but_bad_flag 2 "see --help" diff fixture.db fixture_b.db --no-such-flag
refused diff_negative_threshold 2 "--fail-on-slower -5: give a percentage, 0 or more" diff fixture.db fixture_b.db --fail-on-slower -5
refused diff_with_db 2 "--db is not an option of diff" diff fixture.db fixture_b.db --db fixture.db
printf 'm,n,k,dtype,epilogue,name,count\n1024,1024,1024,,bias_gelu,up,0\n' >bad_workload.csv
refused workload_bad_line 2 "^coalesce-report: --workload bad_workload.csv:2: count '0': expected a whole number" \
  history --db fixture.db --workload bad_workload.csv
refused workload_bad_line_before_the_database 2 "--workload bad_workload.csv:2: count '0'" \
  history --db nosuch.db --workload bad_workload.csv
refused workload_missing_file 2 "^coalesce-report: --workload nosuch.csv: cannot read it" --db fixture.db --workload nosuch.csv history
refused workload_with_query 2 "--workload is not an option of query" query --db fixture.db --workload workload.csv "SELECT 1"
refused workload_with_diff 2 "--workload is not an option of diff" diff fixture.db fixture_b.db --workload workload.csv
refused same_model_with_query 2 "--same-model is not an option of query" query --db fixture.db --same-model "SELECT 1"
refused same_model_with_diff 2 "--same-model is not an option of diff" diff fixture.db fixture_b.db --same-model

# --- publish: the published database from the lab's (by_model_test.cpp checks what it keeps) ---
out=$("$report" --db fixture_msweep.db publish published.db 2>"$work/stderr"); rc=$?
if [ $rc -eq 0 ] && [ -z "$out" ] && grep -q "^published.db: [0-9]* of [0-9]* measurements, .* bytes$" "$work/stderr" \
   && diff <("$report" --db fixture_msweep.db --table by_model | grep -v '^- database') \
           <("$report" --db published.db --table by_model | grep -v '^- database') >/dev/null; then
  pass "publish: one line on stderr; the published database reports as the lab does"
else
  flunk "publish (exit $rc): $(cat "$work/stderr")"
fi
refused publish_into_the_lab 2 "fixture_msweep.db is the lab database" --db fixture_msweep.db publish fixture_msweep.db
refused publish_over_text 2 "notes.txt exists and is not a Coalesce database" --db fixture.db publish notes.txt
refused publish_filtered 2 "--shape is not an option of publish" --db fixture.db publish p.db --shape 4096
refused publish_missing_lab 1 "does not exist" --db nosuch.db publish p.db
refused publish_unknown_run 2 "--keep-run 99: fixture.db has no such run" --db fixture.db publish p.db --keep-run 99
[ ! -e p.db ] && pass "a refused publish writes nothing" || flunk "a refused publish left p.db"

# --- read-only proof: refused writes leave the file and its directory as they were -------------
before=$(cksum fixture.db)
listing=$(ls -A)
refused delete_refused 2 "read-only" query --db fixture.db "DELETE FROM measurements"
refused drop_refused 2 "read-only" query --db fixture.db "DROP TABLE runs"
refused pragma_refused 2 "read-only" query --db fixture.db "PRAGMA user_version = 5"
refused vacuum_into_refused 2 "read-only" query --db fixture.db "VACUUM INTO 'copy.db'"
refused attach_refused 1 "attached" query --db fixture.db "ATTACH 'x.db' AS x"
if [ "$(cksum fixture.db)" = "$before" ] && [ "$(ls -A)" = "$listing" ]; then
  pass "fixture.db unchanged (cksum) and no file created by refused writes"
else
  flunk "a refused write changed fixture.db or its directory"
fi

exit $fail
