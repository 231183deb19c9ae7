#!/usr/bin/env bash
# scripts/gpu-steps.sh PACK LOG_DIR STEP: one step of a run on the GPU machine (a separate
# machine with the driver, where the pack of scripts/gpu-pack.sh was copied). Each step writes
# its logs under LOG_DIR and prints its summary; the `params` step starts a detached generation
# that `soak` waits for, so run the steps on one machine, keeping params-cache/ between them.
#   params   start generating the soak's params (2^16, 2^18, 2^20, 2^22, 2^24) in params-cache/,
#            detached; returns at once (the fast setup: minutes for 2^24 on 16 cores)
#   ab       the kernel A/B (every gpu_bench_* in the pack against gpu_bench) and sppark_bench
#            (copied into the pack) in the same run, with a side-by-side table per build
#            (AB_ARGS, SPPARK_NTT, SPPARK_MSM: the sizes; SPPARK_MSM="" skips sppark's MSM)
#   tests    every packed test binary (or those in TESTS; `gpu.MODULE` runs one module of the
#            gpu binary), one at a time (some check the device's memory in use); all of them take
#            about 9 minutes (TESTS splits them, e.g. TESTS="gpu.prove" then the rest)
#   sanitize compute-sanitizer over the GPU tests (GPU_SANITIZE_* as scripts/gpu-sanitize.sh)
#   soak     waits for the params, then 1,000 proofs (SOAK_ARGS to change)
#   ncu      Nsight Compute over the NTT/H kernels of one gpu_bench variant (NCU_LOG_N, default
#            27; NCU_VARIANT, default fwd_nn; see scripts/gpu-ncu.sh), a table per launch
#   stream   the streamed SRS under each device-memory size of STREAM_FREE (default
#            "16G 24G"; "all" for no limit): `bench --partition --vram-limit` at STREAM_LOG_N
#            (default 26) one partition per call, a call of STREAM_BATCH (default 10) sharing one
#            witness, `bench --proofs` with one and two workers; then supraseal-c2's bench
#            (supraseal_c2bench copied into the pack) with hold_gpu_memory holding the rest of
#            the device (STREAM_SUPRA=0 skips it; its params file is written once to /tmp).
#            STREAM_HOLD=1 runs ours under hold_gpu_memory too instead of --vram-limit (another
#            process holding the rest, as on a shared card); STREAM_ONLY=c1 runs the one-partition
#            calls only
#   post     the Window PoSt shape (99% of every query in the tail) at POST_LOG_N (default 26;
#            supraseal-c2's params file at 2^27 would not fit the disk): `bench --partition
#            --shape window-post`, then supraseal_c2bench on the same proportions (--inputs 25840
#            --a-permille 758 --b-permille 724 --bool-permille 10; one proof, ~2.5 min)
#   diag     where a streamed proof's time goes (DIAG_LOG_N, default 27; DIAG_FREE, default
#            16G): gpu_bench's kernels on resident data (plain and chunk-accumulated MSM, H,
#            batch additions), then `bench --partition` under the limit with
#            GROTH16_C2_LOG_TIMINGS=2: as planned and with chunks of 2^23 (~5 min at 2^27)
#   seal     filecoin-proofs' four proofs on the CUDA build, when the pack has them
#            (GPU_PACK_EXTRA="target/filecoin-seal-check/release/filecoin-seal-check=filecoin-seal-check";
#            first run: the 2 KiB params, ~5 min)
# With BUILD=<name>, `tests` and `sanitize` run an A/B variant's test binaries, packed as
# examples/<name>_<test> (GPU_PACK_EXTRA="gpu-var/<name>/gpu=<name>_gpu ..."), and the
# default's where the variant has none (say, byte_identity when only the gpu binary was built).
# Times on an H200: `ab` about 5 minutes for 8 builds, `tests` 9 (split in two runs with TESTS
# where a run must stay short), `sanitize` 8-10, `soak` 3.
set -uo pipefail
pack=${1:?usage: gpu-steps.sh PACK LOG_DIR params|ab|tests|sanitize|soak|ncu|stream|post|diag|seal}
out=${2:?usage: gpu-steps.sh PACK LOG_DIR params|ab|tests|sanitize|soak|ncu|stream|post|diag|seal}
step=${3:?usage: gpu-steps.sh PACK LOG_DIR params|ab|tests|sanitize|soak|ncu|stream|post|diag|seal}
here=$(dirname "$0")
bin=$(bash "$here/gpu-unpack.sh" "$pack") || exit 1
mkdir -p "$out" params-cache
# The folder whose tests/ the `tests` and `sanitize` steps run: the pack's, or with BUILD one
# linking the variant's binaries, the default's where it has none.
tests_dir() {
    if [ -z "${BUILD:-}" ]; then
        echo "$bin"
        return
    fi
    local sel t name variant
    sel=$(mktemp -d)
    mkdir -p "$sel/tests"
    for t in "$bin"/tests/*; do
        name=$(basename "$t")
        variant="$bin/examples/${BUILD}_$name"
        if [ -x "$variant" ]; then
            ln -s "$variant" "$sel/tests/$name"
            echo "build $BUILD: tests/$name is the variant's" >&2
        else
            ln -s "$t" "$sel/tests/$name"
        fi
    done
    echo "$sel"
}
case "$step" in
params)
    for sizes in 24 22 16,18,20; do  # the largest first: it takes longest
        log=params-cache/gen-${sizes//,/-}.log
        [ -f "$log" ] && continue
        setsid nohup bash -c "'$bin/examples/soak' --generate-only --sizes $sizes --big 0 \
            --params-dir params-cache >'$log' 2>&1; echo rc=\$? >>'$log'" </dev/null >/dev/null 2>&1 &
    done
    echo "params generation started (logs params-cache/gen-*.log)"
    ;;
ab)
    # AB_ARGS is parsed as shell words, so that `--h ""` (no H rows) stays an empty argument.
    eval "ab_args=(${AB_ARGS:---field --ntt 24,27 --ntt-variants fwd_nn,h --h '""' --msm 24,26 --runs 3 --no-cpu})"
    bash "$here/gpu-ab.sh" "$pack" "$out/ab" "${AB_ROUNDS:-2}" -- "${ab_args[@]}"
    if [ -x "$pack/sppark_bench" ]; then
        "$pack/sppark_bench" ntt --log-n "${SPPARK_NTT:-24,26,27}" --runs 5 >"$out/sppark-ntt.log" 2>&1
        if [ -n "${SPPARK_MSM-24,26}" ]; then
            "$pack/sppark_bench" msm --log-n "${SPPARK_MSM-24,26}" --runs 3 >"$out/sppark-msm.log" 2>&1
        fi
        # One table per build: the baseline's, then each variant's.
        for first in "$out"/ab/gpu_bench*.round1.log; do
            build=$(basename "$first" .round1.log)
            echo "--- side by side: $build"
            python3 "$here/side-by-side.py" --ours "$out/ab/$build".round*.log --sppark "$out"/sppark-*.log
        done
    fi
    ;;
tests)
    # shellcheck disable=SC2086
    bash "$here/gpu-run.sh" "$(tests_dir)" "$out/tests" ${TESTS:-}
    ;;
sanitize)
    bash "$here/gpu-sanitize.sh" "$(tests_dir)" "$out/sanitize" "${SANITIZE_JOBS:-6}"
    ;;
soak)
    while grep -L '^rc=' params-cache/gen-*.log 2>/dev/null | grep -q .; do sleep 5; done
    tail -n 2 params-cache/gen-*.log
    # shellcheck disable=SC2086
    "$bin/examples/soak" ${SOAK_ARGS:---proofs 1000 --workers 2 --sizes 16,18,20,22 --big 24 --big-every 25} \
        --params-dir params-cache 2>&1 | grep -v "^[0-9]* proofs$"
    ;;
ncu)
    bash "$here/gpu-ncu.sh" "$pack" "$out/ncu" "${NCU_LOG_N:-27}" "${NCU_VARIANT:-fwd_nn}"
    ;;
stream)
    k=${STREAM_LOG_N:-26}
    for free in ${STREAM_FREE:-16G 24G}; do
        limit=()
        holder=
        if [ "$free" != all ] && [ "${STREAM_HOLD:-0}" = 1 ]; then
            coproc HOLD { "$bin/examples/hold_gpu_memory" --leave "$free"; }
            read -r line <&"${HOLD[0]}" && echo "$line"
            holder=$HOLD_PID
        elif [ "$free" != all ]; then
            limit=(--vram-limit "$free")
        fi
        echo "=== 2^$k, ${free} of device memory${holder:+ (the rest held by another process)}"
        # With each streamed section's breakdown (op counts and times, compute waiting for
        # uploads) in the log.
        GROTH16_C2_LOG_TIMINGS=2 "$bin/examples/bench" --partition --log-n "$k" --runs 3 \
            "${limit[@]}" 2>&1 | tee "$out/stream-$k-$free-c1.log" | sed -n '/^log_n/,$p'
        if [ "${STREAM_ONLY:-}" != c1 ]; then
            "$bin/examples/bench" --partition --log-n "$k" --runs 2 --batch "${STREAM_BATCH:-10}" \
                --share-witness "${limit[@]}" 2>&1 | tee "$out/stream-$k-$free-c10.log" | sed -n '/^log_n/,$p'
            "$bin/examples/bench" --proofs 6 --jobs 2 --workers 1,2 --log-n "$k" --timeline 0 \
                "${limit[@]}" 2>&1 | tee "$out/stream-$k-$free-gw.log" | tail -n 12
        fi
        if [ -n "$holder" ]; then
            kill "$holder"
            wait "$holder" 2>/dev/null
        fi
    done
    if [ "${STREAM_SUPRA:-1}" = 1 ] && [ -x "$pack/supraseal_c2bench" ]; then
        params=/tmp/supra-$k.params
        [ -f "$params" ] || "$pack/supraseal_c2bench" gen-srs --log-n "$k" --inputs 328 \
            --a-permille 997 --b-permille 254 --out "$params" >"$out/supra-gen.log" 2>&1
        for free in ${STREAM_FREE:-16G 24G}; do
            holder=
            if [ "$free" != all ]; then
                # Holds the rest of the device while supraseal-c2 proves, as a smaller card would.
                coproc HOLD { "$bin/examples/hold_gpu_memory" --leave "$free"; }
                read -r line <&"${HOLD[0]}" && echo "$line"
                holder=$HOLD_PID
            fi
            echo "=== supraseal-c2, 2^$k, ${free} of device memory"
            "$pack/supraseal_c2bench" prove --srs "$params" --circuits 1 --iters 3 --warmup 1 \
                --bool-permille 920 2>&1 | tee "$out/supra-$k-$free.log" | tail -n 6
            if [ -n "$holder" ]; then
                kill "$holder"
                wait "$holder" 2>/dev/null
            fi
        done
    fi
    ;;
post)
    k=${POST_LOG_N:-26}
    echo "=== groth16-c2, Window PoSt shape, 2^$k"
    "$bin/examples/bench" --partition --shape window-post --log-n "$k" --runs 3 2>&1 |
        tee "$out/post-$k.log" | sed -n '/^log_n/,$p'
    if [ -x "$pack/supraseal_c2bench" ]; then
        params=/tmp/supra-post-$k.params
        [ -f "$params" ] || "$pack/supraseal_c2bench" gen-srs --log-n "$k" --inputs 25840 \
            --a-permille 758 --b-permille 724 --out "$params" >"$out/supra-post-gen.log" 2>&1
        # One proof: with 99% of B in the tail its G2 tail runs on the CPU, about 2 minutes
        # per 2^26 proof on 16 cores.
        echo "=== supraseal-c2, Window PoSt shape, 2^$k"
        "$pack/supraseal_c2bench" prove --srs "$params" --circuits 1 --iters 1 --warmup 0 \
            --bool-permille 10 2>&1 | tee "$out/supra-post-$k.log" | tail -n 6
    fi
    ;;
diag)
    # Where a streamed proof's time goes, at DIAG_LOG_N (default 27) under DIAG_FREE (default
    # 16G): the kernels alone on resident data (the plain MSM, the MSM accumulated over chunks of
    # 2^23 and 2^24 as the streamed H MSM runs it, at 16, 18 and 20 bits; the H step; batch
    # additions of chunk sizes), then the streamed partition with each section's op breakdown,
    # at the plan's chunk length and at 2^23.
    k=${DIAG_LOG_N:-27}
    free=${DIAG_FREE:-16G}
    echo "=== kernels on resident data, 2^$k"
    "$bin/examples/gpu_bench" --msm "$k" --msm-window 0,16,18,20 --msm-chunks 23,24 --ntt "" --h "$k" \
        --batch 21,22,24,$k --runs 3 --no-cpu 2>&1 | tee "$out/diag-kernels.log" | grep -v '^RESULT'
    for run in plan chunk-2e23; do
        echo "=== 2^$k under $free: $run"
        settings=(GROTH16_C2_LOG_TIMINGS=2)
        [ "$run" = chunk-2e23 ] && settings+=(GROTH16_C2_STREAM_CHUNK=8388608)
        env "${settings[@]}" "$bin/examples/bench" --partition --log-n "$k" --runs 3 \
            --vram-limit "$free" 2>&1 | tee "$out/diag-$k-$free-$run.log" |
            grep -E 'streamed section|GiB:|_ms |^ +[0-9]+ +cuda'
    done
    ;;
seal)
    if [ -x "$bin/examples/filecoin-seal-check" ]; then
        echo "=== filecoin-proofs 19.1: the four proofs on the CUDA build"
        GROTH16_C2_FIL_PARAMS=/tmp/filecoin-params GROTH16_C2_SEAL_EXPECT_BACKEND=cuda \
            "$bin/examples/filecoin-seal-check" 2>&1 | tee "$out/filecoin-seal.log" |
            grep -v '^groth16-c2 shape'
    else
        echo "seal: the pack has no filecoin-seal-check (see GPU_PACK_EXTRA above)"
        exit 1
    fi
    ;;
*)
    echo "unknown step $step" >&2
    exit 2
    ;;
esac
