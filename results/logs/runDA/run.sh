set -u
Z=$OUT/da; mkdir -p $Z
t0=$(date +%s)
left() { local l=$(( 570 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; dist/bin/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
# The tf32 wgmma kernel (the transposed tile): the whole wgmma GPU test first (tf32 against
# fp64 at four shapes, every epilogue, bit-identical reruns, refusals, planted hazards).
timeout $(left 240) dist/bin/wgmma_test > $Z/wgmma_test.txt 2>&1; echo "wgmma_test rc=$? $(( $(date +%s)-t0 ))s" >> $Z/done.txt
# Then the exhaustive tf32 wgmma sweeps (68 legal configs at 4096), bias + GELU, with baselines.
T=dist/bin/coalesce-tune
for spec in "4096 tf32" "8192 tf32"; do
  set -- $spec
  timeout $(left 200) $T sweep --shape $1 --dtype $2 --family wgmma --db $Z/da.db > $Z/sweep_$1_$2.txt 2>&1
  echo "$spec rc=$? $(( $(date +%s)-t0 ))s" >> $Z/done.txt
done
tar czf $OUT/da.tgz -C $OUT da && rm -rf $Z
