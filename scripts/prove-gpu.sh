#!/usr/bin/env bash
# scripts/prove-gpu.sh [prove args...]: the main job on a GPU, from a fresh clone. Finds nvcc
# (NVCC, CUDA_PATH, PATH, /usr/local/cuda) or installs the pinned CUDA 13.0 toolkit from PyPI
# (scripts/install-cuda.sh), builds with the CUDA backend for every GPU generation from Turing
# up, proves a batch, verifies it with bellperson and prints the backend, GPU and timings. Fails
# if the proofs would not run on a GPU. Arguments go to the prove example (e.g. --log-n 20).
# GROTH16_C2_CUDA_ARCHS=native builds for this machine's GPUs only (much faster to build).
set -euo pipefail
cd "$(dirname "$0")/.."

have_nvcc() {
    [ -n "${NVCC:-}" ] || command -v nvcc >/dev/null || [ -x "${CUDA_PATH:-/nonexistent}/bin/nvcc" ] ||
        [ -x /usr/local/cuda/bin/nvcc ]
}
if ! have_nvcc; then
    if [ ! -f .cuda-venv/cuda.env ]; then
        echo "prove-gpu: no nvcc found; installing the pinned toolkit (scripts/install-cuda.sh)"
        bash scripts/install-cuda.sh
    fi
    # shellcheck disable=SC1091
    source .cuda-venv/cuda.env
fi
exec cargo run --release --features cuda,bellpepper --example prove -- --require-gpu "$@"
