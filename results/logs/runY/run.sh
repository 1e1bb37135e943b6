set -u
Y=$OUT/y; mkdir -p $Y/logs
t0=$(date +%s)
left() { local l=$(( 570 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; echo "cores $(nproc)"; dist/bin/coalesce-tune --version; } > $Y/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc COALESCE_REQUIRE_GPU=1
# The split-K core: the harness path with simt's split kernel, planted split bugs, the sweep path.
for t in splitk_test harness_check_test tuner_sweep_test; do
  timeout $(left 150) dist/bin/$t > $Y/logs/$t.txt 2>&1; stamp $? >> $Y/logs/$t.txt
done
# The simt 4096³ winners of runs 1, 7 and 21, re-measured on the split-K build (the kernel header changed).
timeout -s INT $(left 60) dist/bin/coalesce-tune sweep --shape 4096 --family simt --config simt_f32_bm128_bn256_bk16_wm64_wn64_tm16_tn8_s4_v4_g8_o1_bias_gelu --config simt_f32_bm64_bn128_bk8_wm64_wn64_tm16_tn8_s4_v4_g8_o3_bias_gelu -j 16 --db $Y/y.db > $Y/logs/sweep-4096.txt 2>&1; stamp $? >> $Y/logs/sweep-4096.txt
# f32 skinny problems with split-K in simt's space: a seeded random sample per problem.
timeout -s INT $(left 400) dist/bin/coalesce-tune sweep --shapes-file results/logs/runY/skinny-f32.csv --family simt --strategy random --budget 80 --seed 1 -j 16 --db $Y/y.db > $Y/logs/sweep-skinny-f32.txt 2>&1; stamp $? >> $Y/logs/sweep-skinny-f32.txt
stamp 0 > $Y/done.txt
tar czf $OUT/y.tgz -C $OUT y && rm -rf $Y
