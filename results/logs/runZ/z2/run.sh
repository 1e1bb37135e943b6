set -u
Z=$OUT/z2; mkdir -p $Z/logs
t0=$(date +%s)
left() { local l=$(( 575 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
stamp() { echo "rc=$1 $(( $(date +%s)-t0 ))s"; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv; echo "cores $(nproc)"; dist/bin/coalesce-tune --version; } > $Z/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
# bf16 skinny problems: every family (mma and wgmma with split-K, gemv), a seeded random sample per family.
timeout -s INT $(left 330) dist/bin/coalesce-tune sweep --shapes-file results/logs/runZ/skinny-bf16.csv --strategy random --budget 100 --seed 2 -j 16 --db $Z/z.db > $Z/logs/sweep-skinny-bf16.txt 2>&1; stamp $? >> $Z/logs/sweep-skinny-bf16.txt
# The bf16 4096³ winners of runs 8 and 33 re-measured on this build (the mma and wgmma kernels changed).
timeout -s INT $(left 60) dist/bin/coalesce-tune sweep --shape 4096 --dtype bf16 --config wgmma_bf16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_bias_gelu --config mma_bf16_bm256_bn128_kb128_wm64_wn64_s3_v16_sw1_g8_o1_bias_gelu -j 16 --db $Z/z.db > $Z/logs/sweep-4096-bf16.txt 2>&1; stamp $? >> $Z/logs/sweep-4096-bf16.txt
# f32 at M = 1 and 8: the whole gemv space.
timeout -s INT $(left 60) dist/bin/coalesce-tune sweep --shape 1x4096x4096 --shape 8x4096x4096 --family gemv -j 16 --db $Z/z.db > $Z/logs/sweep-gemv-f32.txt 2>&1; stamp $? >> $Z/logs/sweep-gemv-f32.txt
# PyTorch eager and torch.compile at the same shapes, f32 and bf16.
S="--shape 1x4096x4096 --shape 8x4096x4096 --shape 32x4096x4096 --shape 64x4096x4096 --shape 128x4096x4096 --shape 256x4096x4096 --shape 512"
timeout -s INT $(left 80) python3 scripts/torch_peers.py --db $Z/z.db --dtype bf16 --method torch_eager --method torch_compile $S > $Z/logs/torch-peers-bf16.txt 2>&1; stamp $? >> $Z/logs/torch-peers-bf16.txt
timeout -s INT $(left 80) python3 scripts/torch_peers.py --db $Z/z.db --dtype f32 --method torch_eager --method torch_compile $S > $Z/logs/torch-peers-f32.txt 2>&1; stamp $? >> $Z/logs/torch-peers-f32.txt
stamp 0 > $Z/done.txt
tar czf $OUT/z2.tgz -C $OUT z2 && rm -rf $Z
