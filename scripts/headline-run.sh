#!/usr/bin/env bash
# The headline run (issue 37): the best known fused config of each headline problem timed beside
# the library baselines and every PyTorch/Triton peer, in one sitting on one GPU and one timing
# protocol (flush_spin, docs/tuner.md, "The timing protocol"): 4096³, 8192³ and 64×4096×4096 in
# bf16, f16, tf32 and f32 with bias_gelu. Fits one device call (about 10 minutes).
#
# On the GPU host, from the repository root with dist/ carried (scripts/gpu-pack.sh build --bundle):
#   tar xzf dist/bundle.tgz -C dist && bash scripts/headline-run.sh
# The database comes back in $OUT/headline.tgz (headline/headline.db, the logs, env.txt).
#
# The configs are the best of each problem and family in results/coalesce.db as of 2026-12-05
# (coalesce-report query "SELECT dtype, m, family, config_name, protocol, median_ms FROM v_best
# ..." with the most preferred protocol first), each checked legal for its problem with
# `coalesce-tune space`. tf32 at 64×4096×4096 was never measured with bias_gelu: its names are
# the f32 mma winner's tile in tf32 and a one-warpgroup wgmma tile (wgmma has no tf32 split-K at
# M = 64), not tuned winners. One sweep per dtype holds its three shapes; each --config is
# measured where it is a legal candidate of a shape.
#
# Each step has a time limit within the run's budget (RUN_BUDGET seconds, default 570) and stops
# with SIGINT, so what it measured is stored; the order is the priority (bf16 and f32 first,
# max-autotune last, since it takes minutes per shape).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
. scripts/run-lib.sh
run_begin headline "${RUN_BUDGET:-570}"
TUNE=${TUNE:-dist/bin/coalesce-tune}
DB=$Z/headline.db
SHAPES=(--shape 4096 --shape 8192 --shape 64x4096x4096)
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)" >> "$Z/env.txt" 2>&1

# headline DTYPE SECONDS MODES CONFIG...: the dtype's three shapes with the named configs, the
# baselines and the peers MODES (--peers-modes), into $DB.
headline() {
  local dtype=$1 seconds=$2 modes=$3 c cfgs=()
  shift 3
  for c in "$@"; do cfgs+=(--config "$c"); done
  timeout -s INT "$(left "$seconds")" "$TUNE" sweep "${SHAPES[@]}" --dtype "$dtype" --epilogue bias_gelu \
    "${cfgs[@]}" -j 16 --peers --peers-modes "$modes" --db "$DB" > "$Z/logs/sweep-$dtype-$modes.txt" 2>&1
  echo "$dtype $modes $(stamp $?)" >> "$Z/logs/done.txt"
}

BF16=(wgmma_bf16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_bias_gelu
      wgmma_bf16_bm128_bn256_bk64_s3_wg2_cm2_cn1_p1_g8_ts1_bias_gelu
      wgmma_bf16_bm64_bn64_bk64_s8_wg1_cm1_cn1_p0_g8_ts0_sk2_rd2_bias_gelu)
F32=(mma_f32_bm64_bn256_kb128_wm32_wn64_s4_v16_sw1_g8_o1_bias_gelu
     mma_f32_bm64_bn64_kb128_wm64_wn32_s4_v16_sw1_g8_o2_sk4_bias_gelu)
F16=(wgmma_f16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p1_g8_ts1_bias_gelu
     wgmma_f16_bm128_bn256_bk64_s3_wg2_cm1_cn1_p0_g8_ts1_bias_gelu
     wgmma_f16_bm64_bn64_bk64_s8_wg1_cm1_cn1_p0_g8_ts0_sk2_rd2_bias_gelu)
TF32=(wgmma_tf32_bm256_bn128_bk32_s4_wg2_cm1_cn1_p1_g8_ts0_bias_gelu
      wgmma_tf32_bm256_bn128_bk32_s3_wg2_cm1_cn1_p1_g8_ts0_bias_gelu
      mma_tf32_bm64_bn64_kb128_wm64_wn32_s4_v16_sw1_g8_o2_sk4_bias_gelu
      wgmma_tf32_bm64_bn64_bk32_s6_wg1_cm1_cn1_p0_g8_ts0_bias_gelu)

# The steps, in priority order (HEADLINE_STEPS overrides it, e.g. "f16 tf32 bf16+ kernels" for a
# sitting that completes what an earlier one ran out of time for): DTYPE is the dtype's three
# shapes with the configs, baselines and the eager, torch.compile and Triton peers; DTYPE+ the
# same with every peer including torch.compile's max-autotune (minutes per shape; the configs and
# baselines of an earlier step of this sitting are stored, so only the missing rows run);
# `kernels` lists the kernels the peers launch (scripts/peer_kernels.py, a diagnostic).
PEERS=torch_eager,torch_compile,triton
AUTOTUNE=torch_compile_max_autotune
for step in ${HEADLINE_STEPS:-bf16 f32 f16 tf32 bf16+ f32+ f16+ tf32+}; do
  [ "$(left 600)" -gt 30 ] || break
  case $step in
    kernels) timeout -s INT "$(left 150)" python3 scripts/peer_kernels.py --out "$Z/peer-kernels.md" \
               > "$Z/logs/peer-kernels.txt" 2>&1
             echo "kernels $(stamp $?)" >> "$Z/logs/done.txt" ;;
    bf16) headline bf16 170 "$PEERS" "${BF16[@]}" ;;
    f32) headline f32 130 "$PEERS" "${F32[@]}" ;;
    f16) headline f16 130 "$PEERS" "${F16[@]}" ;;
    tf32) headline tf32 120 "$PEERS" "${TF32[@]}" ;;
    bf16+) headline bf16 600 "$PEERS,$AUTOTUNE" "${BF16[@]}" ;;
    f32+) headline f32 600 "$PEERS,$AUTOTUNE" "${F32[@]}" ;;
    f16+) headline f16 600 "$PEERS,$AUTOTUNE" "${F16[@]}" ;;
    tf32+) headline tf32 600 "$PEERS,$AUTOTUNE" "${TF32[@]}" ;;
    *) echo "headline-run: unknown step '$step' (bf16, f32, f16, tf32, each with + for max-autotune, or kernels)" >&2
       exit 2 ;;
  esac
done
run_end
