set -u
Z=$OUT/eg; mkdir -p $Z
t0=$(date +%s)
left() { local l=$(( 580 - ($(date +%s) - t0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 1 ] && l=1; echo $l; }
{ date -u; nvidia-smi --query-gpu=index,name,uuid,driver_version --format=csv; dist/bin/coalesce-tune --version; } > $Z/env.txt 2>&1
# Run EE's stream-K sweeps on the final build (7886ec3), with the space's lists of this build (the register
# model's stream-K overhead changed which S are distinct): every legal stream-K config and the
# committed winner at N = K = 4096, M = 64, 128, 256 (512^3 ran in run EF).
export XDG_CACHE_HOME=/tmp/xc
for s in 64x4096x4096 128x4096x4096 256x4096x4096; do
  args=(); while read -r c; do args+=(--config "$c"); done < dist/configs_$s.txt
  timeout $(left 60) dist/bin/coalesce-tune sweep --shape $s --dtype bf16 --family wgmma "${args[@]}" --db $Z/eg.db > $Z/sweep_$s.txt 2>&1
  echo "$s rc=$? $(( $(date +%s)-t0 ))s" >> $Z/done.txt
done
tar czf $OUT/eg.tgz -C $OUT eg && rm -rf $Z

