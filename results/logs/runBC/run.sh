set -u
D=$OUT/bc; mkdir -p $D
t0=$(date +%s)
left() { local l=$(( 560 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; dist/bin/coalesce-tune --version; dist/old/coalesce-tune --version; } > $D/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
# The wgmma GPU tests on the branch-free direct-store epilogue.
timeout $(left 200) dist/bin/wgmma_test > $D/wgmma_test.txt 2>&1; echo "wgmma_test rc=$? $(( $(date +%s)-t0 ))s" >> $D/done.txt
# A/B at 4096^3 bf16, bias + GELU: every legal ping-pong direct-store config, the cooperative
# direct-store tiles of 128 rows, and the TMA-store winner (unchanged code: the control), the
# build before (dist/old, 702a4ec) and after, two alternating rounds, each round its own db.
C=$(sed 's/^/--config /' dist/configs.txt | tr '\n' ' ')
for r in 1 2; do
  timeout $(left 150) dist/old/coalesce-tune sweep --shape 4096 --dtype bf16 --family wgmma $C --db $D/old$r.db > $D/old_$r.txt 2>&1
  timeout $(left 150) dist/bin/coalesce-tune sweep --shape 4096 --dtype bf16 --family wgmma $C --db $D/new$r.db > $D/new_$r.txt 2>&1
  echo "round $r $(( $(date +%s)-t0 ))s" >> $D/done.txt
done
# Ping-pong against the cooperative winner's tile with no epilogue at 8192^3 (their main loops
# where the last round of tiles is nearly full).
timeout $(left 90) dist/bin/coalesce-tune sweep --shape 8192 --dtype bf16 --epilogue none --family wgmma \
  --config wgmma_bf16_bm128_bn192_bk64_s4_wg2_cm1_cn1_p1_g8_ts0_pp1_none \
  --config wgmma_bf16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_none --db $D/g8192.db > $D/g8192.txt 2>&1
echo "rc=0 $(( $(date +%s)-t0 ))s" >> $D/done.txt
tar czf $OUT/bc.tgz -C $OUT bc && rm -rf $D
