#!/usr/bin/env bash
# scripts/curio-check.sh: Curio's proving engine (`extern/cuzk` of filecoin-project/curio, with
# its bellperson and bellpepper-core forks) built against groth16-c2 and proving through its own
# gRPC API. Its `supraseal-c2` patch entry is pointed at compat/supraseal-c2-cuzk; nothing else
# in the engine is changed.
#
#   bash scripts/curio-check.sh [--tests-only] [--inputs DIR] [SOURCE]
#
# SOURCE is Curio's `extern/` folder, a folder holding it (a Curio checkout), or a tarball of
# either; default: CURIO_SOURCE, else the newest curio-extern-*.tar.* snapshot in the folder
# CURIO_SNAPSHOTS (CI sets it to where it keeps a pinned one). Without one the script says SKIP
# and exits 0.
#
# Steps: unpack to a temporary folder; patch; build cuzk-daemon and cuzk-bench (release, the
# installed stable toolchain instead of the engine's pinned one); run the engine's own tests;
# start the daemon on 127.0.0.1 with its monolithic (non-pipelined) path and the parameter cache
# of scripts/filecoin-seal.sh; prove through `cuzk-bench single` a 2 KiB PoRep Commit-2 from a
# Commit-1 output that compat/filecoin-seal-check wrote, a SnapDeals update, both partitions of a
# Window PoSt and a Winning PoSt; check each proof with filecoin-proofs' verifiers
# (`filecoin-seal-check --curio-verify`), and that groth16-c2 made them (the daemon's log).
#
#   --tests-only   build and run the engine's tests; no proofs
#   --inputs DIR   the engine's inputs written by `scripts/filecoin-seal.sh --curio-inputs DIR`
#                  (default: that is run here, into the temporary folder)
#
# What it does not cover, and why: the engine's pipelined path (its default, `[pipeline]
# enabled = true`), which calls `start_groth16_proof`/`finish_groth16_proof` directly and only
# takes 32 GiB sectors (its SRS manager knows only the 32/64 GiB parameter files); the compat
# crate's own tests run that API. Batches across sectors (`max_batch_size` > 1) also go through
# the pipelined path only.
#
# Environment: CURIO_SOURCE and CURIO_SNAPSHOTS (above); CURIO_CHECK_TARGET, the engine's cargo
# target folder (default target/curio-check, kept between runs); GROTH16_C2_FIL_PARAMS (the
# parameter cache, as in filecoin-seal.sh). Needs what filecoin-seal.sh needs, plus protoc (installed with
# apt-get when missing and possible).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
start=$(date +%s)
say() { echo "curio-check.sh: $*"; }

tests_only=0
inputs=""
source_arg=""
while [ $# -gt 0 ]; do
    case "$1" in
        --tests-only) tests_only=1 ;;
        --inputs) inputs=${2:?--inputs needs a folder}; shift ;;
        -*) echo "usage: $0 [--tests-only] [--inputs DIR] [SOURCE]" >&2; exit 2 ;;
        *) source_arg=$1 ;;
    esac
    shift
done

source_path=${source_arg:-${CURIO_SOURCE:-}}
snapshots=${CURIO_SNAPSHOTS:-}
if [ -z "$source_path" ] && [ -n "$snapshots" ]; then
    # The newest snapshot, if there is one.
    source_path=$(ls -1 "$snapshots"/curio-extern-*.tar.* 2>/dev/null | tail -n 1 || true)
fi
if [ -z "$source_path" ] || [ ! -e "$source_path" ]; then
    say "SKIP: no Curio source (give a folder or tarball, or set CURIO_SOURCE)"
    exit 0
fi
say "Curio source: $source_path"

