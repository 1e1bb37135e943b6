#!/usr/bin/env bash
# The report against figures worked out by hand, not against its own earlier output: the database
# is tests/fixtures/report-hand.sql (written by hand, loaded with the sqlite3 shell into an empty
# database of the current schema), and every expected table below was computed by hand from
# that file, the arithmetic written beside it. (The golden files of golden_test.sh were written
# by the report itself; this test is what says they were right to begin with.)
# Usage: hand_fixture_test.sh COALESCE_REPORT MAKE_FIXTURE REPORT_HAND_SQL
set -u
report=$1 make_fixture=$2 sql=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
db=$work/hand.db
"$make_fixture" "$db" empty || { echo "FAIL: make_fixture $db empty"; exit 1; }
sqlite3 -bail "$db" <"$sql" || { echo "FAIL: $sql does not load"; exit 1; }

# expect NAME SQL: `coalesce-report query --format csv SQL` prints exactly the lines on stdin.
expect() {
  local name=$1 sql=$2 out rc
  cat >"$work/want"
  out=$("$report" query --db "$db" --format csv "$sql" 2>"$work/stderr"); rc=$?
  if [ $rc -ne 0 ]; then echo "FAIL: $name: exit $rc: $(cat "$work/stderr")"; fail=1; return; fi
  printf '%s\n' "$out" >"$work/got"
  if diff -u "$work/want" "$work/got" >"$work/diff"; then echo "ok: $name"
  else echo "FAIL: $name (- by hand, + the report):"; cat "$work/diff"; fail=1; fi
}

# Peaks (v_peaks): SMs × FLOP per clock per SM × max SM clock (MHz) / 1e6, for 132 SMs at 1980 MHz:
#   f32  132 × 256  × 1980 = 66,908,160   -> 66.90816 TFLOP/s
#   tf32 132 × 2048 × 1980 = 535,265,280  -> 535.26528
#   bf16 and f16: 132 × 4096 × 1980 = 1,070,530,560 -> 1070.53056
expect "peaks of the H200 by math mode" \
  "SELECT device_id, math, ROUND(peak_tflops, 5) AS peak_tflops FROM v_peaks ORDER BY math" <<'EOF'
device_id,math,peak_tflops
1,bf16,1070.53056
1,f16,1070.53056
1,f32,66.90816
1,tf32,535.26528
EOF

# The best config per problem, family and protocol (v_best, schema 8): for 1000³ simt the ok rows
# are A 0.100 and B 0.080 (run 1: 20 samples back to back, flush_b2b) and A 0.090 (run 2: 1,000+
# samples back to back, steady_b2b). Each protocol has its own best and none is compared with
# the other: B's 0.080 in flush_b2b, A's 0.090 in steady_b2b. For the bf16 problem W1 0.020 beats
# W2 0.025.
expect "the best config per protocol" \
  "SELECT problem_id, family, protocol, config_name, run_id, steady_state, median_ms FROM v_best ORDER BY problem_id, family, protocol" <<'EOF'
problem_id,family,protocol,config_name,run_id,steady_state,median_ms
1,simt,flush_b2b,simt_hand_b,1,0,0.08
1,simt,steady_b2b,simt_hand_a,2,1,0.09
2,wgmma,flush_b2b,wgmma_hand_w1,1,0,0.02
EOF

# The headline (v_comparison): each best beside the baselines of the run that measured it.
#   1000³: A's run 2 holds cublas_gemm 0.072, eager 0.105, unfused 0.0902, no cublaslt_fused,
#          and no unfused A (B's 0.095 is run 1's and another config): two empty columns.
#   1000³ flush_b2b: B's run 1 holds cublas_gemm 0.070, eager 0.110, unfused 0.090, no
#          cublaslt_fused, and B's unfused build 0.095.
#   bf16:  W1's run 1 holds cublas_gemm 0.019, eager 0.030, cublaslt_fused 0.021, no unfused.
expect "each best beside its own run's baselines" \
  "SELECT m, n, k, dtype, family, protocol, config_name, coalesce_ms, cublas_gemm_ms, eager_ms, unfused_ms, cublaslt_fused_ms, coalesce_unfused_ms, run_id FROM v_comparison ORDER BY problem_id, protocol" <<'EOF'
m,n,k,dtype,family,protocol,config_name,coalesce_ms,cublas_gemm_ms,eager_ms,unfused_ms,cublaslt_fused_ms,coalesce_unfused_ms,run_id
1000,1000,1000,f32,simt,flush_b2b,simt_hand_b,0.08,0.07,0.11,0.09,,0.095,1
1000,1000,1000,f32,simt,steady_b2b,simt_hand_a,0.09,0.072,0.105,0.0902,,,2
2000,1000,500,bf16,wgmma,flush_b2b,wgmma_hand_w1,0.02,0.019,0.03,,0.021,,1
EOF

