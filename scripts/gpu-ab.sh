#!/usr/bin/env bash
# gpu-ab.sh PACK_DIR LOG_DIR ROUNDS -- GPU_BENCH_ARGS...: runs every gpu_bench build in a pack
# (examples/gpu_bench, the build under test's baseline, and examples/gpu_bench_<name> added
# with GPU_PACK_EXTRA="path=gpu_bench_<name>"), ROUNDS times each, interleaved (A B C A B C ...)
# so drift of clocks or temperature hits every build alike, with the same arguments. Then prints
# one table of the medians of their `RESULT` lines, each build's ratio to the baseline (a
# time below 1.00 is faster; a rate above 1.00 is faster), after every round. Logs in LOG_DIR.
# GPU_AB_ONLY="eo sqr" limits the run to the baseline and gpu_bench_eo, gpu_bench_sqr.
set -uo pipefail
pack=${1:?usage: gpu-ab.sh PACK_DIR LOG_DIR ROUNDS -- ARGS...}
logs=${2:?usage: gpu-ab.sh PACK_DIR LOG_DIR ROUNDS -- ARGS...}
rounds=${3:?usage: gpu-ab.sh PACK_DIR LOG_DIR ROUNDS -- ARGS...}
shift 3
[ "${1:-}" = "--" ] && shift
bin=$(bash "$(dirname "$0")/gpu-unpack.sh" "$pack") || exit 1
mkdir -p "$logs"
builds=()
for b in "$bin"/examples/gpu_bench "$bin"/examples/gpu_bench_*; do
    [ -x "$b" ] || continue
    suffix=${b##*/gpu_bench}
    suffix=${suffix#_}
    if [ -n "${GPU_AB_ONLY:-}" ] && [ -n "$suffix" ] && ! [[ " $GPU_AB_ONLY " == *" $suffix "* ]]; then
        continue
    fi
    builds+=("$b")
done
[ ${#builds[@]} -gt 0 ] || { echo "gpu-ab: no gpu_bench in $pack" >&2; exit 1; }
table() {
    python3 - "$logs" "${builds[@]}" <<'PY'
import os, statistics, sys
logs, builds = sys.argv[1], [os.path.basename(b) for b in sys.argv[2:]]
values = {}  # (what, size, unit) -> build -> [values]
for b in builds:
    for f in sorted(os.listdir(logs)):
        if not f.startswith(b + ".round"):
            continue
        for line in open(os.path.join(logs, f)):
            p = line.split()
            if len(p) == 5 and p[0] == "RESULT":
                values.setdefault((p[1], p[2], p[4]), {}).setdefault(b, []).append(float(p[3]))
head = ["what", "size", "unit"] + builds + [f"{b}/{builds[0]}" for b in builds[1:]]
print("| " + " | ".join(head) + " |")
print("|" + "---|" * len(head))
for key in sorted(values):
    row = values[key]
    med = {b: statistics.median(row[b]) for b in builds if b in row}
    base = med.get(builds[0])
    cells = [f"{med[b]:.2f}" if b in med else "-" for b in builds]
    ratios = [f"{med[b] / base:.3f}" if b in med and base else "-" for b in builds[1:]]
    print("| " + " | ".join(list(key) + cells + ratios) + " |")
PY
}
# The table after every round, so a run cut short by a time limit still shows the rounds
# that finished.
failed=0
for r in $(seq 1 "$rounds"); do
    for b in "${builds[@]}"; do
        name=$(basename "$b")
        if ! "$b" "$@" >"$logs/$name.round$r.log" 2>&1; then
            echo "gpu-ab: $name round $r failed:" >&2
            tail -5 "$logs/$name.round$r.log" >&2
            failed=1
        fi
    done
    echo "gpu-ab: after round $r of $rounds"
    table
done
exit $failed
