#!/usr/bin/env bash
# gpu-run.sh PACK_DIR LOG_DIR [TEST ...]: runs the packed test binaries (all, or the named
# ones; `gpu.MODULE` runs one module of the gpu binary, `gpu gpu::MODULE::`) on the GPU machine, one
# log per binary in LOG_DIR, and prints a summary. With
# GPU_RUN_EXAMPLE="name args", it then runs that packed example too (output in LOG_DIR). Exits non-zero
# when any binary fails. Extra arguments for every test binary go in GPU_TEST_ARGS.
set -uo pipefail
pack=${1:?usage: gpu-run.sh PACK_DIR LOG_DIR [TEST ...]}
logs=${2:?usage: gpu-run.sh PACK_DIR LOG_DIR [TEST ...]}
shift 2
mkdir -p "$logs"
pack=$(bash "$(dirname "$0")/gpu-unpack.sh" "$pack") || exit 1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | tee "$logs/gpu.txt"
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
    for t in "$pack"/tests/*; do names+=("$(basename "$t")"); done
fi
failed=0
for name in "${names[@]}"; do
    start=$SECONDS
    filter=()
    [[ "$name" == *.* ]] && filter=("gpu::${name#*.}::")
    # shellcheck disable=SC2086
    "$pack/tests/${name%%.*}" "${filter[@]}" ${GPU_TEST_ARGS:-} >"$logs/$name.log" 2>&1
    rc=$?
    result=$(grep -E "^test result:" "$logs/$name.log" | tail -1)
    skips=$(grep -c "^SKIP" "$logs/$name.log")
    echo "$name: rc=$rc ${result:-no result line} skips=$skips ($((SECONDS - start)) s)"
    [ $rc -eq 0 ] || { failed=$((failed + 1)); tail -30 "$logs/$name.log"; }
done
echo "gpu-run: ${#names[@]} runs, $failed failed"
if [ -n "${GPU_RUN_EXAMPLE:-}" ]; then
    read -r example args <<<"$GPU_RUN_EXAMPLE"
    echo "--- example $example $args"
    # shellcheck disable=SC2086
    "$pack/examples/$example" $args 2>&1 | tee "$logs/$example.log"
fi
[ $failed -eq 0 ]
