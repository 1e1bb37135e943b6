# The common header of a GPU run's script (results/logs/runX/run.sh), sourced from the repository
# root on the GPU host with the device tool's $OUT set:
#
#   . scripts/run-lib.sh
#   run_begin jk 480        # $Z = $OUT/jk (with logs/), the clock started, $Z/env.txt written
#   timeout $(left 60) dist/bin/coalesce-tune sweep ... --db $Z/jk.db > $Z/logs/x.txt 2>&1
#   stamp $? >> $Z/logs/x.txt
#   run_end                 # $Z/done.txt, the tarball $OUT/jk.tgz, $Z removed
#
# and, between them, sweep_list, sweep_random and ab_rounds (below) for the sweeps most runs
# make, and ncu_page for an Nsight Compute pass.
#
# left N: the seconds left of the run's budget, at most N and at least 1 (a timeout for the next
# step that keeps the run inside its budget). stamp RC: "rc=RC Ts", T the seconds since run_begin.
# env.txt: the date, the GPU (nvidia-smi: name, UUID, driver, clocks, power, temperature), the
# host's cores and the versions of the tools in dist/ (and dist/old/ for an A/B run).

run_begin() {
  RUN_NAME=$1
  RUN_BUDGET=$2
  Z=$OUT/$RUN_NAME
  mkdir -p "$Z/logs"
  RUN_T0=$(date +%s)
  export XDG_CACHE_HOME=${XDG_CACHE_HOME:-/tmp/xc}
  {
    date -u
    nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv
    echo "cores $(nproc)"
    for tool in dist/bin/coalesce-tune dist/old/coalesce-tune; do
      if [ -x "$tool" ]; then "$tool" --version; fi
    done
  } > "$Z/env.txt" 2>&1
}

left() {
  local l=$(( RUN_BUDGET - ($(date +%s) - RUN_T0) ))
  [ "$l" -gt "$1" ] && l=$1
  [ "$l" -lt 1 ] && l=1
  echo "$l"
}

stamp() { echo "rc=$1 $(( $(date +%s) - RUN_T0 ))s"; }

run_end() {
  stamp 0 > "$Z/done.txt"
  tar czf "$OUT/$RUN_NAME.tgz" -C "$OUT" "$RUN_NAME" && rm -rf "$Z"
}

# The two sweeps most runs make. TUNE and OLD_TUNE name the builds (dist/bin/coalesce-tune and,
# for an A/B, dist/old/coalesce-tune unless set); each sweep gets at most SECONDS (left) and
# `timeout -s INT`, so an interrupted one still stores what it measured.
#
# sweep_list SHAPE DTYPE FAMILY LIST SECONDS: every config named in LIST (one per line) at the
# shape, then the three fastest again in the steady state (--steady-top 3), into $Z/$RUN_NAME.db;
# its output in $Z/logs/sweep-SHAPE-DTYPE.txt and "sweep SHAPE DTYPE rc=..." in $Z/logs/done.txt.
sweep_list() {
  local shape=$1 dtype=$2 family=$3 list=$4 seconds=$5 cfgs=()
  while read -r c; do [ -n "$c" ] && cfgs+=(--config "$c"); done < "$list"
  timeout -s INT "$(left "$seconds")" "${TUNE:-dist/bin/coalesce-tune}" sweep --shape "$shape" --dtype "$dtype" \
    --family "$family" "${cfgs[@]}" --steady-top 3 -j 16 --db "$Z/$RUN_NAME.db" > "$Z/logs/sweep-$shape-$dtype.txt" 2>&1
  echo "sweep $shape $dtype $(stamp $?)" >> "$Z/logs/done.txt"
}

# sweep_random SHAPE DTYPE FAMILY BUDGET SECONDS [SEED]: a seeded random draw of BUDGET configs
# of the family's space at the shape (--strategy random, SEED 12 unless given; the same seed
# draws the same configs), then the three fastest again in the steady state, into
# $Z/$RUN_NAME.db; its output in $Z/logs/sweep-SHAPE-DTYPE-FAMILY.txt and
# "sweep SHAPE DTYPE FAMILY rc=..." in $Z/logs/done.txt. Runs LR, LU and LV wrote this loop
# by hand.
sweep_random() {
  local shape=$1 dtype=$2 family=$3 budget=$4 seconds=$5 seed=${6:-12}
  timeout -s INT "$(left "$seconds")" "${TUNE:-dist/bin/coalesce-tune}" sweep --shape "$shape" --dtype "$dtype" \
    --family "$family" --strategy random --budget "$budget" --seed "$seed" --steady-top 3 -j 16 \
    --db "$Z/$RUN_NAME.db" > "$Z/logs/sweep-$shape-$dtype-$family.txt" 2>&1
  echo "sweep $shape $dtype $family $(stamp $?)" >> "$Z/logs/done.txt"
}

# ab_rounds LIST SECONDS: the A/B of OLD_TUNE against TUNE in the steady state (3000 samples per
# method back to back) over LIST's lines "SHAPE DTYPE CONFIG..." ('#' lines skipped): two rounds,
# old first in each, every line a sweep of at most SECONDS into $Z/SIDE-ROUND.db (old-1, new-1,
# old-2, new-2: what scripts/ab_table.py reads), the output in $Z/logs/ab-SIDE-ROUND.txt.
ab_rounds() {
  local list=$1 seconds=$2 round side bin shape dtype rest c cfgs
  for round in 1 2; do
    for side in old new; do
      bin=${TUNE:-dist/bin/coalesce-tune}
      [ "$side" = old ] && bin=${OLD_TUNE:-dist/old/coalesce-tune}
      while read -r shape dtype rest; do
        case "$shape" in '#'* | '') continue ;; esac
        cfgs=()
        for c in $rest; do cfgs+=(--config "$c"); done
        timeout -s INT "$(left "$seconds")" "$bin" sweep --shape "$shape" --dtype "$dtype" "${cfgs[@]}" -j 16 \
          --min-samples 3000 --max-samples 3000 --db "$Z/$side-$round.db" >> "$Z/logs/ab-$side-$round.txt" 2>&1
        echo "$shape $dtype $(stamp $?)" >> "$Z/logs/ab-$side-$round.txt"
      done < "$list"
    done
  done
}

# ncu_page FILE SECONDS ARGS...: one Nsight Compute pass with the GPU's clocks left alone
# (`ncu --clock-control none ARGS...`, within SECONDS of the budget), its output in
# $Z/ncu/FILE and its notes and status line in $Z/ncu/FILE.err; the first call also records
# ncu's version in env.txt. The header runs LB-LD and LL-LN each wrote by hand.
ncu_page() {
  local file=$1 seconds=$2
  shift 2
  if [ ! -d "$Z/ncu" ]; then
    mkdir -p "$Z/ncu"
    ncu --version 2>&1 | tail -1 >> "$Z/env.txt"
  fi
  timeout "$(left "$seconds")" ncu --clock-control none "$@" > "$Z/ncu/$file" 2> "$Z/ncu/$file.err"
  stamp $? >> "$Z/ncu/$file.err"
}
