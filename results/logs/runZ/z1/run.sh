set -u
Z=$OUT/z1; mkdir -p $Z/logs
t0=$(date +%s)
left() { local l=$(( 575 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; echo "cores $(nproc)"; dist/bin/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
# Every GPU test and example (split-K in simt, mma and wgmma; gemv; read_b; the runtime's split entry).
OUT=$Z/logs timeout $(left 330) bash scripts/gpu-test.sh > $Z/logs/gpu-test-summary.txt 2>&1; stamp $? >> $Z/logs/gpu-test-summary.txt
# f32 at small M: every family (simt with split-K, gemv), a seeded random sample per family.
timeout -s INT $(left 150) dist/bin/coalesce-tune sweep --shapes-file results/logs/runZ/small-f32.csv --strategy random --budget 150 --seed 2 -j 16 --db $Z/z.db > $Z/logs/sweep-small-f32.txt 2>&1; stamp $? >> $Z/logs/sweep-small-f32.txt
# f32 at M = 64 to 256: the 12 fastest simt tiles of 4096³ with every split.
timeout -s INT $(left 150) dist/bin/coalesce-tune sweep --shapes-file results/logs/runZ/mid-f32.csv --family simt $(grep -v '^#' results/logs/runZ/simt-f32-focused.txt | sed 's/^/--config /' | tr '\n' ' ') -j 16 --db $Z/z.db > $Z/logs/sweep-mid-f32.txt 2>&1; stamp $? >> $Z/logs/sweep-mid-f32.txt
stamp 0 > $Z/done.txt
tar czf $OUT/z1.tgz -C $OUT z1 && rm -rf $Z
