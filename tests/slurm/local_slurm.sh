# A private single-node Slurm for the Slurm tests, sourced by them: munged, slurmctld and slurmd
# run as the sourcing shell's own children, as whichever user runs the test (root or not: the
# jobs are that user's own), with every file (key, config, state, spool, logs) under one
# directory, ports found free and no cgroups. The node, "coalesce-test", has two stand-in GPUs
# and 16 CPUs whatever this machine has (SlurmdParameters=config_overrides), so that a job
# script asking for several CPUs per task runs as written.
#
#   local_slurm_start DIR   exports SLURM_CONF and returns 0 once the node is idle; 77 (the
#                           tests' skip status) with the reason on stdout where this machine
#                           cannot run a Slurm at all; 1 with the daemons' logs when it could
#                           and did not come up.
#   local_slurm_stop        cancels every job, stops the daemons (SIGKILL after 10 s) and
#                           removes DIR; safe to call twice and from an EXIT trap.
#
# The line between a skip and a failure: what this machine lacks is a skip (a Slurm or munge
# command, a TCP socket on the loopback); everything after that is this file's own
# configuration on a Slurm that is there, so a daemon that exits, a node that registers
# drained or invalid, or one not idle within LOCAL_SLURM_TIMEOUT seconds (default 60; it takes
# one or two) is a failure, as it would be for anyone following docs/scale.md with that Slurm.

local_slurm_dir=""
local_slurm_pids=()

# Prints the daemons' logs (the last lines of each), for a failure's report.
local_slurm_logs() {
  local f
  for f in "$local_slurm_dir"/log/*; do
    [ -s "$f" ] || continue
    echo "---- ${f#"$local_slurm_dir"/} (last 25 lines)"
    tail -n 25 "$f"
  done
}

local_slurm_start() {
  local dir=$1 cmd
  local_slurm_dir=$dir
  for cmd in munged slurmctld slurmd sbatch squeue sinfo scontrol scancel python3; do
    if ! command -v "$cmd" >/dev/null; then
      echo "SKIP: no Slurm here: '$cmd' is not installed (scripts/install-deps.sh installs it)"
      return 77
    fi
  done
  local ports
  if ! ports=$(python3 -c '
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in socks))' 2>&1); then
    echo "SKIP: no TCP socket on the loopback for slurmctld and slurmd: $ports"
    return 77
  fi
  local ctld_port=${ports% *} slurmd_port=${ports#* } host
  host=$(hostname -s)

  mkdir -p "$dir"/{etc,munge,state,spool,log}
  head -c 1024 /dev/urandom >"$dir/munge/munge.key"
  chmod 600 "$dir/munge/munge.key"

  # Slurm 22.05 (Debian 12). The stand-in GPUs are the files of two devices every Linux has:
  # gres/gpu drops a GPU without a device file, and with task/none nothing is fenced off, so
  # the files only give each task its CUDA_VISIBLE_DEVICES.
  cat >"$dir/etc/slurm.conf" <<EOF
ClusterName=coalesce-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/state/slurmctld.pid
SlurmdPidFile=$dir/spool/slurmd.pid
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
DependencyParameters=kill_invalid_depend
ReturnToService=2
GresTypes=gpu
NodeName=coalesce-test NodeAddr=127.0.0.1 NodeHostname=$host CPUs=16 Gres=gpu:2 State=UNKNOWN
PartitionName=test Nodes=coalesce-test Default=YES MaxTime=INFINITE State=UP
EOF
  echo "NodeName=coalesce-test Name=gpu File=/dev/null,/dev/zero" >"$dir/etc/gres.conf"
  export SLURM_CONF=$dir/etc/slurm.conf

  # --force: munged wants every directory above its socket searchable by all, for other
  # users' clients (mktemp's directories are not); here every client is this test's.
  munged --foreground --force --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/munge/munged.pid" --seed-file="$dir/munge/munged.seed" \
    --log-file="$dir/log/munged.log" >"$dir/log/munged.out" 2>&1 &
  local_slurm_pids+=($!)
  local i
  for ((i = 0; i < 50; i++)); do [ -S "$dir/munge/munge.socket" ] && break; sleep 0.1; done
  if [ ! -S "$dir/munge/munge.socket" ]; then
    echo "FAIL: munged did not start"
    local_slurm_logs
    return 1
  fi
  slurmctld -D >"$dir/log/slurmctld.out" 2>&1 &
  local_slurm_pids+=($!)
  slurmd -D -N coalesce-test >"$dir/log/slurmd.out" 2>&1 &
  local_slurm_pids+=($!)

  local state pid deadline=$((SECONDS + ${LOCAL_SLURM_TIMEOUT:-60}))
  while :; do
    for pid in "${local_slurm_pids[@]}"; do
      if ! kill -0 "$pid" 2>/dev/null; then
        echo "FAIL: a Slurm daemon exited while starting"
        local_slurm_logs
        return 1
      fi
    done
    state=$(sinfo -h -n coalesce-test -o %T 2>/dev/null)
    case "$state" in
      idle) return 0 ;;
      *drain* | *inval* | *down* | *fail*)
        echo "FAIL: the node registered as '$state': $(scontrol show node coalesce-test | grep -o 'Reason=.*')"
        local_slurm_logs
        return 1 ;;
    esac
    if ((SECONDS >= deadline)); then
      echo "FAIL: the node is not idle after ${LOCAL_SLURM_TIMEOUT:-60} s (state '${state:-no answer from slurmctld}')"
      local_slurm_logs
      return 1
    fi
    sleep 0.2
  done
}

local_slurm_stop() {
  [ -n "$local_slurm_dir" ] || return 0
  local pid i t
  if ((${#local_slurm_pids[@]} >= 2)) && kill -0 "${local_slurm_pids[1]}" 2>/dev/null; then
    scancel --quiet --user "$(id -un)" 2>/dev/null
    for ((i = 0; i < 50; i++)); do
      [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
      sleep 0.2
    done
  fi
  # slurmd first, then slurmctld, then munged: each still has the one after it to talk to.
  for ((i = ${#local_slurm_pids[@]} - 1; i >= 0; i--)); do
    pid=${local_slurm_pids[i]}
    kill "$pid" 2>/dev/null || continue
    for ((t = 0; t < 100; t++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
  local_slurm_pids=()
  rm -rf "$local_slurm_dir"
  local_slurm_dir=""
}
