#!/usr/bin/env bash
# tests/c/run.sh: the C host test. Builds the release static library, writes a fixture (params,
# witnesses, bellperson's proofs) with examples/c_fixture.rs, compiles tests/c/prove.c with
# `cc -std=c11` against include/groth16_c2.h and libgroth16_c2.a (under AddressSanitizer where
# available, so leaks fail the test), and runs it once per form of generate_groth16_proofs_c:
# the default 6-argument one and Curio's 8-argument one (the cuzk-abi feature).
# Prints `c host: N passed, M failed` last and exits non-zero on any failure.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cargo run --quiet --release --features bellpepper --example c_fixture -- "$tmp"

# What the static library needs from the system, as `cargo rustc --release --lib --
# --print native-static-libs` lists it.
native_libs=(-lgcc_s -lutil -lrt -lpthread -lm -ldl -lc)

# AddressSanitizer's leak checker makes "frees everything" a checked claim (it also sees the
# library's allocations through malloc). Use it where the compiler and kernel support it.
sanitize=(-fsanitize=address,undefined -fno-omit-frame-pointer)
printf 'int main(void) { return 0; }\n' >"$tmp/probe.c"
if ! { cc "${sanitize[@]}" "$tmp/probe.c" -o "$tmp/probe" && "$tmp/probe"; } >/dev/null 2>&1; then
    echo "note: AddressSanitizer is not available here; running without leak checks"
    sanitize=()
fi

passed=0
failed=0
for abi in default cuzk-abi; do
    if [ "$abi" = default ]; then
        features=()
        defines=()
    else
        features=(--features cuzk-abi)
        defines=(-DGROTH16_C2_CUZK_ABI)
    fi
    # Built after the fixture writer, whose build left a bellpepper-featured library in
    # target/release, and copied because the next form's build overwrites it.
    cargo build --quiet --release --lib "${features[@]}"
    cp target/release/libgroth16_c2.a "$tmp/libgroth16_c2-$abi.a"
    cc -std=c11 -Wall -Wextra -Werror -O1 "${sanitize[@]}" "${defines[@]}" -I include tests/c/prove.c \
        "$tmp/libgroth16_c2-$abi.a" "${native_libs[@]}" -o "$tmp/prove-$abi"
    echo "--- c host ($abi ABI)"
    if "$tmp/prove-$abi" "$tmp/circuit.params" "$tmp/fixture.bin"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
    fi
done
echo "c host: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
