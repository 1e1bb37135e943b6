set -u
D=$OUT/bd; mkdir -p $D
t0=$(date +%s)
left() { local l=$(( 560 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; dist/bin/coalesce-tune --version; dist/old/coalesce-tune --version; } > $D/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
# The mma GPU tests on branch tf32-b128 (tf32 B read with 16-byte loads).
timeout $(left 200) dist/bin/mma_test > $D/mma_test.txt 2>&1; echo "mma_test rc=$? $(( $(date +%s)-t0 ))s" >> $D/done.txt
# A/B at 4096^3 tf32, bias + GELU: the 8 fastest tf32 configs of earlier runs, the build before
# (dist/old, 702a4ec) and after; the order flips between rounds (old first, then new first).
C=$(sed 's/^/--config /' dist/configs.txt | tr '\n' ' ')
timeout $(left 100) dist/old/coalesce-tune sweep --shape 4096 --dtype tf32 --family mma $C --db $D/old1.db > $D/old_1.txt 2>&1
timeout $(left 100) dist/bin/coalesce-tune sweep --shape 4096 --dtype tf32 --family mma $C --db $D/new1.db > $D/new_1.txt 2>&1
echo "round 1 $(( $(date +%s)-t0 ))s" >> $D/done.txt
timeout $(left 100) dist/bin/coalesce-tune sweep --shape 4096 --dtype tf32 --family mma $C --db $D/new2.db > $D/new_2.txt 2>&1
timeout $(left 100) dist/old/coalesce-tune sweep --shape 4096 --dtype tf32 --family mma $C --db $D/old2.db > $D/old_2.txt 2>&1
echo "round 2 $(( $(date +%s)-t0 ))s" >> $D/done.txt
# Exhaustive tf32 mma sweep at 4096^3 on the new build.
timeout $(left 300) dist/bin/coalesce-tune sweep --shape 4096 --dtype tf32 --family mma --db $D/full.db > $D/full.txt 2>&1
echo "rc=0 $(( $(date +%s)-t0 ))s" >> $D/done.txt
tar czf $OUT/bd.tgz -C $OUT bd && rm -rf $D
