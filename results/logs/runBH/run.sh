set -u
D=$OUT/bh; mkdir -p $D
t0=$(date +%s)
left() { local l=$(( 560 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; dist/bin/coalesce-tune --version; } > $D/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
# The wgmma and split-K GPU tests with split-K reduced in the kernel (reduce = 1).
timeout $(left 200) dist/bin/wgmma_test > $D/wgmma_test.txt 2>&1; echo "wgmma_test rc=$? $(( $(date +%s)-t0 ))s" >> $D/done.txt
timeout $(left 100) dist/bin/splitk_test > $D/splitk_test.txt 2>&1; echo "splitk_test rc=$? $(( $(date +%s)-t0 ))s" >> $D/done.txt
# bf16, N = K = 4096, bias + GELU: the fastest split tiles of runs 51-66 at M = 64, 128 and 256,
# each factor with the separate reduce and reduced in the kernel, two rounds (each its own db).
for r in 1 2; do
  for m in 64 128 256; do
    C=$(sed 's/^/--config /' dist/configs$m.txt | tr '\n' ' ')
    timeout $(left 100) dist/bin/coalesce-tune sweep --shape ${m}x4096x4096 --dtype bf16 --family wgmma $C --db $D/r$r.db > $D/m${m}_$r.txt 2>&1
    echo "m $m round $r $(( $(date +%s)-t0 ))s" >> $D/done.txt
  done
done
echo "rc=0 $(( $(date +%s)-t0 ))s" >> $D/done.txt
tar czf $OUT/bh.tgz -C $OUT bh && rm -rf $D
