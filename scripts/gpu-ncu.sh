#!/usr/bin/env bash
# gpu-ncu.sh PACK_DIR OUT_DIR [LOG_N] [VARIANT]: Nsight Compute over the NTT and H kernels of
# one gpu_bench NTT variant (default: fwd_nn at 2^27; `h` for the whole H step), or over the
# kernels of one G1 MSM (VARIANT `msm`), on the GPU machine. Writes ncu's full report to OUT_DIR/ncu-LOG_N-VARIANT.txt and prints one line per
# kernel launch: duration, SM, memory and DRAM throughput (% of peak), issue slots busy,
# achieved occupancy, registers, cycles per issued instruction, the busiest pipe and ncu's
# stall rule. It
# tells a pass bound by its products (issue slots busy, the FMA pipe) from one bound by memory
# or by latency (stalls). NCU_LAUNCHES (default 12) caps the launches profiled; NCU_BENCH names
# another gpu_bench binary (a variant build) to profile, a path or a name in the pack's
# examples/ (gpu_bench_ws2).
set -uo pipefail
pack=${1:?usage: gpu-ncu.sh PACK_DIR OUT_DIR [LOG_N] [VARIANT]}
out=${2:?usage: gpu-ncu.sh PACK_DIR OUT_DIR [LOG_N] [VARIANT]}
lg=${3:-27}
variant=${4:-fwd_nn}
bin=$(bash "$(dirname "$0")/gpu-unpack.sh" "$pack") || exit 1
mkdir -p "$out"
bench=${NCU_BENCH:-gpu_bench}
[[ "$bench" == */* ]] || bench="$bin/examples/$bench"
report="$out/ncu-$lg-$variant.txt"
if [ "$variant" = msm ]; then
    kernels='count_kernel|scan|chunk_|scatter_kernel|task_kernel|slice_kernel|bucket_|head_round|segment_kernel|reduce_kernel|combine_kernel|ba_'
    bench_args=(--msm "$lg" --ntt "" --h "")
else
    kernels='ntt_pass_kernel|scale_powers|h_pointwise|bit_reverse'
    bench_args=(--ntt "$lg" --ntt-variants "$variant" --h "" --msm "")
fi
ncu --kernel-name regex:"$kernels" \
    --launch-count "${NCU_LAUNCHES:-12}" \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section Occupancy \
    --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis \
    "$bench" "${bench_args[@]}" --runs 1 --no-cpu \
    >"$report" 2>&1
rc=$?
python3 - "$report" <<'PY'
import re, sys
# ncu's text report: a kernel header line, then "Metric Name  Metric Unit  Metric Value" rows.
want = {
    "Duration": "ms", "Compute (SM) Throughput": "sm%", "Memory Throughput": "mem%",
    "DRAM Throughput": "dram%", "Issue Slots Busy": "issue%", "Achieved Occupancy": "occ%",
    "Registers Per Thread": "regs", "Warp Cycles Per Issued Instruction": "cyc/issue",
}
kernels, cur = [], None
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r"\s\s(\S.*?\(.*?\))\s+\(\d+, \d+, \d+\)x\(\d+, \d+, \d+\)", line)
    if m:
        cur = {"name": re.sub(r"^void ", "", m.group(1).split("(")[0]).split("::")[-1]}
        kernels.append(cur)
        continue
    if cur is None:
        continue
    p = re.split(r"\s{2,}", line.strip())
    if len(p) >= 3 and p[0] in want:
        value = p[-1].replace(",", "")
        scale = {"usecond": 1e-3, "us": 1e-3, "msecond": 1.0, "ms": 1.0, "second": 1e3, "s": 1e3,
                 "nsecond": 1e-6, "ns": 1e-6}.get(p[1], 1.0)
        try:
            cur[want[p[0]]] = float(value) * scale
        except ValueError:
            pass
    elif "highest-utilized pipeline" in line and "pipe" not in cur:
        # ComputeWorkloadAnalysis: the busiest pipe (ALU, FMA, FMAHeavy, ...) and its share of
        # its peak, counting each instruction's issue cost on it.
        m = re.search(r"(\S+) is the highest-utilized pipeline \(([\d.]+)%\)", line)
        if m:
            cur["pipe"] = f"{m.group(1)} {m.group(2)}%"
    elif "stall" in line and "stall" not in cur:
        # The first rule sentence that names a stall reason (WarpStateStats).
        m = re.search(r"(stalled [^.]*\.|spends [^.]*stalled[^.]*\.)", line)
        if m:
            cur["stall"] = m.group(1)[:110]
cols = ["ms", "sm%", "mem%", "dram%", "issue%", "occ%", "regs", "cyc/issue"]
print("| kernel | " + " | ".join(cols) + " | busiest pipe | stall (ncu's rule) |")
print("|---|" + "---|" * (len(cols) + 2))
for k in kernels:
    cells = [f"{k[c]:.2f}" if c in k else "-" for c in cols]
    print(f"| {k['name']} | " + " | ".join(cells) + " | " + k.get("pipe", "-") + " | "
          + k.get("stall", "-") + " |")
# Time per kernel over the launches profiled: where an MSM's milliseconds go.
totals = {}
for k in kernels:
    n, ms = totals.get(k["name"], (0, 0.0))
    totals[k["name"]] = (n + 1, ms + k.get("ms", 0.0))
print("\n| kernel | launches | total ms |\n|---|---|---|")
for name, (n, ms) in sorted(totals.items(), key=lambda x: -x[1][1]):
    print(f"| {name} | {n} | {ms:.2f} |")
PY
exit $rc