work=$(mktemp -d "${TMPDIR:-/tmp}/curio-check.XXXXXX")
daemon_pid=""
cleanup() {
    if [ -n "$daemon_pid" ]; then kill "$daemon_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

# Unpack or copy, then find extern/cuzk in whatever layout the source has.
if [ -d "$source_path" ]; then
    cp -r "$source_path" "$work/src"
else
    mkdir "$work/src"
    tar -xf "$source_path" -C "$work/src"
fi
cuzk=$(find "$work/src" -maxdepth 3 -type d -name cuzk -path '*extern/cuzk' | head -n 1)
if [ -z "$cuzk" ] || [ ! -f "$cuzk/Cargo.toml" ]; then
    echo "curio-check.sh: no extern/cuzk with a Cargo.toml in $source_path" >&2
    exit 1
fi

# The one change a Curio build makes to use groth16-c2: the patch entry.
compat=$root/compat/supraseal-c2-cuzk
grep -q '^supraseal-c2 = { path = "../supraseal-c2" }' "$cuzk/Cargo.toml" || {
    echo "curio-check.sh: $cuzk/Cargo.toml has no supraseal-c2 patch entry to replace" >&2
    exit 1
}
sed -i "s|^supraseal-c2 = { path = \"../supraseal-c2\" }|supraseal-c2 = { path = \"$compat\" }|" \
    "$cuzk/Cargo.toml"
# The engine pins a toolchain (Rust 1.86) rustup may not be able to fetch; the installed stable
# one builds it after one fix: from Rust 1.89 std's own `File::try_lock_shared` (error type
# `TryLockError`) shadows fs2's, which the bellperson fork's priority lock calls; bellperson 0.27
# on crates.io matches on `TryLockError::WouldBlock` instead, and so does this.
rm -f "$cuzk/rust-toolchain.toml" "$cuzk/rust-toolchain"
export RUSTUP_TOOLCHAIN=stable
locks=$(dirname "$cuzk")/bellperson/src/gpu/locks.rs
old='err.raw_os_error() == fs2::lock_contended_error().raw_os_error()'
if [ -f "$locks" ] && grep -qF "$old" "$locks"; then
    python3 - "$locks" "$old" 'matches!(err, std::fs::TryLockError::WouldBlock)' <<'PY'
import sys
path, old, new = sys.argv[1:]
text = open(path).read()
open(path, "w").write(text.replace(old, new))
PY
    say "bellperson fork: its priority lock check adapted to std's TryLockError (Rust >= 1.89)"
fi

# cuzk-proto's build script runs protoc (tonic-build).
if ! command -v protoc >/dev/null; then
    if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
        say "installing protoc (protobuf-compiler)"
        apt-get install -y -qq protobuf-compiler >/dev/null 2>&1 ||
            { apt-get update -qq && apt-get install -y -qq protobuf-compiler >/dev/null; }
    else
        echo "curio-check.sh: protoc is missing (Debian: apt-get install protobuf-compiler)" >&2
        exit 1
    fi
fi

# shellcheck source=scripts/filecoin-host-env.sh
source scripts/filecoin-host-env.sh

target=${CURIO_CHECK_TARGET:-$root/target/curio-check}
# Thin LTO (the engine's release profile) costs minutes of linking on a small machine and
# changes nothing this check looks at.
export CARGO_PROFILE_RELEASE_LTO=false
build_start=$(date +%s)
# Not --locked: the patch adds groth16-c2's dependencies to the engine's lockfile.
(cd "$cuzk" && cargo build --release --target-dir "$target" -p cuzk-daemon -p cuzk-bench)
build_s=$(($(date +%s) - build_start))
say "built cuzk-daemon and cuzk-bench in ${build_s} s"
# The patch must have taken: cargo ignores a patch whose version does not match, silently.
if ! (cd "$cuzk" && cargo tree --offline -i supraseal-c2 --depth 0) | grep -qF "($compat)"; then
    echo "curio-check.sh: the engine did not take compat/supraseal-c2-cuzk as its supraseal-c2" >&2
    exit 1
fi

tests_start=$(date +%s)
(cd "$cuzk" && cargo test --release --target-dir "$target" --workspace --features cuzk-bench/gen-vanilla)
tests_s=$(($(date +%s) - tests_start))
say "the engine's own tests passed in ${tests_s} s"
if [ "$tests_only" = 1 ]; then
    say "build ${build_s} s, tests ${tests_s} s (--tests-only: no proofs)"
    exit 0
fi

# The inputs: the same proofs filecoin-seal-check made, in the forms Curio's Go side sends.
if [ -z "$inputs" ]; then
    inputs=$work/inputs
    bash scripts/filecoin-seal.sh --curio-inputs "$inputs"
fi
inputs=$(cd "$inputs" && pwd)
[ -f "$inputs/case.json" ] || { echo "curio-check.sh: no case.json in $inputs" >&2; exit 1; }
rm -f "$inputs"/*.proof
# shellcheck disable=SC1091
source "$inputs/args.sh"
seal_check=$root/target/filecoin-seal-check/release/filecoin-seal-check
[ -x "$seal_check" ] || bash scripts/filecoin-seal.sh --build-only >/dev/null

params=${FIL_PROOFS_PARAMETER_CACHE:-${GROTH16_C2_FIL_PARAMS:-$HOME/.cache/groth16-c2/filecoin-params}}
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat > "$work/cuzk.toml" <<TOML
[daemon]
listen = "127.0.0.1:$port"

[srs]
param_cache = "$params"

[gpus]
devices = [0]
# 0: the daemon leaves CUZK_GPU_THREADS alone (groth16-c2 then uses every core).
gpu_threads = 0

# The monolithic path: the pipelined one takes 32 GiB sectors only.
[pipeline]
enabled = false
TOML
bin=$target/release
log=$work/daemon.log
# Each circuit's shape, as groth16-c2 sees it, in the daemon's log.
GROTH16_C2_LOG_SHAPES=1 "$bin/cuzk-daemon" --config "$work/cuzk.toml" --log-level info >"$log" 2>&1 &
daemon_pid=$!
addr=http://127.0.0.1:$port
up=0
for _ in $(seq 1 120); do
    if "$bin/cuzk-bench" --addr "$addr" --log-level warn status >/dev/null 2>&1; then
        up=1
        break
    fi
    kill -0 "$daemon_pid" 2>/dev/null || break
    sleep 0.5
done
if [ "$up" = 0 ]; then
    echo "curio-check.sh: the daemon did not answer on $addr within 60 s; its log:" >&2
    cat "$log" >&2
    exit 1
fi
say "daemon up on $addr (pid $daemon_pid)"

# One proof through the gRPC API; saves its hex to $inputs/<name>.proof. cuzk-bench exits 0 on a
# failed proof, so its status line is what counts.
prove() {
    local name=$1
    shift
    local out t0
    t0=$(date +%s%N)
    out=$("$bin/cuzk-bench" --addr "$addr" --log-level warn single --miner-id "$MINER_ID" "$@" 2>&1) || {
        echo "$out" >&2
        echo "curio-check.sh: cuzk-bench failed for $name" >&2
        exit 1
    }
    if ! grep -q '^status: *COMPLETED' <<<"$out"; then
        echo "$out" >&2
        echo "curio-check.sh: the engine did not complete the $name proof; its log:" >&2
        tail -n 40 "$log" >&2
        exit 1
    fi
    sed -n 's/^proof: .*(hex: \([0-9a-f]*\)).*/\1/p' <<<"$out" >"$inputs/$name.proof"
    printf '  %-10s %6d ms  %s\n' "$name" $((($(date +%s%N) - t0) / 1000000)) \
        "$(grep '^timings:' <<<"$out" | sed 's/^timings: *//')"
}

