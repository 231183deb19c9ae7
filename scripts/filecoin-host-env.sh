# scripts/filecoin-host-env.sh: sourced by the scripts that build a real Filecoin host against
# groth16-c2 (filecoin-seal.sh, curio-check.sh). filecoin-proofs' `cuda-supraseal` feature
# compiles bellperson's and neptune's CUDA kernels and links `-lcuda`; this sets up both on any
# machine, with or without a GPU. Expects $root (the repository) to be set.
#
# EC_GPU_CUDA_NVCC_ARGS, when set, replaces the nvcc arguments for those kernels (default below).

# nvcc for those kernels (and for groth16-c2's).
[ -f "$root/.cuda-venv/cuda.env" ] || bash "$root/scripts/install-cuda.sh"
# shellcheck disable=SC1091
source "$root/.cuda-venv/cuda.env"

# `-lcuda` (cuda-driver-sys) links against the stub; the driver's libcuda.so.1 is used at run
# time where there is one, the stub (no device: CPU proving) where there is none. The build
# scripts that link it run during the build, so both paths matter then too.
host_env_stub=$root/target/libcuda-stub
# The stub's names come from cuda-driver-sys's sources in the cargo registry: on a machine that
# has never fetched the Filecoin crates, fetch them first.
shopt -s nullglob
host_env_decls=("${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/cuda-driver-sys-*/src)
shopt -u nullglob
if [ ${#host_env_decls[@]} -eq 0 ]; then
    cargo fetch --manifest-path "$root/compat/filecoin-seal-check/Cargo.toml" >/dev/null
fi
bash "$root/scripts/libcuda-stub.sh" "$host_env_stub" >/dev/null
export LIBRARY_PATH="$host_env_stub${LIBRARY_PATH:+:$LIBRARY_PATH}"
# Asks the dynamic loader itself (a driver found through LD_LIBRARY_PATH counts too), and tells
# the stub, if already on that path, from a driver.
host_env_probe='import ctypes; exit(hasattr(ctypes.CDLL("libcuda.so.1"), "groth16_c2_libcuda_stub"))'
if python3 -c "$host_env_probe" 2>/dev/null; then
    echo "$(basename "$0"): using the installed NVIDIA driver"
else
    echo "$(basename "$0"): no NVIDIA driver; using the libcuda stub in $host_env_stub (CPU proving)"
    export LD_LIBRARY_PATH="$host_env_stub${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi

# bellperson's and neptune's kernels (ec-gpu-gen) never run in these checks: with
# `cuda-supraseal` groth16-c2 proves, and neptune's run only with
# FIL_PROOFS_USE_GPU_{COLUMN,TREE}_BUILDER=1. So they are built as compute_75 PTX only, which the
# driver compiles on first use on any GPU from Turing on: about 1 min on 2 cores, where machine
# code takes ~1.5 min more per architecture (ec-gpu-gen's default, sm_75/80/86, also has none for
# Hopper or newer).
host_env_nvcc="--optimize=6 --threads=0 --fatbin --generate-code=arch=compute_75,code=compute_75"
export EC_GPU_CUDA_NVCC_ARGS="${EC_GPU_CUDA_NVCC_ARGS:-$host_env_nvcc}"
