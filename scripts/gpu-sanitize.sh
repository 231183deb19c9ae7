#!/usr/bin/env bash
# gpu-sanitize.sh PACK_DIR LOG_DIR [JOBS]: compute-sanitizer's memcheck, racecheck and
# synccheck over the packed GPU tests (a pack from scripts/gpu-pack.sh), JOBS runs at once on
# the one GPU (default 8), each within GPU_SANITIZE_TIMEOUT seconds (default 360); the tools in
# GPU_SANITIZE_TOOLS (default all three), the tests in GPU_SANITIZE_TESTS, or the runs in
# GPU_SANITIZE_RUNS ("gpu.h:racecheck srs_read:memcheck ...", started in that order). A test is
# a test binary or one module of the gpu binary: `gpu.MODULE` runs `gpu gpu::MODULE::` (libtest's
# substring filter). Prints one line per test and tool:
# clean, the sanitizer's error count, a failed test, or a timeout; one log per run in LOG_DIR.
# Exits non-zero unless every run is clean. The tests named in GPU_SANITIZE_SPLIT (default
# gpu.msm) run one case per run (`test:case` in the summary).
#
# Under racecheck (the slowest tool) the 2^24, 2^26 and 2^27 NTT cases, the folded coset transforms
# above 2^16, H above 2^14 and the 2^16 and 2^20 proofs are skipped, under synccheck the folded
# coset transforms above 2^20, under memcheck the 2^26 and 2^27 NTTs and the 2^20 proofs (each over 300 s
# with 6-8 runs at once on the H200), under both the MSMs above 2^16 + 3 points (under
# racecheck, gpu.msm's g1_msm_forced_windows above 1,000); the smaller cases run the same kernels.
# Tests whose binary is missing from the pack are left out.
# Other programs on the GPU at the same time make fault_injection fail (it checks the device's
# memory in use), so give the script the GPU to itself.
set -uo pipefail
pack=${1:?usage: gpu-sanitize.sh PACK_DIR LOG_DIR [JOBS]}
logs=${2:?usage: gpu-sanitize.sh PACK_DIR LOG_DIR [JOBS]}
jobs=${3:-8}
limit=${GPU_SANITIZE_TIMEOUT:-360}
bin=$(bash "$(dirname "$0")/gpu-unpack.sh" "$pack") || exit 1
mkdir -p "$logs"

# Tests whose cases run one per sanitizer run (`--exact NAME`), JOBS at once: gpu.msm's cases
# together take ~40 minutes under racecheck even at 2^16 + 3 points.
split=" ${GPU_SANITIZE_SPLIT-gpu.msm} "

