set -u
Z=$OUT/fd; mkdir -p $Z/logs
t0=$(date +%s)
left() { local l=$(( 400 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; echo "cores $(nproc)"; dist/bin/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
# Every measurement here is 3000 samples per method back to back (the steady state).
steady() {  # shape dtype family configs-file db
  args=(); while read -r c; do args+=(--config "$c"); done < dist/$4
  timeout -s INT $(left 100) dist/bin/coalesce-tune sweep --shape $1 --dtype $2 --family $3 "${args[@]}" --min-samples 3000 --max-samples 3000 --db $Z/$5.db > $Z/logs/$1-$2-$3.txt 2>&1
  echo "$1 $2 $3 $(stamp $?)" >> $Z/logs/done.txt
}
# 1. 8192^3, a second round of run FC's new-build measurement (it ran on the same GPU as run FC).
steady 8192 bf16 wgmma configs_8192_bf16.txt steady-8192
steady 8192 f16 wgmma configs_8192_f16.txt steady-8192
# 2. 4096^3: the mma family's three fastest tiles of run FB per 16-bit dtype (issue 10), and the
#    five fastest tf32 wgmma tiles of run FC's sweep (issue 11), in the steady state.
steady 4096 bf16 mma configs_4096_mma_bf16.txt steady-4096
steady 4096 f16 mma configs_4096_mma_f16.txt steady-4096
steady 4096 tf32 wgmma configs_4096_tf32.txt steady-4096
stamp 0 > $Z/done.txt
tar czf $OUT/fd.tgz -C $OUT fd && rm -rf $Z
