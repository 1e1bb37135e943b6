#!/bin/sh
# A stand-in for `coalesce-tune worker` on machines without a GPU (COALESCE_TEST_STANDIN_WORKER,
# tuner/sweep.cpp): it speaks the worker's JSON lines and answers every measurement with a
# timing derived from the request's text, so equal requests get equal rows. cuBLASLt is
# "unavailable"; the floor read_b is answered as the worker answers a floor: timed, with
# "checked": false and no error figures. With STANDIN_DELAY set, each kernel takes that many seconds. With
# STANDIN_WRONG_AFTER set to a config's name, that config is answered as the harness answers a
# kernel that passed its checks and then failed the re-check of its last timed run
# (harness/method.cpp): wrong_result with the re-check's figures and no timing. With
# STANDIN_FAIL_SETUP set to a shell pattern, a set-up request matching it fails, as on a GPU that
# is lost (e.g. '*"device":1,*"m":64,*': device 1's problem with M = 64). A problem set up with
# 1,000 samples or more (the steady state) is answered 2 ms slower and with that many samples, so
# that a test sees the steady-state rows ranked first although slower.
[ "$1" = worker ] || exit 64
ms() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }
samples=40 slower=0
timing() {
  printf '{"status":"ok","rel_err":1e-7,"max_abs_err":2e-6,"median_ms":%s,"min_ms":%s,"max_ms":%s,"p10_ms":%s,"p90_ms":%s,"samples":%s,"grid_blocks":64}\n' \
    "$(ms $(($1 + slower)))" "$(ms $(($1 + slower - 50)))" "$(ms $(($1 + slower + 80)))" "$(ms $(($1 + slower - 20)))" \
    "$(ms $(($1 + slower + 20)))" "$samples"
}
while IFS= read -r line; do
  case "$line" in
    *'"op":"setup"'*)
      case "$line" in
        *'"min_samples":'[1-9][0-9][0-9][0-9]*) samples=$(printf '%s' "$line" | sed 's/.*"min_samples":\([0-9]*\).*/\1/') slower=2000 ;;
        *) samples=40 slower=0 ;;
      esac
      if [ -n "${STANDIN_FAIL_SETUP:-}" ]; then
        case "$line" in
          $STANDIN_FAIL_SETUP) echo '{"status":"error","detail":"the stand-in GPU is lost"}'; continue ;;
        esac
      fi
      echo '{"status":"ok"}' ;;
    *'"op":"ping"'*) echo '{"status":"ok"}' ;;
    *'"method":"cublaslt_fused"'*) echo '{"status":"unavailable","detail":"the stand-in worker has no cuBLASLt"}' ;;
    *'"method":"read_b"'*) echo '{"status":"ok","checked":false,"median_ms":0.400,"min_ms":0.390,"max_ms":0.420,"p10_ms":0.395,"p90_ms":0.405,"samples":'"$samples"'}' ;;
    *'"op":"baseline"'*) timing 1500 ;;
    *'"op":"kernel"'* | *'"op":"kernel_then_epilogue"'*)
      if [ -n "${STANDIN_WRONG_AFTER:-}" ]; then
        case "$line" in
          *'"config":"'"$STANDIN_WRONG_AFTER"'"'*)
            echo '{"status":"wrong_result","detail":"wrong after repeated runs (a race?): relative Frobenius error 0.42 exceeds 3.2e-06","rel_err":0.42,"max_abs_err":1.5,"max_scaled_err":0.875,"driver_registers":40,"grid_blocks":64}'
            continue ;;
        esac
      fi
      [ -n "${STANDIN_DELAY:-}" ] && sleep "$STANDIN_DELAY"
      sum=$(printf '%s' "$line" | cksum | cut -d ' ' -f 1)
      timing $((1000 + sum % 1000)) ;;
    *) echo '{"status":"error","detail":"the stand-in does not know this request"}' ;;
  esac
done