say "proving through cuzk-bench single:"
prove porep -t porep --c1 "$inputs/c1.json" --sector-num "$POREP_SECTOR"
prove snap -t snap --vanilla "$inputs/snap.json" --registered-proof "$SNAP_REGISTERED_PROOF" \
    --comm-r-old "$SNAP_COMM_R_OLD" --comm-r-new "$SNAP_COMM_R_NEW" --comm-d-new "$SNAP_COMM_D_NEW"
for k in $(seq 0 $((WINDOW_PARTITIONS - 1))); do
    prove "window-$k" -t wpost --vanilla "$inputs/window-$k.json" --partition "$k" \
        --registered-proof "$WINDOW_REGISTERED_PROOF" --randomness "$WINDOW_RANDOMNESS"
done
prove winning -t winning --vanilla "$inputs/winning.json" \
    --registered-proof "$WINNING_REGISTERED_PROOF" --randomness "$WINNING_RANDOMNESS"

# groth16-c2 announces itself once per process, and logs each circuit's shape.
if ! grep -q '^groth16-c2 .*: proving on' "$log"; then
    echo "curio-check.sh: the daemon's log does not show groth16-c2 proving:" >&2
    cat "$log" >&2
    exit 1
fi
grep '^groth16-c2 ' "$log" | sed 's/^/  daemon: /'

"$seal_check" --curio-verify "$inputs"
say "build ${build_s} s, tests ${tests_s} s, total $(($(date +%s) - start)) s"