# How the configs ended (v_outcomes, method coalesce only, so B's coalesce_unfused row is not
# counted): 1000³ simt ok 3 (A, B, and A again in the steady state), one wrong, pruned smem 1 and
# registers 1; bf16 wgmma ok 2, compile_failed 1.
expect "outcomes per status and reason" \
  "SELECT m, family, status, prune_reason, configs FROM v_outcomes ORDER BY m, status, prune_reason" <<'EOF'
m,family,status,prune_reason,configs
1000,simt,ok,,3
1000,simt,pruned,registers,1
1000,simt,pruned,smem,1
1000,simt,wrong_result,,1
2000,wgmma,compile_failed,,1
2000,wgmma,ok,,2
EOF

# The report's comparison table (--table comparison --format csv), its columns by name:
# median (ms, 4 places), TFLOP/s (2 / median, 2 places), % of peak (TFLOP/s ÷ the dtype's peak ×
# 100, 1 place), speed-up (the method's median ÷ the fused best's, 3 places) and the verdict
# (faster or slower only when the [p10, p90] intervals do not touch).
#   1000³ f32 (run 2, peak 66.90816; the best A: 0.090, p10-p90 0.0895-0.0905)
#     coalesce     2/0.09   = 22.22; 22.2222/66.90816 = 33.2%
#     cublas_gemm  2/0.072  = 27.78; 41.5%;  0.072/0.09  = 0.800; 0.0715-0.0725 lies below: slower
#     eager        2/0.105  = 19.05; 28.5%;  0.105/0.09  = 1.167; 0.1045-0.1055 above: faster
#     unfused      2/0.0902 = 22.17; 33.1%;  0.0902/0.09 = 1.002; 0.0898-0.0906 overlaps: within noise
#   2000×1000×500 bf16 (run 1, peak 1070.53056; the best W1: 0.020, p10-p90 0.0199-0.0201)
#     coalesce       2/0.02  = 100.00; 100/1070.53056 = 9.3%
#     cublas_gemm    2/0.019 = 105.26; 9.8%;  0.019/0.02 = 0.950; 0.0189-0.0191 below: slower
#     eager          2/0.03  = 66.67;  6.2%;  0.03/0.02  = 1.500; 0.0298-0.0302 above: faster
#     cublaslt_fused 2/0.021 = 95.24;  8.9%;  0.021/0.02 = 1.050; 0.0209-0.0211 above: faster
"$report" history --db "$db" --table comparison --format csv >"$work/comparison.csv" 2>"$work/stderr"; rc=$?
if [ $rc -ne 0 ]; then
  echo "FAIL: the comparison table: exit $rc: $(cat "$work/stderr")"; fail=1
else
  python3 - "$work/comparison.csv" <<'PY' || fail=1
import csv, sys
want = {
    ("1000", "coalesce"): ("0.0900", "22.22", "33.2", "", ""),
    ("1000", "cublas_gemm"): ("0.0720", "27.78", "41.5", "0.800", "slower"),
    ("1000", "eager"): ("0.1050", "19.05", "28.5", "1.167", "faster"),
    ("1000", "unfused"): ("0.0902", "22.17", "33.1", "1.002", "within noise"),
    ("2000", "coalesce"): ("0.0200", "100.00", "9.3", "", ""),
    ("2000", "cublas_gemm"): ("0.0190", "105.26", "9.8", "0.950", "slower"),
    ("2000", "eager"): ("0.0300", "66.67", "6.2", "1.500", "faster"),
    ("2000", "cublaslt_fused"): ("0.0210", "95.24", "8.9", "1.050", "faster"),
}
rows = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#"))]
got = {(r["m"], r["method"]): (r["median_ms"], r["tflops"], r["pct_peak"], r["speedup"], r["verdict"])
       for r in rows if r.get("status") == "ok"}
bad = 0
for key, row in want.items():
    if got.get(key) != row:
        print(f"FAIL: comparison {key}: by hand {row}, the report {got.get(key)}")
        bad = 1
extra = sorted(set(got) - set(want))
if extra:
    print(f"FAIL: comparison: ok rows the fixture does not hold for these runs: {extra}")
    bad = 1
if not bad:
    print(f"ok: the comparison table's {len(want)} ok rows, figure by figure")
sys.exit(bad)
PY
fi
exit $fail
