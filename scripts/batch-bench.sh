#!/usr/bin/env bash
# scripts/batch-bench.sh PACK_DIR ANCHORS_DIR OUT_DIR [PART ...]: the call-shape benchmarks of
# the GPU machine, ours and supraseal-c2's in one run (so every ratio is measured on one machine
# at one time). PACK_DIR is what scripts/gpu-pack.sh made (bench and srs_load examples inside),
# ANCHORS_DIR holds supraseal_c2bench, a benchmark built on supraseal-c2 0.1.2 (not part of this
# repository). Parts (default: batch24 interlock24):
#   batch24   one call of 10 circuits at 2^24: supraseal-c2 0.1.2, ours, ours with page-locked
#             a, b, c; peak RSS of each (ours: held%, beyond-inputs and library peak too)
#   interlock24  single-circuit calls from two workers at 2^24 (the rate a batch should reach)
#   batch27   one call of 10 circuits at 2^27 over one shared witness, page-locked inputs
#   memory27  two workers at 2^27, pageable and page-locked inputs: where the peak host memory goes
#   srs26     create_SRS of a 24 GB 2^26 params file: supraseal-c2's and ours, warm and cold
# Each part's output goes to OUT_DIR/PART.log and to stdout.
set -uo pipefail
pack=${1:?usage: batch-bench.sh PACK_DIR ANCHORS_DIR OUT_DIR [PART ...]}
anchors=${2:?usage: batch-bench.sh PACK_DIR ANCHORS_DIR OUT_DIR [PART ...]}
out=${3:?usage: batch-bench.sh PACK_DIR ANCHORS_DIR OUT_DIR [PART ...]}
shift 3
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(batch24 interlock24)
mkdir -p "$out"
if [ -f "$pack/bin.tar.xz" ]; then
    unpacked=$(mktemp -d)
    tar -C "$unpacked" -xJf "$pack/bin.tar.xz"
    pack=$unpacked
fi
bench=$pack/examples/bench
srs_load=$pack/examples/srs_load
supra=$anchors/supraseal_c2bench
tmp=${BATCH_BENCH_TMP:-/tmp/batch-bench}
mkdir -p "$tmp"

# Runs a command and samples its RSS every 0.2 s: prints `peak_rss_gb=` after it.
with_peak_rss() {
    "$@" &
    local pid=$! peak=0 kb
    while kill -0 "$pid" 2>/dev/null; do
        kb=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
        [ "${kb:-0}" -gt "$peak" ] && peak=$kb
        sleep 0.2
    done
    wait "$pid"
    local rc=$?
    echo "peak_rss_gb=$(awk -v k="$peak" 'BEGIN {printf "%.1f", k / 1e6 * 1.024}') rc=$rc"
    return $rc
}

part_batch24() {
    local params=$tmp/s24.params
    "$supra" gen-srs --log-n 24 --inputs 328 --a-permille 997 --b-permille 254 --out "$params" |
        tail -1
    echo "--- supraseal-c2 0.1.2: one call of 10 circuits, 2^24, 8% of aux values not 0/1"
    with_peak_rss "$supra" prove --srs "$params" --circuits 10 --iters 2 --warmup 1 \
        --bool-permille 920
    rm -f "$params" "$params.meta"
    echo "--- groth16-c2: one call of 10 circuits, 2^24 (pageable a, b, c)"
    "$bench" --partition --log-n 24 --batch 10 --runs 3
    echo "--- groth16-c2: one call of 10 circuits, 2^24, a, b, c page-locked"
    "$bench" --partition --log-n 24 --batch 10 --runs 3 --pinned-inputs
}

part_interlock24() {
    echo "--- groth16-c2: single-circuit calls, two workers, 2^24"
    "$bench" --proofs 16 --jobs 2 --workers 2 --log-n 24 --timeline 0
}

part_batch27() {
    echo "--- groth16-c2: one call of 10 circuits, 2^27, one shared witness, a, b, c page-locked"
    "$bench" --partition --log-n 27 --batch 10 --runs 1 --share-witness --pinned-inputs
}

part_memory27() {
    echo "--- groth16-c2: two workers, 2^27, pageable a, b, c"
    "$bench" --proofs 6 --jobs 2 --workers 2 --log-n 27 --timeline 0
    echo "--- groth16-c2: two workers, 2^27, a, b, c page-locked"
    "$bench" --proofs 6 --jobs 2 --workers 2 --log-n 27 --timeline 0 --pinned-inputs
}

part_srs26() {
    local params=$tmp/s26.params
    "$supra" gen-srs --log-n 26 --inputs 328 --a-permille 997 --b-permille 254 --out "$params" |
        tail -1
    ls -l "$params"
    echo "--- groth16-c2: create_SRS of the 2^26 params file (warm, then cold)"
    "$srs_load" --path "$params" --no-write --runs 3
    "$srs_load" --path "$params" --no-write --runs 1 --cold
    echo "--- groth16-c2: the same with transparent huge pages for the decoded SRS"
    GROTH16_C2_SRS_HUGE_PAGES=1 "$srs_load" --path "$params" --no-write --runs 2
    echo "--- supraseal-c2 0.1.2: SRS::try_new of the same file (then one proof)"
    "$supra" prove --srs "$params" --circuits 1 --iters 1 --warmup 0 --bool-permille 920 2>&1 |
        grep -E "SRS loaded|^prove:" | head -5
    rm -f "$params" "$params.meta"
}

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
echo "cores: $(nproc), memory: $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)"
status=0
for part in "${parts[@]}"; do
    echo "=== $part"
    start=$SECONDS
    "part_$part" 2>&1 | tee "$out/$part.log"
    rc=${PIPESTATUS[0]}
    echo "=== $part: rc=$rc ($((SECONDS - start)) s)"
    [ "$rc" -eq 0 ] || status=1
done
exit $status
