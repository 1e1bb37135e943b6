# Run LE: branch simt-bk32 (simt's lists with BK = 32 and 2 stages beside 8/16 and 3/4): 32-deep K
# slices halve the block barriers per FFMA. The three fastest f32 tiles at M = 128 (split 8),
# M = 256 (split 4) and 4096^3 (unsplit) with BK = 32 and 2-4 stages, beside the BK = 16 winners,
# --steady-top 3.
set -u
. scripts/run-lib.sh
run_begin le 420
sweep_list 128x4096x4096 f32 simt results/logs/runLE/configs-f32-128x4096x4096.txt 110
sweep_list 256x4096x4096 f32 simt results/logs/runLE/configs-f32-256x4096x4096.txt 130
sweep_list 4096 f32 simt results/logs/runLE/configs-f32-4096.txt 170
run_end
