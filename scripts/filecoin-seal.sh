#!/usr/bin/env bash
# scripts/filecoin-seal.sh: a real Filecoin client (filecoin-proofs 19.1, `cuda-supraseal`) seals
# a 2 KiB sector end to end with groth16-c2 as its Commit-2 prover and checks the proof with
# filecoin-proofs' own verify_seal (compat/filecoin-seal-check). What CI runs.
#
#   bash scripts/filecoin-seal.sh                # build, then seal and verify; prints timings
#   bash scripts/filecoin-seal.sh --build-only   # build only; prints the binary's path
#   bash scripts/filecoin-seal.sh --clippy       # clippy -D warnings on the crate, same setup
#
# The binary needs only glibc, libgcc_s, libstdc++ (groth16-c2's CUDA backend) and libcuda.so.1
# (the driver's, or the stub below), so it can be copied to a GPU machine and run there as is.
#
# Environment:
#   GROTH16_C2_FIL_PARAMS   the parameter cache (default ~/.cache/groth16-c2/filecoin-params);
#                           the 2 KiB params (1.1 GB; 10-18 min on 2 cores, 2 min on 16) are
#                           generated there once and reused. FIL_PROOFS_PARAMETER_CACHE wins.
#   EC_GPU_CUDA_NVCC_ARGS   nvcc arguments for bellperson's and neptune's kernels (default below).
#
# Needs: Rust, a C compiler, python3 (scripts/install-cuda.sh, when the toolkit is missing, and
# the driver probe).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
mode=run
case "${1:-}" in
    --build-only) mode=build ;;
    --clippy) mode=clippy ;;
    "") ;;
    *) echo "usage: $0 [--build-only | --clippy]" >&2; exit 2 ;;
esac
start=$(date +%s)

# nvcc for the kernels filecoin-proofs' `cuda-supraseal` feature compiles (and for groth16-c2's).
[ -f .cuda-venv/cuda.env ] || bash scripts/install-cuda.sh
# shellcheck disable=SC1091
source .cuda-venv/cuda.env

crate=compat/filecoin-seal-check
target=$root/target/filecoin-seal-check
# Not --locked: Cargo.lock also pins groth16-c2's own dependencies, which change with it; cargo
# adds what is missing and keeps every other pinned version.
cargo fetch --manifest-path "$crate/Cargo.toml"

# `-lcuda` (cuda-driver-sys) links against the stub; the driver's libcuda.so.1 is used at run
# time where there is one, the stub (no device: CPU proving) where there is none. The build
# scripts that link it run during the build, so both paths matter then too.
stub=$root/target/libcuda-stub
bash scripts/libcuda-stub.sh "$stub" >/dev/null
export LIBRARY_PATH="$stub${LIBRARY_PATH:+:$LIBRARY_PATH}"
# Asks the dynamic loader itself (a driver found through LD_LIBRARY_PATH counts too), and tells
# the stub, if already on that path, from a driver.
probe='import ctypes; exit(hasattr(ctypes.CDLL("libcuda.so.1"), "groth16_c2_libcuda_stub"))'
if python3 -c "$probe" 2>/dev/null; then
    echo "filecoin-seal.sh: using the installed NVIDIA driver"
else
    echo "filecoin-seal.sh: no NVIDIA driver; using the libcuda stub in $stub (CPU proving)"
    export LD_LIBRARY_PATH="$stub${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi

# bellperson's and neptune's kernels (ec-gpu-gen) never run in this check: with
# `cuda-supraseal` groth16-c2 proves, and neptune's run only with
# FIL_PROOFS_USE_GPU_{COLUMN,TREE}_BUILDER=1. So they are built as compute_75 PTX only, which the
# driver compiles on first use on any GPU from Turing on: about 1 min on 2 cores, where machine
# code takes ~1.5 min more per architecture (ec-gpu-gen's default, sm_75/80/86, also has none for
# Hopper or newer).
ec_gpu_args="--optimize=6 --threads=0 --fatbin --generate-code=arch=compute_75,code=compute_75"
export EC_GPU_CUDA_NVCC_ARGS="${EC_GPU_CUDA_NVCC_ARGS:-$ec_gpu_args}"

if [ "$mode" = clippy ]; then
    # --release: reuses the release build's build-script outputs (the kernels) instead of
    # compiling them again for the dev profile.
    cargo clippy --release --manifest-path "$crate/Cargo.toml" --target-dir "$target" \
        --all-targets -- -D warnings
    exit 0
fi

build_start=$(date +%s)
cargo build --release --manifest-path "$crate/Cargo.toml" --target-dir "$target"
build_s=$(($(date +%s) - build_start))
bin=$target/release/filecoin-seal-check
echo "filecoin-seal.sh: built $bin in ${build_s} s"

if [ "$mode" = build ]; then
    echo "filecoin-seal.sh: binary: $bin"
    needed=$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
    echo "  dynamic dependencies: $needed"
    echo "  run it where the NVIDIA driver is installed; params are generated into"
    echo "  \$GROTH16_C2_FIL_PARAMS (default ~/.cache/groth16-c2/filecoin-params) on the first run"
    exit 0
fi

# The binary itself picks the parameter cache (GROTH16_C2_FIL_PARAMS, see above).
run_start=$(date +%s)
"$bin"
run_s=$(($(date +%s) - run_start))
echo "filecoin-seal.sh: build ${build_s} s, seal check ${run_s} s, total $(($(date +%s) - start)) s"
