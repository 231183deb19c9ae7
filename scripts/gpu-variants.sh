#!/usr/bin/env bash
# gpu-variants.sh OUT_DIR "name:nvcc flags;name:nvcc flags;...": builds the examples in
# GPU_VARIANT_EXAMPLES (default gpu_bench; `bench` for whole partitions) and the tests in
# GPU_VARIANT_TESTS (default gpu, the GPU tests) once per variant of the kernels'
# tuning knobs (cuda/config.cuh; GROTH16_C2_NVCC_FLAGS, e.g. -DG16_MSM_MAX_WINDOW=18 or
# -DG16_NTT_MIN_BLOCKS=2), release, --features cuda,bellpepper,gpu-test-kernels, stripped,
# into OUT_DIR/<name>/. Pack them beside a baseline for scripts/gpu-ab.sh with
#   GPU_PACK_EXTRA="OUT_DIR/<name>/gpu_bench=gpu_bench_<name> ..." bash scripts/gpu-pack.sh
# Each variant compiles the kernels once (cached after); GROTH16_C2_CUDA_ARCHS applies.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: gpu-variants.sh OUT_DIR "name:flags;..."}
specs=${2:?usage: gpu-variants.sh OUT_DIR "name:flags;..."}
tests=${GPU_VARIANT_TESTS-gpu}
examples=${GPU_VARIANT_EXAMPLES:-gpu_bench}
if ! command -v nvcc >/dev/null && [ -z "${NVCC:-}" ] && [ -f .cuda-venv/cuda.env ]; then
    # shellcheck disable=SC1091
    source .cuda-venv/cuda.env
fi
IFS=';' read -ra variants <<<"$specs"
for spec in "${variants[@]}"; do
    name=${spec%%:*}
    flags=${spec#*:}
    echo "=== variant $name: GROTH16_C2_NVCC_FLAGS=\"$flags\""
    mkdir -p "$out/$name"
    tests_args=()
    for t in $tests; do tests_args+=(--test "$t"); done
    examples_args=()
    for e in $examples; do examples_args+=(--example "$e"); done
    {
        GROTH16_C2_NVCC_FLAGS="$flags" cargo build --release --features cuda,bellpepper,gpu-test-kernels \
            --target-dir target/gpu-variants-build "${examples_args[@]}" --message-format=json-render-diagnostics
        if [ ${#tests_args[@]} -gt 0 ]; then
            GROTH16_C2_NVCC_FLAGS="$flags" cargo test --release --features cuda,bellpepper,gpu-test-kernels \
                --target-dir target/gpu-variants-build "${tests_args[@]}" --no-run --message-format=json-render-diagnostics
        fi
    } | python3 -c '
import json, shutil, sys
out = sys.argv[1]
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        name = m["target"]["name"]
        shutil.copy(m["executable"], f"{out}/{name}")
        print("  ", name)
' "$out/$name"
    # Not the NVCC_FLAGS note that an earlier build of the variant left there.
    find "$out/$name" -type f ! -name NVCC_FLAGS -exec strip {} +
    echo "$flags" >"$out/$name/NVCC_FLAGS"
done
