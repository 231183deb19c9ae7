#!/usr/bin/env bash
# examples/cpp/run.sh: builds and runs the C++ host (examples/cpp/host.cpp) as a miner would
# link it: g++ -std=c++17 against include/groth16_c2.h and the release libgroth16_c2.a only.
# Writes a fixture with examples/c_fixture.rs into a temp dir, compiles under
# AddressSanitizer/LSan where available (so leaks fail the run), and runs the host, whose last
# line is `cpp host: N passed, M failed`. Exits non-zero on any failure.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cargo run --quiet --release --features bellpepper --example c_fixture -- "$tmp"
# After the fixture writer, whose build left a bellpepper-featured library in target/release:
# the host links the default library (the 6-argument ABI), as a miner's build would.
cargo build --quiet --release --lib

# What the static library needs from the system (as in tests/c/run.sh).
native_libs=(-lgcc_s -lutil -lrt -lpthread -lm -ldl -lc)

sanitize=(-fsanitize=address,undefined -fno-omit-frame-pointer)
printf 'int main() { return 0; }\n' >"$tmp/probe.cpp"
if ! { g++ "${sanitize[@]}" "$tmp/probe.cpp" -o "$tmp/probe" && "$tmp/probe"; } >/dev/null 2>&1; then
    echo "note: AddressSanitizer is not available here; running without leak checks"
    sanitize=()
fi

g++ -std=c++17 -Wall -Wextra -Werror -O1 "${sanitize[@]}" -I include examples/cpp/host.cpp \
    target/release/libgroth16_c2.a "${native_libs[@]}" -o "$tmp/host"
echo "--- cpp host"
"$tmp/host" "$tmp/circuit.params" "$tmp/fixture.bin"
