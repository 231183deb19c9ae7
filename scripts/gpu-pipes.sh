#!/usr/bin/env bash
# gpu-pipes.sh PACK_DIR OUT_DIR LAUNCHES KERNEL_REGEX GPU_BENCH_ARGS...: how busy each pipe is
# (Nsight Compute's sm__pipe_*_cycles_active: FMA-heavy runs every integer multiply, FP64,
# ALU), with the issue rate, instructions and warps per SM, for the first LAUNCHES launches of
# the kernels matching KERNEL_REGEX in one gpu_bench run, on the GPU machine. E.g.
#   bash gpu-pack/gpu-pipes.sh gpu-pack LOGS 1 slice_kernel --msm 22 --msm-strategy slices \
#       --ntt "" --h "" --runs 1 --no-cpu
# NCU_BENCH names another gpu_bench binary. Writes ncu's CSV to OUT_DIR/pipes.csv.
set -uo pipefail
pack=${1:?usage: gpu-pipes.sh PACK_DIR OUT_DIR LAUNCHES KERNEL_REGEX ARGS...}
out=${2:?usage}
n=${3:?usage}
k=${4:?usage}
shift 4
bin=$(bash "$(dirname "$0")/gpu-unpack.sh" "$pack") || exit 1
mkdir -p "$out"
metrics='regex:^sm__pipe_.*_cycles_active\.avg\.pct_of_peak_sustained_active$'
metrics+=',smsp__issue_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum'
metrics+=',smsp__inst_executed.sum,sm__warps_active.avg.per_cycle_active'
ncu --kernel-name regex:"$k" --launch-count "$n" --metrics "$metrics" --csv \
    "${NCU_BENCH:-$bin/examples/gpu_bench}" "$@" >"$out/pipes.csv" 2>"$out/pipes.err"
rc=$?
python3 - "$out/pipes.csv" <<'PY'
import collections, csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
if not rows:
    sys.exit("gpu-pipes: ncu wrote no metrics (see pipes.err)")
col = {h: i for i, h in enumerate(rows[0])}
launches = collections.OrderedDict()
for r in rows[1:]:
    key = (r[col["ID"]], r[col["Kernel Name"]][:48])
    launches.setdefault(key, {})[r[col["Metric Name"]]] = r[col["Metric Value"]]
for (launch, name), m in launches.items():
    shown = {k.replace(".avg.pct_of_peak_sustained_active", " %"): v
             for k, v in m.items() if v not in ("0", "0.00")}
    print(launch, name, shown)
PY
exit $rc
