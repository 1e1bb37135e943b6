set -u
mkdir -p $OUT/c/logs
{ date -u; nvidia-smi; nvidia-smi -q | sed -n 1,80p; dist/bin/coalesce-tune --version; dist/bin/coalesce-tune env; } > $OUT/c/env.txt 2>&1
export XDG_CACHE_HOME=/tmp/xc
timeout -s INT 290 scripts/tensor-sweeps.sh 4096 results/coalesce.db $OUT/c/logs > $OUT/c/sweeps-4096.txt 2>&1; echo "rc=$?" >> $OUT/c/sweeps-4096.txt
OUT=$OUT/c timeout -s INT 200 scripts/gpu-test.sh > $OUT/c/gpu-test.txt 2>&1; echo "rc=$?" >> $OUT/c/gpu-test.txt
timeout -s INT 60 scripts/tensor-sweeps.sh 2048 results/coalesce.db $OUT/c/logs > $OUT/c/sweeps-2048.txt 2>&1; echo "rc=$?" >> $OUT/c/sweeps-2048.txt
cp results/coalesce.db $OUT/c/
tar czf $OUT/c.tgz -C $OUT c && rm -rf $OUT/c
