#!/usr/bin/env bash
# scripts/sass-mix.sh [FLAGS ...]: what the kernels cost in machine code, without a GPU. For each
# set of nvcc flags given (one argument each, e.g. "" "-DG16_NTT_MIN_BLOCKS=2"), compiles the
# field products for sm_90 (Fr, Fp) and prints their SASS instruction mix (IMAD.HI and
# IMAD.WIDE take the IMAD pipe twice as long as IMAD on Hopper), then the NTT pass kernels'
# spills (ptxas -v).
# Installs cuobjdump and nvdisasm from PyPI into .cuda-venv the first time (nvcc's wheels lack
# them); scripts/install-cuda.sh must have run.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck disable=SC1091
source .cuda-venv/cuda.env
bin=.cuda-venv/sass-tools
if [ ! -x "$bin/cuobjdump" ]; then
    mkdir -p "$bin" "$bin/whl"
    .cuda-venv/bin/pip download -q --no-deps -d "$bin/whl" nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm
    for w in "$bin"/whl/*.whl; do python3 -m zipfile -e "$w" "$bin/x"; done
    find "$bin/x" \( -name cuobjdump -o -name nvdisasm \) -type f -exec cp {} "$bin/" \;
    chmod +x "$bin/cuobjdump" "$bin/nvdisasm"
fi
export PATH="$PWD/$bin:$PATH" NVDISASM_PATH="$PWD/$bin"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/probe.cu" <<'CU'
#include "bls12_381.cuh"
using namespace g16;
__global__ void fr_mul(const fr_t* a, const fr_t* b, fr_t* o) { int i = threadIdx.x; o[i] = a[i] * b[i]; }
__global__ void fp_mul(const fp_t* a, const fp_t* b, fp_t* o) { int i = threadIdx.x; o[i] = a[i] * b[i]; }
CU
[ $# -gt 0 ] || set -- ""
for flags in "$@"; do
    echo "== flags: ${flags:-(default)}"
    # shellcheck disable=SC2086
    nvcc -std=c++17 -O3 -arch=sm_90 -cubin -Icuda $flags -o "$work/probe.cubin" "$work/probe.cu"
    cuobjdump -sass "$work/probe.cubin" >"$work/probe.sass"
    # The integer products: instructions and IMAD-pipe cycles (scripts/sass-imad.py).
    python3 scripts/sass-imad.py "$work/probe.sass" _mul
    # shellcheck disable=SC2086
    nvcc -std=c++17 -O3 -arch=sm_90 -cubin -Xptxas -v -Icuda $flags -o "$work/ntt.cubin" cuda/ntt.cu 2>&1 |
        awk '/Compiling entry function .*ntt_pass_kernelILi9/{getline; getline; sub(/^ptxas info *: */, ""); print "ntt pass (9 bits): " $0}'
done
