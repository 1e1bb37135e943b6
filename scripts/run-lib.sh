# The common header of a GPU run's script (results/logs/runX/run.sh), sourced from the repository
# root on the GPU host with the device tool's $OUT set:
#
#   . scripts/run-lib.sh
#   run_begin jk 480        # $Z = $OUT/jk (with logs/), the clock started, $Z/env.txt written
#   timeout $(left 60) dist/bin/coalesce-tune sweep ... --db $Z/jk.db > $Z/logs/x.txt 2>&1
#   stamp $? >> $Z/logs/x.txt
#   run_end                 # $Z/done.txt, the tarball $OUT/jk.tgz, $Z removed
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