# test | tool | test-binary arguments | case (empty: the whole binary)
runs=()
tools=${GPU_SANITIZE_TOOLS:-memcheck racecheck synccheck}
tests=${GPU_SANITIZE_TESTS:-gpu.field gpu.curve gpu.ntt gpu.h gpu.msm gpu.prove byte_identity \
concurrency pipeline fault_injection srs_read}
for tool in $tools; do
    for t in $tests; do
        [ -x "$bin/tests/${t%%.*}" ] || continue
        args=""
        case "$t" in
        pipeline) args="gpu_" ;;
        gpu.prove) args="--skip two_gpus" ;;
        esac
        case "$tool|$t" in
        racecheck\|gpu.ntt) args="GROTH16_C2_GPU_NTT_MAX_LOG_N=16 --skip up_to_2_pow_24 --skip 2_pow_26 --skip 2_pow_27" ;;
        synccheck\|gpu.ntt) args="GROTH16_C2_GPU_NTT_MAX_LOG_N=20" ;;
        racecheck\|gpu.prove) args="$args --skip 2_16 --skip 2_20 --skip 2_24" ;;
        racecheck\|gpu.h) args="GROTH16_C2_GPU_H_MAX_LOG_N=14" ;;
        memcheck\|gpu.ntt) args="--skip 2_pow_26 --skip 2_pow_27" ;;
        # racecheck's own host memory outgrows 128 GiB on the 2^20-point MSMs (H200 machine);
        # memcheck takes 5-7 minutes per 2^20 test. 2^16 + 3 points run the same
        # kernels, the binned scatter through the SlicesTestBinned strategy.
        memcheck\|gpu.msm) args="GROTH16_C2_GPU_MSM_MAX_N=65539" ;;
        racecheck\|gpu.msm) args="GROTH16_C2_GPU_MSM_MAX_N=65539" ;;
        # That test makes a real allocation fail on purpose (memcheck counts the API error).
        memcheck\|gpu.prove) args="$args --skip 2_20 --skip 2_24 --skip proof_after_failed_device_allocation" ;;
        esac
        if [[ "$split" != *" $t "* ]]; then
            runs+=("$t|$tool|$args|")
            continue
        fi
        # One run per case the binary lists (of the module, for gpu.MODULE; its name without
        # the module's prefix), less those its `--skip PATTERN` arguments name (libtest's
        # substring match).
        filters=()
        for a in $args; do [[ "$a" == *=* ]] || filters+=("$a"); done
        [[ "$t" == *.* ]] && filters+=("gpu::${t#*.}::")
        for c in $("$bin/tests/${t%%.*}" --list "${filters[@]}" 2>/dev/null | sed -n 's/: test$//p'); do
            [[ "$t" == *.* ]] && { [[ "$c" == "gpu::${t#*.}::"* ]] || continue; c=${c#"gpu::${t#*.}::"}; }
            case_args=$args
            # g1_msm_forced_windows (60 MSMs at five window widths) runs past 360 s alone under
            # racecheck at 2^16 points; at 1,000 (its smaller size) it takes 107 s (H200).
            [ "$tool|$t|$c" = "racecheck|gpu.msm|g1_msm_forced_windows" ] &&
                case_args="GROTH16_C2_GPU_MSM_MAX_N=1000"
            runs+=("$t|$tool|$case_args|$c")
        done
    done
done
if [ -n "${GPU_SANITIZE_RUNS:-}" ]; then
    all=("${runs[@]}")
    runs=()
    for want in $GPU_SANITIZE_RUNS; do
        for r in "${all[@]}"; do
            [[ "$r" == "${want%%:*}|${want#*:}|"* ]] && runs+=("$r")
        done
    done
fi

one() {
    IFS='|' read -r t tool args case <<<"$1"
    log="$logs/sanitize-$t${case:+-$case}-$tool.log"
    start=$SECONDS
    # shellcheck disable=SC2086
    local envs=() rest=()
    for a in $args; do
        if [[ "$a" == *=* ]]; then envs+=("$a"); else rest+=("$a"); fi
    done
    # gpu.MODULE: the gpu binary, that module's tests (a case: its full name).
    local exe=${t%%.*} module=
    [[ "$t" == *.* ]] && module="gpu::${t#*.}::"
    if [ -n "$case" ]; then
        rest+=(--exact "$module$case")
    elif [ -n "$module" ]; then
        rest+=("$module")
    fi
    timeout "$limit" env "${envs[@]}" compute-sanitizer --tool "$tool" --error-exitcode 99 \
        "$bin/tests/$exe" --test-threads 1 "${rest[@]}" >"$log" 2>&1
    rc=$?
    secs=$((SECONDS - start))
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1)
    result=$(grep -E "^test result:" "$log" | tail -1)
    case $rc in
    0) verdict="clean" ;;
    99) verdict="ERRORS" ;;
    124) verdict="TIMEOUT after ${limit} s" ;;
    *) verdict="FAILED (rc $rc)" ;;
    esac
    printf '%-16s %-9s %-22s %4d s | %s | %s\n' "$t${case:+:$case}" "$tool" "$verdict" "$secs" \
        "${summary:-no summary}" "${result:-no result line}"
}
export -f one
export logs limit bin
# Lines go to the summary as runs finish (a run cut short still leaves the finished ones).
# fault_injection compares the device's memory in use before and after, so it runs alone,
# after the others.
: >"$logs/sanitize-summary.txt"
printf '%s\n' "${runs[@]}" | grep -v '^fault_injection|' |
    xargs -P "$jobs" -I{} bash -c 'one "$@"' _ {} | tee -a "$logs/sanitize-summary.txt"
printf '%s\n' "${runs[@]}" | grep '^fault_injection|' |
    xargs -P 1 -I{} bash -c 'one "$@"' _ {} | tee -a "$logs/sanitize-summary.txt"
sort -o "$logs/sanitize-summary.txt" "$logs/sanitize-summary.txt"
! grep -qv " clean " "$logs/sanitize-summary.txt"
