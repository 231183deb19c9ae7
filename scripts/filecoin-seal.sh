#!/usr/bin/env bash
# scripts/filecoin-seal.sh: a real Filecoin client (filecoin-proofs 19.1, `cuda-supraseal`) makes
# every Groth16 proof a storage provider makes (PoRep Commit-2 of a 2 KiB sector sealed end to
# end, SnapDeals, Window PoSt of two partitions, Winning PoSt) with groth16-c2 as its prover and
# checks each with filecoin-proofs' own verifier (compat/filecoin-seal-check). What CI runs.
#
#   bash scripts/filecoin-seal.sh                # build, then seal and verify; prints timings
#   bash scripts/filecoin-seal.sh --build-only   # build only; prints the binary's path
#   bash scripts/filecoin-seal.sh --clippy       # clippy -D warnings on the crate, same setup
#   bash scripts/filecoin-seal.sh --curio-inputs DIR
#                                 # as the first, then writes the inputs of Curio's engine for the
#                                 # same proofs to DIR (what scripts/curio-check.sh proves)
#
# The binary needs only glibc, libgcc_s, libstdc++ (groth16-c2's CUDA backend) and libcuda.so.1
# (the driver's, or the stub below), so it can be copied to a GPU machine and run there as is.
#
# Environment:
#   GROTH16_C2_FIL_PARAMS   the parameter cache (default ~/.cache/groth16-c2/filecoin-params);
#                           the 2 KiB params of the four circuits (PoRep: 1.1 GB, 10-18 min on
#                           2 cores, 2 min on 16; the others smaller) are
#                           generated there once and reused. FIL_PROOFS_PARAMETER_CACHE wins.
#   EC_GPU_CUDA_NVCC_ARGS   nvcc arguments for bellperson's and neptune's kernels (default below).
#
# Needs: Rust, a C compiler, python3 (scripts/install-cuda.sh, when the toolkit is missing, and
# the driver probe).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
mode=run
run_args=()
case "${1:-}" in
    --build-only) mode=build ;;
    --clippy) mode=clippy ;;
    --curio-inputs) [ -n "${2:-}" ] || { echo "$0: --curio-inputs needs a folder" >&2; exit 2; }
        mkdir -p "$2"
        run_args=(--curio-inputs "$(cd "$2" && pwd)") ;;
    "") ;;
    *) echo "usage: $0 [--build-only | --clippy | --curio-inputs DIR]" >&2; exit 2 ;;
esac
start=$(date +%s)

# nvcc, the libcuda stub where there is no driver, and the kernels' nvcc arguments.
# shellcheck source=scripts/filecoin-host-env.sh
source scripts/filecoin-host-env.sh

crate=compat/filecoin-seal-check
target=$root/target/filecoin-seal-check
# Not --locked: Cargo.lock also pins groth16-c2's own dependencies, which change with it; cargo
# adds what is missing and keeps every other pinned version.
cargo fetch --manifest-path "$crate/Cargo.toml"

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

# Its unit tests (the release build's dependencies serve them).
cargo test --release --manifest-path "$crate/Cargo.toml" --target-dir "$target"

# The binary itself picks the parameter cache (GROTH16_C2_FIL_PARAMS, see above).
run_start=$(date +%s)
"$bin" "${run_args[@]}"
run_s=$(($(date +%s) - run_start))
echo "filecoin-seal.sh: build ${build_s} s, seal check ${run_s} s, total $(($(date +%s) - start)) s"
