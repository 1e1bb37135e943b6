#!/usr/bin/env bash
# Installs the Debian packages Coalesce builds with, skipping those already present.
# The CUDA 13 toolkit itself is not a Debian package: it must already be in /usr/local/cuda.
# slurm-wlm and munge are for the Slurm test (tests/slurm), which starts daemons of its own in a
# temporary directory. Where systemd runs, the packages' munge service starts (unused by the
# test) and slurmctld's and slurmd's stay down, as there is no /etc/slurm/slurm.conf.
# clang-22 and libclang-rt-22-dev (libFuzzer and the sanitizers' runtimes) build the fuzz targets
# (tests/fuzz); the rest of Coalesce builds with g++.
set -euo pipefail

packages=(
  cmake ninja-build g++ git python3 python3-venv
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools
  libsqlite3-dev sqlite3 nlohmann-json3-dev libcli11-dev libgtest-dev
  zlib1g-dev libzstd-dev
  python3-matplotlib
  slurm-wlm munge
  clang-22 libclang-rt-22-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "install-deps: the CUDA 13 toolkit is missing (expected /usr/local/cuda/bin/nvcc); install NVIDIA's cuda-toolkit-13-0" >&2
  exit 1
fi

# PyTorch and the rest the coalesce Python package's tests need, in a venv of their own.
"$(dirname "$0")/install-torch-venv.sh"
